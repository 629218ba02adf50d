/**
 * Project env vars (spec: api-v3.md Projects: `POST /projects/:id/environment-variables`
 * `{name, value}` → 201, `DELETE /projects/:id/environment-variables/:name`). There is no
 * update route, so a changed value is an `update` whose calls say exactly what apply does
 * (design.md §1 "Plans"): POST; if the service refuses because the name exists (400/409),
 * DELETE then POST again.
 */
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { call } from "./calls.js";
import type { ApiCall, CallPhase, ResourceKind } from "./contract.js";
import { envVarKindBase } from "./env-var-common.js";

const ROUTE = "/projects/{project_id}/environment-variables";

const postCall = (phase: CallPhase, when: ApiCall["when"] = "always", note?: string): ApiCall =>
  call(phase, "POST", ROUTE, {
    body: "flat",
    body_fields: ["name", "value"],
    sensitive_fields: ["value"],
    when,
    ...(note === undefined ? {} : { note }),
  });

export const projectEnvVarKind: ResourceKind<DesiredEnvVar, LiveEnvVar> = {
  type: "project_env_var",
  parent: "project",
  replaceOrder: "never",
  replaceOrderWhy: "a changed value is an update (POST, else DELETE then POST)",
  ...envVarKindBase,
  createCalls: () => [postCall("create")],
  updateCalls: () => [
    postCall("update"),
    call("update", "DELETE", `${ROUTE}/{name}`, {
      when: "if_exists_refused",
      note: "only if the POST was refused because the name exists (400/409)",
    }),
    postCall("update", "if_exists_refused", "re-create after the DELETE"),
  ],
  deleteCalls: () => [call("delete", "DELETE", `${ROUTE}/{name}`)],
};
