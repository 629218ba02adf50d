/**
 * `ignore_fields` (issue 32, design.md §4 "Drift back into Git"): fields managed elsewhere.
 * Each entry is an address glob with a final field name (`project["*"].webhook["*"].is_enabled`,
 * `org_settings.enable_private_orbs`); it matches `<address>.<field path>` or an ancestor
 * field of it (`…trigger["*"].event` covers `event.schedule.cron_expression`).
 *
 * Decision: the planner drops matching fields from each comparison of an existing item, so
 * they are neither a change (plan, drift), nor sent (updates send only changed fields: spec
 * api-v3.md "Methods": POST does partial updates, and `/webhooks/:id/update` "omitted fields
 * keep values"), nor written back (pull reads the plan). A new item is created with what the
 * config says, or the service default when it says nothing: there is no live value to keep.
 */
import type { Comparison } from "../kinds/contract.js";
import { compileAddressGlob } from "../model/address.js";

export type FieldIgnored = (address: string, path: string) => boolean;

export const fieldIgnoredMatcher = (globs: readonly string[] | undefined): FieldIgnored => {
  const res = (globs ?? []).map(compileAddressGlob);
  if (res.length === 0) return () => false;
  return (address, path) => {
    const steps = path.split(".");
    for (let n = steps.length; n >= 1; n--) {
      const text = `${address}.${steps.slice(0, n).join(".")}`;
      if (res.some((r) => r.test(text))) return true;
    }
    return false;
  };
};

/** The comparison without the ignored fields (and the replace reasons they gave). */
export const withoutIgnoredFields = (
  cmp: Comparison,
  address: string,
  ignored: FieldIgnored,
): Comparison => {
  const dropped = cmp.fields.filter((f) => ignored(address, f.path));
  if (dropped.length === 0) return cmp;
  const paths = dropped.map((f) => f.path);
  return {
    ...cmp,
    fields: cmp.fields.filter((f) => !ignored(address, f.path)),
    replace_reasons: cmp.replace_reasons.filter(
      (r) => !paths.some((p) => r === p || r.startsWith(`${p} `)),
    ),
    unverified: cmp.unverified.filter((p) => !ignored(address, p)),
  };
};
