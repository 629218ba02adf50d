/**
 * Project env vars (spec: api-v3.md Projects: `POST /projects/:id/environment-variables`
 * `{name, value}` → 201, `DELETE /projects/:id/environment-variables/:name`). There is no
 * update route: the POST sets the named variable, whether or not it exists (the spec lists
 * 201/404 only, no "exists" refusal; the public docs describe it so), so a changed value is
 * one POST and the variable is never missing in between.
 *
 * Decision: on a service that refuses the POST because the name exists (status and
 * `error.type`, src/apply/executor.ts), nothing is deleted and the update fails with a
 * message that says so: deleting first would leave no variable at all if the new value were
 * then refused too, and Waybill cannot know beforehand that it would be accepted.
 */
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { call } from "./calls.js";
import type { CallPhase, ResourceKind } from "./contract.js";
import { envVarKindBase } from "./env-var-common.js";

const ROUTE = "/projects/{project_id}/environment-variables";

const postCall = (phase: CallPhase, note: string) =>
  call(phase, "POST", ROUTE, {
    body: "flat",
    body_fields: ["name", "value"],
    sensitive_fields: ["value"],
    note,
  });

export const projectEnvVarKind: ResourceKind<DesiredEnvVar, LiveEnvVar> = {
  type: "project_env_var",
  parent: "project",
  replaceOrder: "never",
  replaceOrderWhy: "a changed value is an update: one POST that overwrites it",
  ...envVarKindBase,
  createCalls: () => [postCall("create", "sets the variable (safe to re-send: keyed by name)")],
  updateCalls: () => [
    postCall(
      "update",
      "overwrites the value in place; the variable is never deleted (a refusal leaves it as it is)",
    ),
  ],
  deleteCalls: () => [call("delete", "DELETE", `${ROUTE}/{name}`)],
};
