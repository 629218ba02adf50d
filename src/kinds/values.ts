/**
 * Plain JSON values and the comparisons the kinds share: deep equality, set equality for
 * lists the service keeps unordered (conventions.md §4), dotted paths, and masking of
 * secrets (design.md §1 "Secrets": shown as `(sensitive)`, never a value).
 */
import { isSecret } from "../core/secret.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

/** What a secret looks like in a plan, in every output format. */
export const SENSITIVE = "(sensitive)";

/** Key-sorted JSON text: equal values give equal text whatever the key order. */
export const canonical = (v: JsonValue): string => {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k] as JsonValue)}`).join(",")}}`;
};

export const deepEqual = (a: JsonValue, b: JsonValue): boolean => {
  // The same value, or two different strings, need no text (issue 33: most of a large
  // plan's comparisons are of equal strings). JSON text is one-to-one on strings; NaN, ±0
  // and the rest go through `canonical` as before.
  if (a === b) return true;
  if (typeof a === "string" && typeof b === "string") return false;
  return canonical(a) === canonical(b);
};

/** Lists compared as sets: same members, order and repeats ignored. */
export const sameSet = (a: readonly JsonValue[], b: readonly JsonValue[]): boolean => {
  const sa = new Set(a.map(canonical));
  const sb = new Set(b.map(canonical));
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
};

/**
 * Convert a model value to plain JSON: `undefined` members are dropped, a Secret becomes
 * `(sensitive)`, Maps become objects. The result never holds a Secret value.
 */
export const toJson = (v: unknown): JsonValue => {
  if (v === null || v === undefined) return null;
  if (isSecret(v)) return SENSITIVE;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, x] of v) if (x !== undefined) out[String(k)] = toJson(x);
    return out;
  }
  if (typeof v === "object") {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toJson(x);
    return out;
  }
  return null;
};

/** `toJson` for values known to be objects. */
export const toJsonObject = (v: object): JsonObject => {
  const j = toJson(v);
  return j !== null && typeof j === "object" && !Array.isArray(j) ? j : {};
};

/** The value at a dotted path (`config.file_path`), or undefined. */
export const getPath = (obj: JsonValue | undefined, path: string): JsonValue | undefined => {
  if (!path.includes(".")) {
    // One step (most rules' paths): no list of parts to make.
    if (obj === null || obj === undefined || typeof obj !== "object" || Array.isArray(obj)) {
      return undefined;
    }
    return obj[path];
  }
  let cur: JsonValue | undefined = obj;
  for (const part of path.split(".")) {
    if (cur === null || cur === undefined || typeof cur !== "object" || Array.isArray(cur)) {
      return undefined;
    }
    cur = cur[part];
  }
  return cur;
};

/**
 * Mask in `before` every member that is `(sensitive)` in `after`: a value the config marks
 * as secret (a url from `${env:…}`) stays hidden on both sides of a change, even when the
 * service returns it in full.
 */
export const maskLike = (before: JsonObject, after: JsonObject): JsonObject => {
  const out: JsonObject = { ...before };
  for (const [k, a] of Object.entries(after)) {
    const b = out[k];
    if (b === undefined || b === null) continue;
    if (a === SENSITIVE) out[k] = SENSITIVE;
    else if (
      a !== null &&
      typeof a === "object" &&
      !Array.isArray(a) &&
      typeof b === "object" &&
      !Array.isArray(b)
    ) {
      out[k] = maskLike(b, a);
    }
  }
  return out;
};
