/**
 * design.md §4 "Integration": credential-bearing URLs are masked in the plan itself (scheme +
 * host + a masked path, src/model/url-mask.ts), so every rendering of it — text, Markdown,
 * JSON, drift, `show`, apply's output, the saved plan file — shows the masked form, deletes
 * included. Only `plan --show-urls` on a terminal skips this (src/cli/plan.ts). Apply never
 * reads a URL from the plan: the webhook kind names `url` among its calls' sensitive fields,
 * so the executor takes it from the config at apply time, as it takes secrets. Pure.
 */
import type { FieldChange } from "../kinds/contract.js";
import type { JsonObject, JsonValue } from "../kinds/values.js";
import { maskUrl, maskUrlsIn } from "../model/url-mask.js";
import type { Change } from "./types.js";

/** The top-level attributes of each resource type that hold a credential-bearing URL. */
export const URL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  webhook: ["url"],
};

const maskObject = (o: JsonObject | null, paths: readonly string[], seen: string[]) => {
  if (o === null) return null;
  let out: JsonObject | undefined;
  for (const p of paths) {
    const v = o[p];
    if (typeof v !== "string") continue;
    const masked = maskUrl(v);
    if (masked === v) continue;
    seen.push(v);
    out ??= { ...o };
    out[p] = masked;
  }
  return out ?? o;
};

const maskField = (f: FieldChange, paths: readonly string[], seen: string[]): FieldChange => {
  if (!paths.includes(f.path)) return f;
  const one = (v: JsonValue): JsonValue => {
    if (typeof v !== "string") return v;
    const masked = maskUrl(v);
    if (masked !== v) seen.push(v);
    return masked;
  };
  return { ...f, before: one(f.before), after: one(f.after) };
};

/**
 * The changes with every URL field masked, and the reasons and notes that quote one of
 * those URLs masked too. `urls` collects the URLs met (for the plan's warnings).
 */
export const maskPlanUrls = (changes: readonly Change[], urls: string[] = []): Change[] =>
  changes.map((c): Change => {
    const paths = URL_FIELDS[c.resource_type];
    if (paths === undefined) return c;
    const seen: string[] = [];
    const before = maskObject(c.before, paths, seen);
    const after = maskObject(c.after, paths, seen);
    const fields = c.fields.map((f) => maskField(f, paths, seen));
    if (seen.length === 0) return c;
    urls.push(...seen);
    return {
      ...c,
      before,
      after,
      fields,
      reason: maskUrlsIn(c.reason, seen),
      ...(c.notes !== undefined ? { notes: c.notes.map((n) => maskUrlsIn(n, seen)) } : {}),
    } as Change;
  });
