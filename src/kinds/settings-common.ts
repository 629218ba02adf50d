import type { FieldRule } from "./compare.js";
import type { JsonObject } from "./values.js";
import { toJson } from "./values.js";

/** Only the declared keys of a settings map, as JSON (the `source` location is dropped). */
export const declaredSettings = (settings: object, names: readonly string[]): JsonObject => {
  const values = new Map<string, unknown>(Object.entries(settings));
  const out: JsonObject = {};
  for (const name of names) {
    const v = values.get(name);
    if (v !== undefined) out[name] = toJson(v);
  }
  return out;
};

/** One rule per declared key; arrays (pr_only_branch_overrides) compare as sets. */
export const settingsRules = (declared: JsonObject): FieldRule[] =>
  Object.keys(declared).map((path) => ({
    path,
    mode: "update",
    compare: Array.isArray(declared[path]) ? "set" : "value",
  }));
