/**
 * What a saved plan binds of the values apply takes from the config (issue 43 "A saved plan
 * binds what apply sends"). A plan never holds a credential URL: it shows a webhook URL as
 * scheme + host + a 4-hex mask (src/model/url-mask.ts), and apply takes the URL from the
 * config at apply time. Sixteen bits bind nothing: a different URL on the same host with the
 * same mask is found in under a second, and `apply FILE` would send it. So the saved plan
 * keeps, for each credential URL one of its calls sends, a full-length SHA-256 of the value
 * under a random salt of its own (`SendBindings`), and apply refuses (exit 3) when the
 * config's value no longer gives the same hash.
 *
 * Decision: the salt is per plan file (128 random bits), so two plan files of the same URL
 * hold different hashes, and no table of hashes of known URLs matches one. The key of each
 * binding (org, address, field) is hashed with the value, so two webhooks of one URL do not
 * show equal hashes either.
 *
 * Decision: secret values (env values, signing secrets, header values) are not bound: a
 * credential URL carries a random token (its path, or its host), so a salted SHA-256 of it
 * gives nothing away, but a secret may be a short password, and a fast hash of one in a
 * file CI jobs pass around as an artifact can be guessed offline (a saved plan holds no
 * secret: design.md §1 "Plans"). Their origin (`${env:NAME}`, `${file:PATH}`) is in the config digest.
 *
 * `sendBindings` is a pure function of the plan, the config and the salt, so the plan digest
 * (issue 44, "the reviewed plan is the applied plan") can take the same bindings with a salt
 * of its own.
 */
import { createHash, randomBytes } from "node:crypto";
import { isSecret } from "../core/secret.js";
import type { Plan } from "../plan/types.js";
import type { DesiredIndex, DesiredItem } from "./desired-index.js";

/**
 * The fields of each resource type that hold a credential-bearing URL apply sends: a
 * webhook's `url` (spec: api-v2-v1.md "Endpoints (V2)"; a Slack or Teams URL is a password), and an
 * OTLP exporter's `endpoint` (host and port: its host may be the credential, as a request
 * bin's random host name is).
 */
export const CREDENTIAL_URL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  webhook: ["url"],
  otel_exporter: ["endpoint"],
};

/** Bindings of one saved plan: the salt, and a hash per `org|address|field` sent. */
export interface SendBindings {
  /** 32 hex characters (128 random bits), new for every plan file. */
  readonly salt: string;
  /** `org|address|field` → hex SHA-256 of salt, key and value (`bindingHash`). */
  readonly values: Readonly<Record<string, string>>;
}

export const newBindingSalt = (): string => randomBytes(16).toString("hex");

/** Full-length hex SHA-256 of the salt, the binding's key and the value (NUL-separated). */
export const bindingHash = (salt: string, key: string, value: string): string =>
  createHash("sha256").update(`${salt}\u0000${key}\u0000${value}`).digest("hex");

/** The value at a dotted path of a desired item, a secret revealed; undefined if none. */
const valueAt = (d: DesiredItem | undefined, path: string): string | undefined => {
  let cur: unknown = d?.item;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  if (isSecret(cur)) return cur.isResolved ? cur.reveal() : undefined;
  return typeof cur === "string" ? cur : undefined;
};

/**
 * Every credential URL the plan's calls send, with the key it is bound by: the changes'
 * create and update calls (a replace's create phase included) whose body names a field of
 * `CREDENTIAL_URL_FIELDS`, valued from the config (as the executor takes it:
 * src/apply/body.ts). A field the config does not hold (an unresolved secret) is bound as
 * absent (`""`), so it still differs from a value.
 */
export const credentialUrlsSent = (
  plan: Plan,
  desired: DesiredIndex,
): { readonly key: string; readonly value: string }[] => {
  const out: { key: string; value: string }[] = [];
  for (const change of plan.changes) {
    const fields = CREDENTIAL_URL_FIELDS[change.resource_type];
    if (fields === undefined || change.action === "delete") continue;
    const sent = new Set<string>();
    for (const call of change.calls) {
      if (call.phase === "delete") continue;
      for (const f of [...call.body_fields, ...call.sensitive_fields]) {
        if (fields.includes(f)) sent.add(f);
      }
    }
    const d = desired.get(change.org, change.address);
    for (const f of [...sent].sort()) {
      out.push({ key: `${change.org}|${change.address}|${f}`, value: valueAt(d, f) ?? "" });
    }
  }
  return out;
};

/** The bindings of the credential URLs a plan sends, under `salt`. Pure. */
export const sendBindings = (
  plan: Plan,
  desired: DesiredIndex,
  salt: string,
): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const { key, value } of credentialUrlsSent(plan, desired)) {
    out[key] = bindingHash(salt, key, value);
  }
  return out;
};

/**
 * The keys whose value the config now holds is not the one bound (or that one side binds
 * and the other does not); empty when every binding holds.
 */
export const brokenBindings = (
  saved: SendBindings,
  plan: Plan,
  desired: DesiredIndex,
): string[] => {
  const now = sendBindings(plan, desired, saved.salt);
  const out: string[] = [];
  for (const [k, h] of Object.entries(now)) if (saved.values[k] !== h) out.push(k);
  for (const k of Object.keys(saved.values)) if (!(k in now)) out.push(k);
  return out;
};
