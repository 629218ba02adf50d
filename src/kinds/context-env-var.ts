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
import { envVarConfig, envVarDiff, envVarIdentity, envVarPlace } from "./env-var-common.js";
import { defineKind } from "./grouped.js";
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

export const contextEnvVarKind = defineKind<DesiredEnvVar, LiveEnvVar, "context">({
  identity: { type: "context_env_var", parent: "context", ...envVarIdentity },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "the value is set in place (upsert); the name is the identity",
    ...envVarDiff,
  },
  wire: {
    list: async (api, scope, options) =>
      (
        await api.listV3<ContextEnvVarAttributes>(
          `/contexts/${scopeId(scope, "context_id")}/env-vars`,
          {},
          pageOptions(options, toLiveEnvVar),
        )
      ).map(toLiveEnvVar),
    createCalls: () => [setCall("create")],
    updateCalls: () => [setCall("update")],
    deleteCalls: () => [
      call("delete", "DELETE", "/contexts/{context_id}/env-vars", {
        query: { "filter[name]": "{name}" },
      }),
    ],
  },
  // `context["x"].env["NAME"]`; spec: api-v3.md Contexts: deleting a context deletes its
  // env vars (the default `cascades`).
  place: {
    ...envVarPlace,
    livePlace: {
      under: "context",
      // A context no declaration manages is deleted: its env is read too, so that the plan
      // says how many secrets the delete destroys (design.md §1 "Ownership").
      readFor: (decl) => decl === undefined || decl.env !== undefined,
      store: (items) => ({ env: items }),
      stored: (c) => c.env,
    },
  },
  config: {
    ...envVarConfig,
    // Values are never returned: every variable is a placeholder CTX_<CONTEXT>_<VAR>.
    export: (items, scope, ctx) => {
      const context = scopeName(scope, "parent");
      return envVarEntries(
        items,
        (name) => addr.contextEnvVar(context, name),
        (name, address) => ctx.env(["CTX", context, name], address, "env var"),
      );
    },
  },
  hooks: {
    adopt: {
      by: "resend",
      why: 'env-vars/set sets the variable by name (the API reference, "Contexts"), so sending it again is safe',
    },
  },
});
