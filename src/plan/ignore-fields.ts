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
import { type AddressGlob, compileAddressGlob, parseAddress } from "../model/address.js";

export type FieldIgnored = (address: string, path: string) => boolean;

/** Each step of an entry: its name, and a glob of its key (keyed steps). */
type FieldGlob = readonly { readonly name: string; readonly key?: AddressGlob }[];

const compile = (glob: string): FieldGlob | undefined =>
  parseAddress(glob)?.map((s) =>
    s.key === undefined ? { name: s.name } : { name: s.name, key: compileAddressGlob(s.key) },
  );

/**
 * Issue 41: an entry is matched step by step, each key glob against that step's key only,
 * so a `*` never crosses into another step or kind (`project["*"].url` matched
 * `project["a"].webhook["b"].url`, its `*` taking `a"].webhook["b`). The entry's first steps
 * are the address (as many as it has), the rest the field path: it matches
 * `<address>.<field path>` or an ancestor field of it.
 */
export const fieldIgnoredMatcher = (globs: readonly string[] | undefined): FieldIgnored => {
  const compiled = (globs ?? []).flatMap((g) => {
    const c = compile(g);
    return c ? [c] : [];
  });
  if (compiled.length === 0) return () => false;
  return (address, path) => {
    const segments = parseAddress(address);
    if (!segments) return false;
    const n = segments.length;
    const fields = path.split(".");
    return compiled.some(
      (g) =>
        g.length > n &&
        g.length - n <= fields.length &&
        segments.every((s, i) => {
          const step = g[i] as FieldGlob[number];
          if (step.name !== s.name) return false;
          if (step.key === undefined) return s.key === undefined;
          return s.key !== undefined && step.key.test(s.key);
        }) &&
        g.slice(n).every((step, i) => step.key === undefined && fields[i] === step.name),
    );
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
