/**
 * Context env vars (spec: api-v3.md "Context environment variable", Contexts:
 * `POST /contexts/:id/env-vars/set`, `DELETE /contexts/:id/env-vars?filter[name]=`).
 * `set` always answers 200 "whether or not it existed", so create and update are the same
 * call (an upsert). The value is always sensitive; only `truncated_value` (last four) is
 * ever returned, which is what the comparison uses (design.md §1 "Secrets").
 */
import type { ContextEnvVarAttributes, V3Resource } from "../core/wire.js";
import { addr } from "../model/address.js";
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { call } from "./calls.js";
import { envVarEntries, scopeName } from "./config-doc.js";
import type { ApiCall, CallPhase } from "./contract.js";
import { cannotRename } from "./contract.js";
import { defineFlatKind } from "./define.js";
import { envVarConfig, envVarKindBase } from "./env-var-common.js";
import { pageOptions, scopeId } from "./listing.js";

const toLiveEnvVar = (i: V3Resource<ContextEnvVarAttributes>): LiveEnvVar =>
  i.attributes.truncated_value === undefined
    ? { name: i.attributes.name }
    : { name: i.attributes.name, truncated_value: i.attributes.truncated_value };

const setCall = (phase: CallPhase): ApiCall =>
  call(phase, "POST", "/contexts/{context_id}/env-vars/set", {
    body: "flat",
    body_fields: ["name", "value"],
    sensitive_fields: ["value"],
  });

export const contextEnvVarKind = defineFlatKind<DesiredEnvVar, LiveEnvVar, "context">({
  type: "context_env_var",
  parent: "context",
  replaceOrder: "never",
  replaceOrderWhy: "the value is set in place (upsert); the name is the identity",
  ...envVarKindBase,
  // Values are never returned: every variable is a placeholder CTX_<CONTEXT>_<VAR>.
  toConfig: (items, scope, ctx) => {
    const context = scopeName(scope, "parent");
    return envVarEntries(
      items,
      (name) => addr.contextEnvVar(context, name),
      (name, address) => ctx.env(["CTX", context, name], address, "env var"),
    );
  },
  createCalls: () => [setCall("create")],
  updateCalls: () => [setCall("update")],
  deleteCalls: () => [
    call("delete", "DELETE", "/contexts/{context_id}/env-vars", {
      query: { "filter[name]": "{name}" },
    }),
  ],
  list: async (api, scope, options) =>
    (
      await api.listV3<ContextEnvVarAttributes>(
        `/contexts/${scopeId(scope, "context_id")}/env-vars`,
        {},
        pageOptions(options, toLiveEnvVar),
      )
    ).map(toLiveEnvVar),
  livePlace: {
    under: "context",
    // A context no declaration manages is deleted: its env is read too, so that the plan
    // says how many secrets the delete destroys (design.md §1 "Ownership").
    readFor: (decl) => decl === undefined || decl.env !== undefined,
    store: (items) => ({ env: items }),
    stored: (c) => c.env,
  },
  adopt: {
    by: "resend",
    why: 'env-vars/set sets the variable by name (the API reference, "Contexts"), so sending it again is safe',
  },
  // Never the last four (a secret's part).
  fingerprint: (l) => ({ name: l.name }),
  desiredItems: function* (org) {
    for (const c of org.contexts?.values() ?? []) {
      for (const e of c.env?.values() ?? []) {
        yield { address: addr.contextEnvVar(c.name, e.name), item: e };
      }
    }
  },
  liveItems: function* (org) {
    for (const c of org.contexts ?? []) {
      for (const e of c.env ?? []) yield { key: `context:${c.id}|env:${e.name}`, item: e };
    }
  },
  // spec: api-v3.md Context environment variables: a variable is set by name, and its value
  // is never returned, so a new name is a new variable that cannot be copied from the old.
  rename: cannotRename(
    "an environment variable is set by name and its value is never returned, so a new name is a new variable: declare it under the new name (the old one is deleted)",
  ),
  collection: {
    name: "env",
    segment: { name: "env", keyed: true },
    desiredIn: (c) => (c.env === undefined ? undefined : [...c.env.values()]),
    liveIn: (c) => c.env,
    addressKey: (d) => d.name,
    keyParam: "name",
    // spec: api-v3.md Contexts: deleting a context deletes its env vars.
    onParentDelete: "cascades",
  },
  config: envVarConfig,
});
