/**
 * Build a request from a plan's call data (src/kinds/contract.ts ApiCall): fill the route's
 * and query's `{placeholders}`, and build the body from the change's `after` values and,
 * for `sensitive_fields`, from the resolved config. Pure: no I/O.
 */

import { WaybillError } from "../core/errors.js";
import { isSecret } from "../core/secret.js";
import type { ApiCall, ResourceKind } from "../kinds/contract.js";
import { KINDS } from "../kinds/registry.js";
import { getPath, type JsonObject, type JsonValue, SENSITIVE } from "../kinds/values.js";
import type { Change, ParamValue } from "../plan/types.js";
import type { DesiredItem } from "./desired-index.js";

/** Apply cannot build a call: a bug, a plan that does not fit the config, or a missing id. */
export class ApplyBuildError extends WaybillError {
  readonly code = "apply_build";
}

/** Resolve a param: a literal, or the id a create earlier in this apply returned. */
export const resolveParam = (
  value: ParamValue,
  pendingId: (address: string) => string | undefined,
): string => {
  if (typeof value === "string") return value;
  const id = pendingId(value.pending);
  if (id === undefined) {
    throw new ApplyBuildError(`${value.pending} has no id yet (its create did not run)`);
  }
  return id;
};

export type ResolvedParams = Readonly<Record<string, string>>;

export const resolveParams = (
  change: Change,
  pendingId: (address: string) => string | undefined,
): ResolvedParams => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(change.params)) {
    // A param whose create has not run is only an error if a call uses it.
    if (typeof v !== "string" && pendingId(v.pending) === undefined) continue;
    out[k] = resolveParam(v, pendingId);
  }
  return out;
};

const fill = (template: string, params: ResolvedParams, encode: boolean): string =>
  template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new ApplyBuildError(`no value for {${name}} in ${template}`);
    return encode ? encodeURIComponent(v) : v;
  });

/** The route with its placeholders filled (path segments URL-encoded: env var names). */
export const fillRoute = (call: ApiCall, params: ResolvedParams): string =>
  fill(call.route, params, true);

/** The query with placeholders filled; the client encodes query values itself. */
export const fillQuery = (
  call: ApiCall,
  params: ResolvedParams,
): Record<string, string> | undefined => {
  if (call.query === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.query)) out[k] = fill(v, params, false);
  return out;
};

type Mutable = { [k: string]: JsonValue };

/** The registry's kind of a change (undefined for a kind the registry does not hold). */
const kindOfChange = (change: Change): ResourceKind<unknown, unknown> | undefined =>
  (KINDS as Partial<Record<string, ResourceKind<unknown, unknown>>>)[change.resource_type];

const setPath = (obj: Mutable, path: string, value: JsonValue): void => {
  const parts = path.split(".");
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    // An array is walked by index (`mappings.0.references.group.id`, a param field).
    if (Array.isArray(next)) {
      cur = next as unknown as Mutable;
      continue;
    }
    if (next === null || typeof next !== "object") {
      const fresh: Mutable = {};
      cur[part] = fresh;
      cur = fresh;
    } else {
      cur = next as Mutable;
    }
  }
  cur[parts[parts.length - 1] as string] = value;
};

const clone = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v)) as JsonValue;

/**
 * Issue 17: set each of the call's `param_fields` (a body field whose value is a param: an id
 * known only at apply) in `obj`; `missing` is told of a param that has no value yet.
 */
export const setParamFields = (
  obj: Mutable,
  call: ApiCall,
  params: ResolvedParams,
  missing: (field: string) => void = () => {},
): void => {
  for (const [field, param] of Object.entries(call.param_fields ?? {})) {
    const value = params[param];
    if (value === undefined) missing(field);
    else setPath(obj, field, value);
  }
};

/**
 * Drop every `(sensitive)` placeholder that was not replaced by a real value. Decision: a
 * nested body member (a trigger update's `event.webhook`) carries the masked secret from
 * `after` when the secret itself is not being changed; sending the mask would overwrite the
 * stored secret with the text "(sensitive)", so it is left out ("omitted keeps").
 */
const dropMasks = (v: JsonValue): JsonValue | undefined => {
  if (v === SENSITIVE) return undefined;
  if (Array.isArray(v)) return v.map((x) => dropMasks(x) ?? null);
  if (v !== null && typeof v === "object") {
    const out: Mutable = {};
    for (const [k, x] of Object.entries(v)) {
      const y = dropMasks(x);
      if (y !== undefined) out[k] = y;
    }
    return out;
  }
  return v;
};

/** The secret (or plain) value at a dotted path of the desired item. */
const desiredValue = (item: DesiredItem | undefined, path: string, address: string): string => {
  let cur: unknown = item?.item;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") {
      cur = undefined;
      break;
    }
    cur = (cur as Record<string, unknown>)[part];
  }
  if (isSecret(cur)) {
    if (!cur.isResolved) {
      throw new ApplyBuildError(`${address}: ${path} has no value (resolve the secret to apply)`);
    }
    return cur.reveal();
  }
  if (typeof cur === "string") return cur;
  throw new ApplyBuildError(`${address}: ${path} is not in the config, so it cannot be sent`);
};

/**
 * The body of a call, or undefined for `none`. `envelope` is `{data:{attributes,
 * references}}` (spec: api-v3.md Envelopes), `flat` a plain object (updates, `set`).
 * `references.<x>` takes the id from the param `<x>_id` (`references.org` → `org_id`).
 */
export const buildBody = (
  call: ApiCall,
  change: Change,
  params: ResolvedParams,
  desired: DesiredItem | undefined,
): JsonObject | undefined => {
  if (call.body === "none") return undefined;
  const after = change.after ?? {};
  const fallback = kindOfChange(change)?.bodyFallback;
  const attributes: Mutable = {};
  const references: Mutable = {};
  for (const field of call.body_fields) {
    if (field.startsWith("references.")) {
      const name = field.slice("references.".length);
      const id = params[`${name}_id`];
      if (id === undefined) throw new ApplyBuildError(`${change.address}: no id for ${field}`);
      references[name] = { id };
      continue;
    }
    if (call.sensitive_fields.includes(field)) continue;
    // A member `after` leaves out may be the kind's to fill (`bodyFallback`: a pipeline's
    // checkout, src/kinds/pipeline.ts).
    const own = getPath(after, field);
    const value = own === undefined ? fallback?.(field, after) : own;
    if (value === undefined) continue;
    setPath(attributes, field, clone(value));
  }
  const plain = (dropMasks(attributes) ?? {}) as Mutable;
  setParamFields(plain, call, params, (field) => {
    throw new ApplyBuildError(`${change.address}: no value for ${field}`);
  });
  for (const field of call.sensitive_fields) {
    setPath(plain, field, desiredValue(desired, field, change.address));
  }
  if (call.body === "flat") return plain;
  // Exactly the route's documented shape: `data.references` only where the call names a
  // reference. spec: api-v3.md Orgs: PUT /orgs/:id/sso-group-mappings is `{ data: {
  // attributes: { mappings } } }`, no `references`; a strict service answers 400 to more.
  const named = call.body_fields.some((f) => f.startsWith("references."));
  return named ? { data: { attributes: plain, references } } : { data: { attributes: plain } };
};
