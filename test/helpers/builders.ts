/**
 * Small builders of DesiredConfig and LiveState fixtures for the planner's unit tests.
 * Ids are derived from names so tests can name them (`ctx:deploy`, `wh:slack`).
 */

import type { SourceLocation } from "../../src/core/errors.js";
import { Secret } from "../../src/core/secret.js";
import type { LiveWebhook } from "../../src/kinds/webhook.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredEnvVar,
  DesiredOrg,
  DesiredPipeline,
  DesiredProject,
  DesiredRestriction,
  DesiredTrigger,
  DesiredWebhook,
  VcsRepo,
} from "../../src/model/desired.js";
import type {
  LiveContext,
  LiveEnvVar,
  LiveOrg,
  LivePipeline,
  LiveProject,
  LiveRestriction,
  LiveState,
  LiveTrigger,
  NotVisible,
} from "../../src/model/live.js";

export const source: SourceLocation = { file: "waybill.yaml", line: 1, col: 1 };
export const ORG = "gh/acme";
export const ORG_ID = "org-1";
export const PROJECT = "gh/acme/api";
export const PROJECT_ID = "prj-api";
export const REPO: VcsRepo = {
  provider: "github_app",
  repo_id: "123",
  repo_full_name: "acme/api",
};
export const OTHER_REPO: VcsRepo = {
  provider: "github_app",
  repo_id: "456",
  repo_full_name: "acme/web",
};

// ---- desired ---------------------------------------------------------------------------

export const secret = (value: string, origin = "env:TEST"): Secret => new Secret(value, origin);

export const dEnv = (name: string, value: string | Secret): DesiredEnvVar => ({
  name,
  value: typeof value === "string" ? secret(value) : value,
  source,
});

const envMap = (env: Record<string, string | Secret> | undefined) =>
  env === undefined
    ? undefined
    : new Map(Object.entries(env).map(([k, v]) => [k, dEnv(k, v)] as const));

export const dContext = (
  name: string,
  opts: {
    id?: string;
    env?: Record<string, string | Secret>;
    restrictions?: readonly DesiredRestriction[];
  } = {},
): DesiredContext => {
  const env = envMap(opts.env);
  return {
    name,
    source,
    ...(opts.id === undefined ? {} : { id: opts.id }),
    ...(env === undefined ? {} : { env }),
    ...(opts.restrictions === undefined ? {} : { restrictions: opts.restrictions }),
  };
};

export const rProject = (project: string): DesiredRestriction => ({
  type: "project",
  project,
  source,
});
export const rExpr = (expression: string): DesiredRestriction => ({
  type: "expression",
  expression,
  source,
});
export const rGroup = (group: string): DesiredRestriction => ({ type: "group", group, source });

export const dWebhook = (
  name: string,
  opts: Partial<Omit<DesiredWebhook, "name" | "source">> = {},
): DesiredWebhook => ({
  name,
  url: "https://hooks.example.com/a",
  events: ["workflow-completed"],
  source,
  ...opts,
});

export const dTrigger = (
  key: string,
  opts: Partial<Omit<DesiredTrigger, "key" | "source">> = {},
): DesiredTrigger => ({
  key,
  event: { type: "schedule", schedule: { cron_expression: "0 2 * * *" } },
  source,
  ...opts,
});

export const dVcsTrigger = (
  key: string,
  filter: DesiredTrigger["event"]["filter"] = { preset: "all-pushes" },
  repo: VcsRepo = REPO,
  opts: Partial<Omit<DesiredTrigger, "key" | "source" | "event">> = {},
): DesiredTrigger => ({
  key,
  event: { type: "vcs", vcs: repo, ...(filter === undefined ? {} : { filter }) },
  source,
  ...opts,
});

export const dPipeline = (
  name: string,
  opts: Partial<Omit<DesiredPipeline, "name" | "source" | "triggers">> & {
    triggers?: readonly DesiredTrigger[];
  } = {},
): DesiredPipeline => {
  const { triggers, ...rest } = opts;
  return {
    name,
    config: { type: "vcs", file_path: ".service/config.yml", vcs: REPO },
    source,
    ...rest,
    ...(triggers === undefined ? {} : { triggers: new Map(triggers.map((t) => [t.key, t])) }),
  };
};

export const dProject = (
  slug: string,
  opts: {
    settings?: Record<string, boolean | readonly string[]>;
    env?: Record<string, string | Secret>;
    webhooks?: readonly DesiredWebhook[];
    pipelines?: readonly DesiredPipeline[];
  } = {},
): DesiredProject => {
  const env = envMap(opts.env);
  return {
    slug,
    source,
    ...(opts.settings === undefined ? {} : { settings: { ...opts.settings, source } }),
    ...(env === undefined ? {} : { env }),
    ...(opts.webhooks === undefined
      ? {}
      : { webhooks: new Map(opts.webhooks.map((w) => [w.name, w])) }),
    ...(opts.pipelines === undefined
      ? {}
      : { pipelines: new Map(opts.pipelines.map((p) => [p.name, p])) }),
  };
};

export const dOrg = (
  opts: {
    slug?: string;
    settings?: Record<string, boolean>;
    contexts?: readonly DesiredContext[];
    projects?: readonly DesiredProject[];
    ignore?: readonly string[];
  } = {},
): DesiredOrg => ({
  slug: opts.slug ?? ORG,
  source,
  ...(opts.settings === undefined ? {} : { settings: { ...opts.settings, source } }),
  ...(opts.contexts === undefined
    ? {}
    : { contexts: new Map(opts.contexts.map((c) => [c.name, c])) }),
  projects: new Map((opts.projects ?? []).map((p) => [p.slug, p])),
  ignore: opts.ignore ?? [],
});

export const desired = (...orgs: DesiredOrg[]): DesiredConfig => ({
  orgs,
  files: ["waybill.yaml"],
});

// ---- live ------------------------------------------------------------------------------

export const lEnv = (name: string, value: string): LiveEnvVar => ({
  name,
  truncated_value: value.slice(-4),
});

export const lContext = (
  name: string,
  opts: { id?: string; env?: Record<string, string>; restrictions?: LiveRestriction[] } = {},
): LiveContext => ({
  id: opts.id ?? `ctx:${name}`,
  name,
  env: Object.entries(opts.env ?? {}).map(([k, v]) => lEnv(k, v)),
  restrictions: opts.restrictions ?? [],
});

export const lRestriction = (
  type: "project" | "expression" | "group",
  keyValue: string,
  opts: { id?: string; pattern?: string } = {},
): LiveRestriction => ({
  id: opts.id ?? `r:${type}:${keyValue}`,
  restriction_type: type,
  match_pattern:
    opts.pattern ??
    (type === "project"
      ? keyValue === PROJECT
        ? PROJECT_ID
        : `id-of:${keyValue}`
      : type === "group" && keyValue === "all-members"
        ? ORG_ID
        : keyValue),
  key_value: keyValue,
});

export const lWebhook = (name: string, opts: Partial<LiveWebhook> = {}): LiveWebhook => ({
  id: `wh:${name}`,
  name,
  scope: "project",
  url: "https://hooks.example.com/a",
  events: ["workflow-completed"],
  should_verify_tls: true,
  has_signing_secret: false,
  is_enabled: true,
  ...opts,
});

export const lPipeline = (name: string, opts: Partial<LivePipeline> = {}): LivePipeline => ({
  id: `pl:${name}`,
  name,
  config: { type: "vcs", file_path: ".service/config.yml", vcs: REPO },
  synthetic: false,
  ...opts,
});

export const lTrigger = (
  id: string,
  pipelineId: string,
  event: LiveTrigger["event"],
  opts: Partial<LiveTrigger> = {},
): LiveTrigger => ({
  id,
  pipeline_id: pipelineId,
  is_disabled: false,
  event,
  synthetic: false,
  ...opts,
});

export const lSchedule = (
  name: string,
  pipelineId: string,
  opts: Partial<LiveTrigger> = {},
): LiveTrigger =>
  lTrigger(
    `tr:${name}`,
    pipelineId,
    {
      type: "schedule",
      schedule: { name, cron_expression: "0 2 * * *", attribution_actor: "system" },
    },
    opts,
  );

export const lProject = (
  slug: string,
  opts: Partial<Omit<LiveProject, "status" | "slug">> = {},
): LiveProject => ({
  status: "found",
  id: slug === PROJECT ? PROJECT_ID : `prj:${slug}`,
  slug,
  ...opts,
});

export const notVisible = (
  reason = "GET /projects?filter[slug] returned no project",
): NotVisible => ({
  status: "not_visible",
  reason,
});

export const lOrg = (
  opts: {
    slug?: string;
    id?: string;
    settings?: Record<string, boolean>;
    contexts?: readonly LiveContext[];
    projects?: readonly (LiveProject | [string, NotVisible])[];
    projectIds?: Record<string, string>;
  } = {},
): LiveOrg => ({
  status: "found",
  id: opts.id ?? ORG_ID,
  slug: opts.slug ?? ORG,
  ...(opts.settings === undefined ? {} : { settings: opts.settings }),
  ...(opts.contexts === undefined ? {} : { contexts: opts.contexts }),
  projects: new Map<string, LiveProject | NotVisible>(
    (opts.projects ?? []).map((p): [string, LiveProject | NotVisible] =>
      Array.isArray(p) ? p : [p.slug, p],
    ),
  ),
  ...(opts.projectIds === undefined
    ? {}
    : { projectIds: new Map(Object.entries(opts.projectIds)) }),
});

export const live = (...orgs: LiveOrg[]): LiveState => ({ orgs });
