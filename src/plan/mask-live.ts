/**
 * design.md §1 "Secrets", issue 21: a value the config marks secret is masked wherever it
 * appears in a plan, the live side included. The service returns some such values in full
 * (a webhook `url` that the config takes from `${env:…}`): renaming that webhook deletes the
 * old one, whose `before` would otherwise print the URL in clear. Pure.
 */
import type { FieldChange } from "../kinds/contract.js";
import { type JsonObject, type JsonValue, SENSITIVE } from "../kinds/values.js";
import { MIN_SECRET_LENGTH } from "../model/redactor.js";
import type { Change } from "./types.js";

const maskValue = (v: JsonValue, secrets: ReadonlySet<string>): JsonValue => {
  if (typeof v === "string") return secrets.has(v) ? SENSITIVE : v;
  if (Array.isArray(v)) return v.map((x) => maskValue(x, secrets));
  if (v !== null && typeof v === "object") return maskObject(v, secrets);
  return v;
};

const maskObject = (o: JsonObject, secrets: ReadonlySet<string>): JsonObject => {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(o)) out[k] = maskValue(x, secrets);
  return out;
};

/**
 * Every live-side value (`before`, and each field's `before`) equal to one of `secrets`
 * becomes `(sensitive)`.
 *
 * Decision: only the live side is rewritten. The desired side already shows every secret of
 * the config as `(sensitive)` (src/kinds/values.ts `toJson`); a plain desired value equal to
 * a secret was written in the config in clear, and apply builds request bodies from `after`,
 * so masking it there would send the mask. Values shorter than MIN_SECRET_LENGTH are left,
 * as the redactor leaves them (`main`, `true` would hide real changes).
 */
export const maskLiveSecrets = (
  changes: readonly Change[],
  secretValues: readonly string[],
): Change[] => {
  const secrets = new Set(secretValues.filter((s) => s.length >= MIN_SECRET_LENGTH));
  if (secrets.size === 0) return [...changes];
  const maskField = (f: FieldChange): FieldChange => ({
    ...f,
    before: maskValue(f.before, secrets),
  });
  return changes.map((c): Change => {
    const fields = c.fields.map(maskField);
    return c.action === "create"
      ? { ...c, fields }
      : { ...c, before: maskObject(c.before, secrets), fields };
  });
};
