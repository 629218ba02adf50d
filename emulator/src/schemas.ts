/**
 * Body and seed schemas, in one place so a seed row and a create body of the same entity are
 * checked by the same rules. spec: api-v3.md "Endpoints" (each body shape) and "Resource fields
 * that are given".
 */
import {
  EVENT_PRESETS,
  ORG_SETTINGS,
  PROJECT_BOOL_SETTINGS,
  PROJECT_LIST_SETTING,
  RESTRICTION_TYPES,
  TRIGGER_EVENT_TYPES,
  WEBHOOK_EVENT_NAMES,
} from "./spec-names.js";
import { type Schema, s } from "./validate.js";

/** spec: api-v3.md "Org settings": the 18 booleans (the emulator's own list: spec-names.ts). */
export const ORG_SETTINGS_KEYS = ORG_SETTINGS;

/** spec: api-v3.md "Project settings": 12 booleans plus `pr_only_branch_overrides`. */
export const PROJECT_BOOL_SETTINGS_KEYS = PROJECT_BOOL_SETTINGS;

export { RESTRICTION_TYPES, TRIGGER_EVENT_TYPES };

const nonEmpty = () => s.str({ nonEmpty: true });

export const orgSettingsSchema: Schema = s.obj(
  Object.fromEntries(ORG_SETTINGS_KEYS.map((k) => [k, s.bool()])),
);

export const projectSettingsSchema: Schema = s.obj({
  ...Object.fromEntries(PROJECT_BOOL_SETTINGS_KEYS.map((k) => [k, s.bool()])),
  [PROJECT_LIST_SETTING]: s.arr(s.str()),
});

export const vcsRepoSchema: Schema = s.obj(
  { provider: nonEmpty(), repo_id: nonEmpty(), repo_full_name: nonEmpty() },
  ["provider", "repo_id", "repo_full_name"],
);

/** `{ id uuid, rel string?, attributes string? }` (spec: Contexts, Context restrictions). */
const refWithRel: Schema = s.obj({ id: nonEmpty(), rel: s.str(), attributes: s.str() }, ["id"]);
const ref: Schema = s.obj({ id: nonEmpty() }, ["id"]);

const enveloped = (attributes: Schema, references: Schema): Schema =>
  s.obj({ data: s.obj({ attributes, references }, ["attributes", "references"]) }, ["data"]);

// ---------------------------------------------------------------------------------------
// Contexts, restrictions, env vars
// ---------------------------------------------------------------------------------------

export const contextCreateSchema = enveloped(
  s.obj({ name: nonEmpty() }, ["name"]),
  s.obj({ org: refWithRel }, ["org"]),
);

const restrictionAttrProps = {
  restriction_type: s.str({ oneOf: RESTRICTION_TYPES }),
  match_pattern: nonEmpty(),
};
export const restrictionCreateSchema = enveloped(
  s.obj(restrictionAttrProps, ["restriction_type", "match_pattern"]),
  s.obj({ context: refWithRel }, ["context"]),
);

/** Used by `env-vars/set` and project env var create: flat `{ name, value }`. */
export const envVarSetSchema: Schema = s.obj({ name: nonEmpty(), value: s.str() }, [
  "name",
  "value",
]);

// ---------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------

const webhookProps = {
  name: nonEmpty(),
  scope: nonEmpty(),
  url: nonEmpty(),
  events: s.arr(s.str({ oneOf: WEBHOOK_EVENT_NAMES })),
  should_verify_tls: s.bool(),
  signing_secret: s.str(),
  is_enabled: s.bool(),
};
export const webhookCreateSchema = enveloped(
  s.obj(webhookProps, ["name", "scope", "url", "events"]),
  s.obj({ project: ref }, ["project"]),
);
/** spec: Webhooks: update takes only name, url, events, should_verify_tls, signing_secret. */
export const webhookUpdateSchema: Schema = s.obj({
  name: nonEmpty(),
  url: nonEmpty(),
  events: s.arr(s.str({ oneOf: WEBHOOK_EVENT_NAMES })),
  should_verify_tls: s.bool(),
  signing_secret: s.str(),
});
export const setEnabledSchema: Schema = s.obj({ is_enabled: s.bool() }, ["is_enabled"]);

// ---------------------------------------------------------------------------------------
// Pipelines and triggers
// ---------------------------------------------------------------------------------------

const pipelineConfigSchema: Schema = s.obj(
  {
    type: nonEmpty(),
    file_path: nonEmpty(),
    file_type: s.str(),
    vcs: vcsRepoSchema,
    hosted: s.obj({ provider: nonEmpty() }, ["provider"]),
  },
  ["type", "file_path"],
);
const pipelineProps = {
  name: nonEmpty(),
  description: s.str(),
  config: pipelineConfigSchema,
  checkout: s.obj({ vcs: vcsRepoSchema }, ["vcs"]),
};
export const pipelineCreateSchema = enveloped(
  s.obj(pipelineProps, ["name", "config", "checkout"]),
  s.obj({ project: ref }, ["project"]),
);
/** spec: Pipelines: update takes only name, description, config.file_path, config.file_type. */
export const pipelineUpdateSchema: Schema = s.obj({
  name: nonEmpty(),
  description: s.str(),
  config: s.obj({ file_path: nonEmpty(), file_type: s.str() }),
});

const triggerFilterSchema: Schema = s.obj({
  // Decision: a preset outside the spec's list (api-v2-v1.md "Enumerations", event_preset)
  // is a 400, the less forgiving reading of POST /triggers' "201, 400": a client that sends
  // a misspelt preset must meet the refusal here, not first on the real service.
  preset: s.str({ oneOf: EVENT_PRESETS }),
  rules: s.arr(s.obj({ event_type: s.str(), rule: nonEmpty(), event_ref: s.str() }, ["rule"])),
});
const webhookEventSchema: Schema = s.obj({ name: s.str(), source: s.str(), secret: s.str() });
const scheduleEventSchema: Schema = s.obj({
  name: s.str(),
  cron_expression: s.str(),
  attribution_actor: s.str({ oneOf: ["system", "current"] }),
});
const triggerProps = {
  is_disabled: s.bool(),
  config: s.obj({ ref: s.str() }),
  checkout: s.obj({ ref: s.str() }),
  event: s.obj(
    {
      type: s.str({ oneOf: TRIGGER_EVENT_TYPES }),
      vcs: vcsRepoSchema,
      webhook: webhookEventSchema,
      schedule: scheduleEventSchema,
      filter: triggerFilterSchema,
    },
    ["type"],
  ),
  parameters: s.jsonObject(),
};
export const triggerCreateSchema = enveloped(
  s.obj(triggerProps, ["event"]),
  s.obj({ pipeline: ref }, ["pipeline"]),
);
export const triggerUpdateSchema: Schema = s.obj({
  is_disabled: s.bool(),
  config: s.obj({ ref: s.str() }),
  checkout: s.obj({ ref: s.str() }),
  event: s.obj({
    webhook: webhookEventSchema,
    schedule: scheduleEventSchema,
    filter: triggerFilterSchema,
  }),
  parameters: s.jsonObject(),
});

// ---------------------------------------------------------------------------------------
// V2 checkout keys and OTLP exporters (spec: api-v2-v1.md "Endpoints (V2)")
// ---------------------------------------------------------------------------------------

/** spec: api-v2-v1.md Enumerations: checkout-key input type `user-key` or `deploy-key`. */
export const CHECKOUT_KEY_INPUT_TYPES = ["user-key", "deploy-key"] as const;

/** spec: POST /project/{project-slug}/checkout-key `{ type user-key|deploy-key }`. */
export const checkoutKeyCreateSchema: Schema = s.obj(
  { type: s.str({ oneOf: CHECKOUT_KEY_INPUT_TYPES }) },
  ["type"],
);

const otelExporterProps = {
  endpoint: nonEmpty(),
  protocol: s.str({ oneOf: ["grpc", "http"] }),
  insecure: s.bool(),
  headers: s.record(s.str()),
};

/**
 * spec: POST /otel/exporters `{ org_id uuid, endpoint string (host and port only, no
 * scheme), protocol grpc|http, insecure bool?, headers map? }`.
 */
export const otelExporterCreateSchema: Schema = s.obj(
  { org_id: nonEmpty(), ...otelExporterProps },
  ["org_id", "endpoint", "protocol"],
);

// ---------------------------------------------------------------------------------------
// Seed (emu brief: the seed's shape)
// ---------------------------------------------------------------------------------------

const id = s.str({ nonEmpty: true });

const seedTriggerSchema = s.obj({ id, ...triggerProps }, ["event"]);
const seedPipelineSchema = s.obj({ id, ...pipelineProps, triggers: s.arr(seedTriggerSchema) }, [
  "name",
  "config",
]);
const seedWebhookSchema = s.obj({ id, ...webhookProps, auto_disabled_at: s.str() }, [
  "name",
  "url",
  "events",
]);
const seedProjectSchema = s.obj(
  {
    id,
    slug: nonEmpty(),
    name: s.str(),
    oauth: s.bool(),
    is_followed: s.bool(),
    last_active_at: s.str(),
    repo: vcsRepoSchema,
    settings: projectSettingsSchema,
    env: s.record(s.str({ nonEmpty: true })),
    webhooks: s.arr(seedWebhookSchema),
    pipelines: s.arr(seedPipelineSchema),
    checkout_keys: s.arr(
      s.obj(
        {
          type: s.str({ oneOf: CHECKOUT_KEY_INPUT_TYPES }),
          preferred: s.bool(),
          private_seed: s.str(),
          created_at: s.str(),
        },
        ["type"],
      ),
    ),
    schedules: s.arr(
      s.obj(
        {
          id,
          name: nonEmpty(),
          description: s.str(),
          timetable: s.jsonObject(),
          parameters: s.jsonObject(),
          actor: s.jsonObject(),
        },
        ["name"],
      ),
    ),
  },
  ["slug"],
);
const seedContextSchema = s.obj(
  {
    id,
    name: nonEmpty(),
    created_at: s.str(),
    env: s.record(s.str({ nonEmpty: true })),
    restrictions: s.arr(
      s.obj({ id, ...restrictionAttrProps, created_at: s.str() }, [
        "restriction_type",
        "match_pattern",
      ]),
    ),
  },
  ["name"],
);
const seedOrgSchema = s.obj(
  {
    id,
    slug: nonEmpty(),
    name: s.str(),
    settings: orgSettingsSchema,
    default_context_restriction: s.bool(),
    groups: s.arr(s.obj({ id, name: nonEmpty(), description: s.str() }, ["name"])),
    sso_group_mappings: s.arr(
      s.obj({ idp_group_name: nonEmpty(), group: nonEmpty() }, ["idp_group_name", "group"]),
    ),
    contexts: s.arr(seedContextSchema),
    projects: s.arr(seedProjectSchema),
    otel_exporters: s.arr(s.obj({ id, ...otelExporterProps }, ["endpoint", "protocol"])),
  },
  ["slug"],
);
export const seedSchema: Schema = s.obj({
  $schema: s.str(),
  description: s.str(),
  tokens: s.arr(
    s.obj({ token: nonEmpty(), read_only: s.bool(), user: s.bool(), write_contexts: s.bool() }, [
      "token",
    ]),
  ),
  orgs: s.arr(seedOrgSchema),
});

/**
 * spec: api-v2-v1.md Endpoints (V2): POST /organizations/{org_id}/groups `{ name required,
 * description? }`.
 */
export const groupCreateSchema: Schema = s.obj({ name: nonEmpty(), description: s.str() }, [
  "name",
]);

/**
 * PUT /orgs/:id/sso-group-mappings (spec: api-v3.md Orgs): `{ data: { attributes: { mappings:
 * [ { attributes: { idp_group_name string }, references: { group: { id uuid, rel string?,
 * attributes string? } } } ] } } }`. The shape has no `data.references`: a member it does not
 * list is 400, like everywhere else.
 */
export const ssoGroupMappingsSchema: Schema = s.obj(
  {
    data: s.obj(
      {
        attributes: s.obj(
          {
            mappings: s.arr(
              s.obj(
                {
                  attributes: s.obj({ idp_group_name: nonEmpty() }, ["idp_group_name"]),
                  references: s.obj(
                    { group: s.obj({ id: nonEmpty(), rel: s.str(), attributes: s.str() }, ["id"]) },
                    ["group"],
                  ),
                },
                ["attributes", "references"],
              ),
            ),
          },
          ["mappings"],
        ),
      },
      ["attributes"],
    ),
  },
  ["data"],
);

/** spec: api-v2-v1.md Endpoints (V2): POST /organization/{org-slug-or-id}/project `{ name string }`. */
export const projectCreateSchema: Schema = s.obj({ name: nonEmpty() }, ["name"]);
