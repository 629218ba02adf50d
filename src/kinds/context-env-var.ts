/**
 * Context env vars (spec: api-v3.md "Context environment variable", Contexts:
 * `POST /contexts/:id/env-vars/set`, `DELETE /contexts/:id/env-vars?filter[name]=`).
 * `set` always answers 200 "whether or not it existed", so create and update are the same
 * call (an upsert). The value is always sensitive; only `truncated_value` (last four) is
 * ever returned, which is what the comparison uses (design.md §1 "Secrets").
 */
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { call } from "./calls.js";
import type { ApiCall, CallPhase, ResourceKind } from "./contract.js";
import { envVarKindBase } from "./env-var-common.js";

const setCall = (phase: CallPhase): ApiCall =>
  call(phase, "POST", "/contexts/{context_id}/env-vars/set", {
    body: "flat",
    body_fields: ["name", "value"],
    sensitive_fields: ["value"],
  });

export const contextEnvVarKind: ResourceKind<DesiredEnvVar, LiveEnvVar> = {
  type: "context_env_var",
  parent: "context",
  replaceOrder: "never",
  replaceOrderWhy: "the value is set in place (upsert); the name is the identity",
  ...envVarKindBase,
  createCalls: () => [setCall("create")],
  updateCalls: () => [setCall("update")],
  deleteCalls: () => [
    call("delete", "DELETE", "/contexts/{context_id}/env-vars", {
      query: { "filter[name]": "{name}" },
    }),
  ],
};
