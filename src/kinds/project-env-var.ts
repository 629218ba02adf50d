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
import type { ProjectEnvVarAttributes, V2ProjectEnvVar, V3Resource } from "../core/wire.js";
import { addr } from "../model/address.js";
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { call } from "./calls.js";
import { envVarEntries, projectShortName, scopeName } from "./config-doc.js";
import type { CallPhase } from "./contract.js";
import { envVarConfig, envVarDiff, envVarIdentity, envVarPlace } from "./env-var-common.js";
import { defineKind } from "./grouped.js";
import { pageOptions, scopeId, scopeSlug, v2Slug } from "./listing.js";

/**
 * The last four characters from a V2 masked project env var value
 * (spec: api-v2-v1.md: "masked: four `x` characters plus the last four characters").
 * Decision: a value shorter than four characters is masked as `xxxx` plus the whole value,
 * so the part after the four `x` is taken as it is; a value without the mask prefix (not
 * per spec) falls back to its own last four characters.
 */
export const lastFourFromMasked = (masked: string): string =>
  masked.startsWith("xxxx") ? masked.slice(4) : masked.slice(-4);

const toLiveEnvVar = (i: V3Resource<ProjectEnvVarAttributes>): LiveEnvVar =>
  i.attributes.truncated_value === undefined
    ? { name: i.attributes.name }
    : { name: i.attributes.name, truncated_value: i.attributes.truncated_value };

const ROUTE = "/projects/{project_id}/environment-variables";

const postCall = (phase: CallPhase, note: string) =>
  call(phase, "POST", ROUTE, {
    body: "flat",
    body_fields: ["name", "value"],
    sensitive_fields: ["value"],
    note,
  });

export const projectEnvVarKind = defineKind<DesiredEnvVar, LiveEnvVar, "project">({
  identity: { type: "project_env_var", parent: "project", ...envVarIdentity },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "a changed value is an update: one POST that overwrites it",
    ...envVarDiff,
  },
  wire: {
    /**
     * spec: api-v3.md "Project environment variable": V3 does not name the value field. When
     * the V3 items carry no `truncated_value` and the project's slug is known, the last four
     * characters come from V2's masked value (spec: api-v2-v1.md:
     * `GET /project/{project-slug}/envvar`, `xxxx` plus the last four).
     */
    list: async (api, scope, options) => {
      const items = await api.listV3<ProjectEnvVarAttributes>(
        `/projects/${encodeURIComponent(scopeId(scope, "project_id"))}/environment-variables`,
        {},
        pageOptions(options, toLiveEnvVar),
      );
      const vars = items.map(toLiveEnvVar);
      if (
        vars.every((v) => v.truncated_value !== undefined) ||
        scope.project_slug === undefined ||
        scope.lastFour === false
      ) {
        return vars;
      }
      const v2 = await api.listV2<V2ProjectEnvVar>(
        `/project/${v2Slug(scopeSlug(scope))}/envvar`,
        {},
        options?.signal ? { signal: options.signal } : {},
      );
      const lastFour = new Map(v2.map((v) => [v.name, lastFourFromMasked(v.value)]));
      return vars.map((v) => {
        const tv = v.truncated_value ?? lastFour.get(v.name);
        return tv === undefined ? { name: v.name } : { name: v.name, truncated_value: tv };
      });
    },
    createCalls: () => [postCall("create", "sets the variable (safe to re-send: keyed by name)")],
    updateCalls: () => [
      postCall(
        "update",
        "overwrites the value in place; the variable is never deleted (a refusal leaves it as it is)",
      ),
    ],
    deleteCalls: () => [call("delete", "DELETE", `${ROUTE}/{name}`)],
  },
  // `project["<slug>"].env["NAME"]`, removed with the project.
  place: envVarPlace,
  config: {
    ...envVarConfig,
    // Values are never returned: every variable is a placeholder PROJECT_<PROJECT>_<VAR>.
    export: (items, scope, ctx) => {
      const slug = scopeName(scope, "project");
      return envVarEntries(
        items,
        (name) => addr.projectEnvVar(slug, name),
        (name, address) => ctx.env(["PROJECT", projectShortName(slug), name], address, "env var"),
      );
    },
  },
  hooks: {
    adopt: {
      by: "resend",
      why: 'the POST sets the named variable (the API reference, "Projects": 201/404 only), so sending it again cannot duplicate it',
      // An earlier attempt of ours may have stored the value before its answer was lost: a
      // variable whose last four are ours is taken as that one (adopted).
      existsRefusal: {
        sameValue: (d, l) => {
          const want = d.value.isResolved ? d.value.lastFour() : undefined;
          return want !== undefined && l.truncated_value === want;
        },
        message:
          "The service refused to overwrite the variable because the name exists; nothing was deleted, so it keeps its live value. Waybill never deletes a secret before its replacement is accepted: set the new value in the service, or delete the variable and re-run apply",
      },
    },
  },
});
