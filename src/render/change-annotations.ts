/**
 * `plan --format github` (issue 46): each change of the plan as a GitHub workflow command,
 * at the line of the config that declares the item (a delete: its nearest declared parent),
 * so the pull request's diff shows what the plan does where a reviewer reads the config, as
 * `validate --format github` does for config errors. Guards and policy violations are
 * annotated by src/render/policy.ts (issue 45). A create or an update is a notice; a
 * replace or a delete, which loses the live item, a warning. Values are the plan's (masked).
 */

import { stripControls } from "../core/controls.js";
import type { SourceLocation } from "../core/errors.js";
import { ancestorsOf } from "../model/address.js";
import type { Change, Plan } from "../plan/types.js";
import { formatValue } from "./common.js";

/** Where the config declares an address of an org, if it does. */
export type Locate = (org: string, address: string) => SourceLocation | undefined;

// Escaping is the runner's (actions/toolkit `command.ts`): `%`, CR and LF in the message;
// also `:` and `,` in a property value, which would otherwise end it.
const data = (s: string): string =>
  s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const prop = (s: string): string => data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

const VERB: Readonly<Record<Change["action"], string>> = {
  create: "creates",
  update: "updates",
  replace: "replaces",
  delete: "deletes",
};

const placeOf = (c: Change, locate: Locate): SourceLocation | undefined => {
  for (const a of [c.address, ...ancestorsOf(c.address).reverse()]) {
    const at = locate(c.org, a);
    if (at !== undefined) return at;
  }
  return undefined;
};

/** One change as `::notice file=F,line=L,col=C,title=T::message`. */
export const changeAnnotation = (c: Change, locate: Locate): string => {
  const level = c.action === "create" || c.action === "update" ? "notice" : "warning";
  const at = placeOf(c, locate);
  const where = at === undefined ? "" : `file=${prop(at.file)},line=${at.line},col=${at.col},`;
  const fields =
    c.action === "update" || c.action === "replace"
      ? c.fields.map((f) => `${f.path}: ${formatValue(f.before)} → ${formatValue(f.after)}`)
      : [];
  const message = [c.reason, ...fields].join("\n");
  return stripControls(
    `::${level} ${where}title=${prop(`waybill plan ${VERB[c.action]} ${c.address}`)}::${data(message)}`,
  );
};

/** Every change's annotation, in the plan's order. */
export function* changeAnnotations(plan: Plan, locate: Locate): Generator<string> {
  for (const c of plan.changes) yield changeAnnotation(c, locate);
}
