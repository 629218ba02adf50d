/**
 * The raw YAML document, as written, once it has passed schemas/waybill.schema.json.
 *
 * These types are hand-written next to the schema (an item's type in its kind's module); `RAW_KEYS` lists, per schema object
 * (`$defs` name or nested path), the keys the TS type declares, and
 * test/unit/config-schema.test.ts walks the schema and fails when the two differ. The
 * `KeysMatch` checks below fail to compile when a type and its key list differ, so the
 * chain schema ⇄ RAW_KEYS ⇄ TS types cannot drift.
 */

import type { RawCheckoutKey } from "../kinds/checkout-key.js";
import type { RawContext } from "../kinds/context.js";
import type { RawRestriction } from "../kinds/context-restriction.js";
import type { RawGroup } from "../kinds/group.js";
import type { RawOtelExporter } from "../kinds/otel-exporter.js";
import type { RawPipeline, RawPipelineConfig } from "../kinds/pipeline.js";
import type { RawSsoGroupMapping } from "../kinds/sso-group-mappings.js";
import type { RawFilterRule, RawTrigger, RawTriggerEvent } from "../kinds/trigger.js";
import type { RawVcsRepo } from "../kinds/vcs.js";
import type { RawWebhook } from "../kinds/webhook.js";

// The raw item types live with their kinds (src/kinds/*.ts, the kind's `config` part); the
// parents' raw types and the checks of every type against the schema are here.

export interface RawProject {
  /** Issue 18: create the project when it does not exist; delete it. */
  create?: boolean;
  delete?: boolean;
  settings?: Record<string, boolean | string[]>;
  env?: Record<string, string>;
  webhooks?: Record<string, RawWebhook>;
  pipelines?: Record<string, RawPipeline>;
  checkout_keys?: RawCheckoutKey[];
  /** Issue 19: template names, merged in order, then this project's own keys. */
  extends?: string[];
}

/**
 * Decision: an org slug is `provider/name` and a project slug `provider/org/name`, each
 * segment of letters, digits, `_`, `.` and `-`.
 */
export interface RawDocument {
  org: string;
  settings?: Record<string, boolean>;
  groups?: Record<string, RawGroup>;
  sso_group_mappings?: RawSsoGroupMapping[];
  contexts?: Record<string, RawContext>;
  otel_exporters?: RawOtelExporter[];
  projects?: Record<string, RawProject>;
  ignore?: string[];
  ignore_fields?: string[];
  keep_unlisted?: string[];
  moved?: RawMoved[];
  templates?: RawTemplates;
}

/** Issue 19: named fragments that projects and contexts `extends`. */
export interface RawTemplates {
  projects?: Record<string, RawProject>;
  contexts?: Record<string, RawContext>;
}

/** One `moved` entry (issue 19): a live item's old address and its new one. */
export interface RawMoved {
  from: string;
  to: string;
}

/**
 * Keys of every object in the schema, by a JSON-pointer-like name relative to `$defs`
 * (`pipeline/config` is `$defs.pipeline.properties.config`). Settings objects are listed
 * by src/model/desired.ts (ORG_SETTING_NAMES, PROJECT_SETTING_NAMES) and checked by the
 * same test.
 */
export const RAW_KEYS = {
  root: [
    "org",
    "settings",
    "groups",
    "sso_group_mappings",
    "contexts",
    "otel_exporters",
    "projects",
    "ignore",
    "ignore_fields",
    "keep_unlisted",
    "moved",
    "templates",
  ],
  "root/templates": ["projects", "contexts"],
  moved: ["from", "to"],
  context: ["id", "env", "restrictions", "extends"],
  restriction: ["project", "expression", "group"],
  group: ["description"],
  ssoGroupMapping: ["idp_group_name", "group"],
  project: [
    "create",
    "delete",
    "settings",
    "env",
    "webhooks",
    "pipelines",
    "checkout_keys",
    "extends",
  ],
  otelExporter: ["endpoint", "protocol", "insecure", "headers"],
  webhook: ["id", "url", "events", "scope", "should_verify_tls", "is_enabled", "signing_secret"],
  vcsRepo: ["provider", "repo_id", "repo_full_name"],
  pipeline: ["id", "description", "config", "checkout", "triggers"],
  "pipeline/config": ["type", "file_path", "file_type", "vcs", "hosted"],
  "pipeline/config/hosted": ["provider"],
  "pipeline/checkout": ["vcs"],
  refHolder: ["ref"],
  trigger: ["id", "is_disabled", "config", "checkout", "event", "parameters"],
  "trigger/event": ["type", "vcs", "webhook", "schedule", "filter"],
  "trigger/event/webhook": ["source", "secret"],
  "trigger/event/schedule": ["cron_expression", "attribution_actor"],
  "trigger/event/filter": ["preset", "rules"],
  "trigger/event/filter/rules[]": ["event_type", "rule", "event_ref"],
} as const;

/** Required keys per schema object, checked against the schema's `required` lists. */
export const RAW_REQUIRED = {
  root: ["org"],
  webhook: ["url", "events"],
  otelExporter: ["endpoint", "protocol"],
  ssoGroupMapping: ["idp_group_name", "group"],
  moved: ["from", "to"],
  vcsRepo: ["provider", "repo_id", "repo_full_name"],
  pipeline: ["config"],
  "pipeline/config": ["type", "file_path"],
  "pipeline/config/hosted": ["provider"],
  "pipeline/checkout": ["vcs"],
  trigger: ["event"],
  "trigger/event": ["type"],
  "trigger/event/schedule": ["cron_expression"],
  "trigger/event/filter/rules[]": ["rule"],
} as const satisfies Partial<Record<keyof typeof RAW_KEYS, readonly string[]>>;

// Compile-time: each TS type declares exactly the keys of its RAW_KEYS entry, and its
// required (non-optional) keys are exactly RAW_REQUIRED's.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
type KeysOf<K extends keyof typeof RAW_KEYS> = (typeof RAW_KEYS)[K][number];
type Req<K extends keyof typeof RAW_REQUIRED> = (typeof RAW_REQUIRED)[K][number];
type Assert<T extends true> = T;

export type RawTypeChecks = [
  Assert<Exact<keyof RawDocument, KeysOf<"root">>>,
  Assert<Exact<RequiredKeys<RawDocument>, Req<"root">>>,
  Assert<Exact<keyof RawContext, KeysOf<"context">>>,
  Assert<Exact<RequiredKeys<RawContext>, never>>,
  Assert<Exact<keyof RawRestriction, KeysOf<"restriction">>>,
  Assert<Exact<keyof RawProject, KeysOf<"project">>>,
  Assert<Exact<keyof RawWebhook, KeysOf<"webhook">>>,
  Assert<Exact<keyof RawOtelExporter, KeysOf<"otelExporter">>>,
  Assert<Exact<keyof RawGroup, KeysOf<"group">>>,
  Assert<Exact<keyof RawSsoGroupMapping, KeysOf<"ssoGroupMapping">>>,
  Assert<Exact<RequiredKeys<RawSsoGroupMapping>, Req<"ssoGroupMapping">>>,
  Assert<Exact<keyof RawMoved, KeysOf<"moved">>>,
  Assert<Exact<keyof RawTemplates, KeysOf<"root/templates">>>,
  Assert<Exact<RequiredKeys<RawMoved>, Req<"moved">>>,
  Assert<Exact<RequiredKeys<RawOtelExporter>, Req<"otelExporter">>>,
  Assert<Exact<RequiredKeys<RawWebhook>, Req<"webhook">>>,
  Assert<Exact<keyof RawVcsRepo, KeysOf<"vcsRepo">>>,
  Assert<Exact<RequiredKeys<RawVcsRepo>, Req<"vcsRepo">>>,
  Assert<Exact<keyof RawPipeline, KeysOf<"pipeline">>>,
  Assert<Exact<RequiredKeys<RawPipeline>, Req<"pipeline">>>,
  Assert<Exact<keyof RawPipelineConfig, KeysOf<"pipeline/config">>>,
  Assert<Exact<RequiredKeys<RawPipelineConfig>, Req<"pipeline/config">>>,
  Assert<Exact<keyof NonNullable<RawPipelineConfig["hosted"]>, KeysOf<"pipeline/config/hosted">>>,
  Assert<Exact<keyof NonNullable<RawPipeline["checkout"]>, KeysOf<"pipeline/checkout">>>,
  Assert<Exact<keyof NonNullable<RawTrigger["config"]>, KeysOf<"refHolder">>>,
  Assert<Exact<keyof RawTrigger, KeysOf<"trigger">>>,
  Assert<Exact<RequiredKeys<RawTrigger>, Req<"trigger">>>,
  Assert<Exact<keyof RawTriggerEvent, KeysOf<"trigger/event">>>,
  Assert<Exact<RequiredKeys<RawTriggerEvent>, Req<"trigger/event">>>,
  Assert<Exact<keyof NonNullable<RawTriggerEvent["webhook"]>, KeysOf<"trigger/event/webhook">>>,
  Assert<Exact<keyof NonNullable<RawTriggerEvent["schedule"]>, KeysOf<"trigger/event/schedule">>>,
  Assert<
    Exact<RequiredKeys<NonNullable<RawTriggerEvent["schedule"]>>, Req<"trigger/event/schedule">>
  >,
  Assert<Exact<keyof NonNullable<RawTriggerEvent["filter"]>, KeysOf<"trigger/event/filter">>>,
  Assert<Exact<keyof RawFilterRule, KeysOf<"trigger/event/filter/rules[]">>>,
  Assert<Exact<RequiredKeys<RawFilterRule>, Req<"trigger/event/filter/rules[]">>>,
];
