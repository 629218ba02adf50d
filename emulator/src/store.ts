/**
 * The emulator's state and the rules shared by every route: loading a seed, dumping it back,
 * lookups, ids, the synthetic OAuth pipeline and trigger, and the semantic checks a create and
 * a seed row both obey. Pure: no I/O; time comes in as an argument.
 */

import { badRequest, EmulatorHttpError, SeedError } from "./errors.js";
import { hashUuid, isUuid } from "./ids.js";
import { keyPairOf, keySeed } from "./keys.js";
import {
  ORG_SETTINGS_KEYS,
  PROJECT_BOOL_SETTINGS_KEYS,
  seedSchema,
  type TRIGGER_EVENT_TYPES,
} from "./schemas.js";
import type { Seed, SeedJson, SeedOrg, SeedProject } from "./seed.js";
import { check, isPlainObject } from "./validate.js";
import type { VcsRepoWire } from "./wire.js";

/** Decision: seeded rows without a timestamp were created at this fixed instant. */
export const SEED_TIME = "2025-01-01T00:00:00.000Z";

export type RestrictionType = "project" | "expression" | "group";
export type TriggerType = (typeof TRIGGER_EVENT_TYPES)[number];

export interface TokenRow {
  readonly token: string;
  readonly readOnly: boolean;
  /** A user's token (spec: a user checkout key "needs a user token"). */
  readonly user: boolean;
  /** May write contexts (seed `write_contexts`, default true). */
  readonly writeContexts: boolean;
}
export interface GroupRow {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}
export interface OrgRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  settings: Record<string, boolean>;
  readonly defaultContextRestriction: boolean;
  readonly groups: GroupRow[];
  /** The org's SSO group mappings (a PUT replaces the whole list). */
  ssoGroupMappings: { readonly idp_group_name: string; readonly group_id: string }[];
}
export interface EnvRow {
  readonly name: string;
  value: string;
  readonly created_at: string;
  updated_at: string;
}
export interface RestrictionRow {
  readonly id: string;
  readonly restriction_type: RestrictionType;
  readonly match_pattern: string;
  readonly created_at?: string;
}
export interface ContextRow {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly created_at: string;
  readonly env: EnvRow[];
  readonly restrictions: RestrictionRow[];
}
export interface ProjectSettings {
  [key: string]: boolean | string[];
}
export interface ProjectRow {
  readonly id: string;
  readonly orgId: string;
  readonly slug: string;
  readonly name: string;
  readonly oauth: boolean;
  readonly isFollowed: boolean;
  readonly lastActiveAt?: string;
  readonly repo: VcsRepoWire;
  settings: ProjectSettings;
  readonly env: EnvRow[];
}
export interface WebhookRow {
  readonly id: string;
  readonly projectId: string;
  name: string;
  readonly scope: string;
  url: string;
  events: string[];
  should_verify_tls: boolean;
  is_enabled: boolean;
  signing_secret?: string;
  readonly auto_disabled_at: string | null;
  readonly created_at: string;
}
export interface PipelineConfig {
  type: string;
  file_path: string;
  file_type?: string;
  vcs?: VcsRepoWire;
  hosted?: { provider: string };
}
export interface PipelineRow {
  readonly id: string;
  readonly projectId: string;
  name: string;
  description?: string;
  config: PipelineConfig;
  readonly checkout?: { vcs?: VcsRepoWire };
  readonly created_at: string;
}
/** A checkout key (spec: api-v2-v1.md "Checkout key"); the private half stays here. */
export interface CheckoutKeyRow {
  readonly projectId: string;
  /** As answered: `deploy-key` or `<vcs>-user-key`. */
  readonly type: string;
  readonly preferred: boolean;
  /** The private half's seed, hex (only `GET /__admin/state` shows it). */
  readonly privateSeed: string;
  readonly publicKey: string;
  readonly md5: string;
  readonly sha256: string;
  readonly created_at: string;
}
/** An OTLP exporter (spec: api-v2-v1.md "OTLP exporter"). */
export interface OtelExporterRow {
  readonly id: string;
  readonly orgId: string;
  readonly endpoint: string;
  readonly protocol: string;
  readonly insecure: boolean;
  readonly headers: Readonly<Record<string, string>>;
}
/** A legacy V2 schedule (spec: api-v2-v1.md "Schedule"); seeded, listed, never written. */
export interface ScheduleRow {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly description: string;
  readonly timetable: Record<string, unknown>;
  readonly parameters: Record<string, unknown>;
  readonly actor: Record<string, unknown>;
  readonly created_at: string;
}
export interface TriggerEvent {
  readonly type: TriggerType;
  vcs?: VcsRepoWire;
  webhook?: { name?: string; source?: string };
  schedule?: { name?: string; cron_expression?: string; attribution_actor?: string };
  filter?: SeedJson;
}
export interface TriggerRow {
  readonly id: string;
  readonly pipelineId: string;
  is_disabled: boolean;
  config?: { ref?: string };
  checkout?: { ref?: string };
  event: TriggerEvent;
  parameters?: Record<string, unknown>;
  /** `event.webhook.secret`: returned once, in the create response (spec: Trigger). */
  webhookSecret?: string;
  readonly created_at: string;
}

export interface State {
  readonly tokens: TokenRow[];
  readonly orgs: OrgRow[];
  readonly projects: ProjectRow[];
  readonly contexts: ContextRow[];
  readonly webhooks: WebhookRow[];
  readonly pipelines: PipelineRow[];
  readonly triggers: TriggerRow[];
  readonly checkoutKeys: CheckoutKeyRow[];
  readonly otelExporters: OtelExporterRow[];
  readonly schedules: ScheduleRow[];
  /** Counter behind run-time ids, so they are the same on every run. */
  seq: number;
  /**
   * Ids the seed holds. A run-time id skips them: a seed saved from a running emulator
   * (`GET /__admin/state`, then `POST /__admin/reset`) holds ids made by the same counter,
   * and handing one out again would give two items one id.
   */
  readonly seeded: ReadonlySet<string>;
  /** Bumped before every write request (`touch`); read-side indexes are rebuilt after one. */
  version: number;
  /** Read-side indexes of the rows, valid for `memo.version` only (see `rowsOf`). */
  memo: Memo;
}

/** Rows grouped by their parent's id, in the rows' order (what a `filter` would return). */
interface Memo {
  readonly version: number;
  webhooksByProject?: ReadonlyMap<string, readonly WebhookRow[]>;
  pipelinesByProject?: ReadonlyMap<string, readonly PipelineRow[]>;
  triggersByPipeline?: ReadonlyMap<string, readonly TriggerRow[]>;
  triggersByProject?: ReadonlyMap<string, readonly TriggerRow[]>;
  /** Filtered and sorted project listings by their query (every page of one listing). */
  projectListings?: Map<string, readonly ProjectRow[]>;
}

/**
 * Mark the state as changed: called before every write request is handled, so a list read
 * never sees an index built before a create or delete. Reads (GET) never change the state.
 */
export const touch = (st: State): void => {
  st.version += 1;
};

const groupBy = <T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
};

const memoOf = (st: State): Memo => {
  if (st.memo.version !== st.version) st.memo = { version: st.version };
  return st.memo;
};

const NONE: readonly never[] = [];

/**
 * The stored webhooks, pipelines or triggers of one parent, in creation order, from an index
 * built once per state version instead of a scan of the whole collection on every list read.
 */
export const rowsOf = {
  webhooks(st: State, projectId: string): readonly WebhookRow[] {
    const m = memoOf(st);
    m.webhooksByProject ??= groupBy(st.webhooks, (w) => w.projectId);
    return m.webhooksByProject.get(projectId) ?? NONE;
  },
  pipelines(st: State, projectId: string): readonly PipelineRow[] {
    const m = memoOf(st);
    m.pipelinesByProject ??= groupBy(st.pipelines, (p) => p.projectId);
    return m.pipelinesByProject.get(projectId) ?? NONE;
  },
  triggers(st: State, pipelineId: string): readonly TriggerRow[] {
    const m = memoOf(st);
    m.triggersByPipeline ??= groupBy(st.triggers, (t) => t.pipelineId);
    return m.triggersByPipeline.get(pipelineId) ?? NONE;
  },
  /** A project listing, filtered and sorted once per state version for all its pages. */
  projectListing(
    st: State,
    query: string,
    build: () => readonly ProjectRow[],
  ): readonly ProjectRow[] {
    const m = memoOf(st);
    m.projectListings ??= new Map();
    let rows = m.projectListings.get(query);
    if (!rows) {
      // Bounded: many different `filter[name]` searches must not grow it without end.
      if (m.projectListings.size >= 64) m.projectListings.clear();
      rows = build();
      m.projectListings.set(query, rows);
    }
    return rows;
  },
  /** The stored triggers of all of a project's stored pipelines, in creation order. */
  projectTriggers(st: State, projectId: string): readonly TriggerRow[] {
    const m = memoOf(st);
    if (!m.triggersByProject) {
      const projectOf = new Map(st.pipelines.map((p) => [p.id, p.projectId]));
      const groups = new Map<string, TriggerRow[]>();
      for (const t of st.triggers) {
        const project = projectOf.get(t.pipelineId);
        if (project === undefined) continue;
        const list = groups.get(project);
        if (list) list.push(t);
        else groups.set(project, [t]);
      }
      m.triggersByProject = groups;
    }
    return m.triggersByProject.get(projectId) ?? NONE;
  },
};

/** A fresh deterministic id for a row created at run time. */
export const nextId = (state: State, kind: string): string => {
  for (;;) {
    state.seq += 1;
    const id = hashUuid("created", kind, String(state.seq));
    if (!state.seeded.has(id)) return id;
  }
};

/** Decision: org settings default to all false. */
const emptyOrgSettings = (): Record<string, boolean> =>
  Object.fromEntries(ORG_SETTINGS_KEYS.map((k) => [k, false]));

/** Decision: project settings default to all false and no branch overrides. */
export const emptyProjectSettings = (): ProjectSettings => ({
  ...Object.fromEntries(PROJECT_BOOL_SETTINGS_KEYS.map((k) => [k, false])),
  pr_only_branch_overrides: [],
});

/** Decision: a project without `repo` gets a GitHub repo named after its slug. */
export const defaultRepo = (slug: string, id: string): VcsRepoWire => {
  const parts = slug.split("/");
  return {
    provider: "github",
    repo_id: String(Number.parseInt(id.replace(/-/g, "").slice(0, 8), 16)),
    repo_full_name: parts.slice(-2).join("/"),
  };
};

// ---------------------------------------------------------------------------------------
// Semantic checks shared by creates and seeds
// ---------------------------------------------------------------------------------------

/** spec: Webhook: `url` (HTTPS only). */
export const checkWebhookUrl = (url: string, pointer: string): void => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest("invalid_url", `${pointer}: not a URL`, pointer);
  }
  if (parsed.protocol !== "https:") {
    throw badRequest("invalid_url", `${pointer}: only https URLs are accepted`, pointer);
  }
};

/** Decision: `events` must be non-empty and hold no duplicates. */
export const checkWebhookEvents = (events: readonly string[], pointer: string): void => {
  if (events.length === 0)
    throw badRequest("invalid_request", `${pointer}: must not be empty`, pointer);
  if (new Set(events).size !== events.length)
    throw badRequest("invalid_request", `${pointer}: holds a duplicate event`, pointer);
};

/** Decision: a variable name is a shell identifier (letters, digits, `_`, not a digit first). */
export const checkEnvName = (name: string, pointer: string): void => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw badRequest("invalid_request", `${pointer}: not a valid variable name`, pointer);
};

/**
 * Trigger rules. spec: Triggers: `parameters` only for scheduled triggers, otherwise 400.
 * Decision: a `vcs` trigger needs `event.vcs`; a `schedule` trigger needs
 * `event.schedule.cron_expression`; `event.webhook` / `event.schedule` / `event.vcs` are only
 * accepted on a trigger of that type.
 */
export const checkTriggerEvent = (
  event: Record<string, unknown>,
  parameters: unknown,
  base: string,
): void => {
  const type = event.type as TriggerType;
  if (parameters !== undefined && type !== "schedule") {
    throw badRequest(
      "invalid_request",
      `${base}/parameters: parameters are accepted only on schedule triggers`,
      `${base}/parameters`,
    );
  }
  for (const sub of ["vcs", "webhook", "schedule"] as const) {
    if (event[sub] !== undefined && sub !== type) {
      throw badRequest(
        "invalid_request",
        `${base}/event/${sub}: not allowed on a ${type} trigger`,
        `${base}/event/${sub}`,
      );
    }
  }
  if (type === "vcs" && event.vcs === undefined) {
    throw badRequest(
      "invalid_request",
      `${base}/event/vcs: is required for a vcs trigger`,
      `${base}/event/vcs`,
    );
  }
  if (type === "schedule") {
    const sched = event.schedule;
    const cron = isPlainObject(sched) ? sched.cron_expression : undefined;
    if (typeof cron !== "string" || cron.trim().split(/\s+/).length !== 5) {
      throw badRequest(
        "invalid_request",
        `${base}/event/schedule/cron_expression: a five-field cron expression is required`,
        `${base}/event/schedule/cron_expression`,
      );
    }
  }
};

/** Build a stored trigger event from validated attributes (the secret is kept apart). */
export const toTriggerEvent = (event: Record<string, unknown>): TriggerEvent => {
  const out: TriggerEvent = { type: event.type as TriggerType };
  if (event.vcs !== undefined) out.vcs = { ...(event.vcs as VcsRepoWire) };
  if (isPlainObject(event.webhook)) {
    const { secret: _secret, ...rest } = event.webhook;
    out.webhook = { ...(rest as { name?: string; source?: string }) };
  }
  if (isPlainObject(event.schedule))
    out.schedule = { ...(event.schedule as TriggerEvent["schedule"]) };
  if (isPlainObject(event.filter)) out.filter = structuredClone(event.filter);
  return out;
};

// ---------------------------------------------------------------------------------------
// Synthetic OAuth pipeline and trigger (spec: Pipelines, Triggers)
// ---------------------------------------------------------------------------------------

/**
 * Derived from the project, never stored. Its id is a hash of the project id (never equal to
 * it). Decision: named `OAuth`, reading `.service/config.yml` from the project's repo, with
 * one vcs trigger on all pushes.
 */
export const syntheticPipeline = (p: ProjectRow): PipelineRow => ({
  id: hashUuid("oauth-pipeline", p.id),
  projectId: p.id,
  name: "OAuth",
  description: "Pipeline of an OAuth-connected project (derived, not stored)",
  config: { type: "vcs", file_path: ".service/config.yml", vcs: { ...p.repo } },
  checkout: { vcs: { ...p.repo } },
  created_at: SEED_TIME,
});

export const syntheticTrigger = (p: ProjectRow): TriggerRow => ({
  id: hashUuid("oauth-trigger", p.id),
  pipelineId: hashUuid("oauth-pipeline", p.id),
  is_disabled: false,
  event: { type: "vcs", vcs: { ...p.repo }, filter: { preset: "all-pushes" } },
  created_at: SEED_TIME,
});

// ---------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------

export const findOrg = (st: State, id: string): OrgRow | undefined =>
  st.orgs.find((o) => o.id === id);
export const findProject = (st: State, id: string): ProjectRow | undefined =>
  st.projects.find((p) => p.id === id);
export const findContext = (st: State, id: string): ContextRow | undefined =>
  st.contexts.find((c) => c.id === id);
export const findWebhook = (st: State, id: string): WebhookRow | undefined =>
  st.webhooks.find((w) => w.id === id);
export const findPipeline = (st: State, id: string): PipelineRow | undefined =>
  st.pipelines.find((p) => p.id === id);
export const findTrigger = (st: State, id: string): TriggerRow | undefined =>
  st.triggers.find((t) => t.id === id);

/** Stored pipelines of a project, with the synthetic one first for an OAuth project. */
export const pipelinesOf = (st: State, project: ProjectRow): readonly PipelineRow[] => {
  const stored = rowsOf.pipelines(st, project.id);
  return project.oauth ? [syntheticPipeline(project), ...stored] : stored;
};

/** Decision: "all members" is shown as a group named `All members`. */
export const groupName = (org: OrgRow | undefined, groupId: string): string | undefined =>
  org && groupId === org.id ? "All members" : org?.groups.find((g) => g.id === groupId)?.name;

// ---------------------------------------------------------------------------------------
// Seed → state
// ---------------------------------------------------------------------------------------

const seedFail = (pointer: string, message: string): never => {
  throw new SeedError(`seed${pointer}: ${message}`);
};

/** Re-raise an HTTP-style validation error as a seed error at `pointer`. */
const asSeed = (fn: () => void): void => {
  try {
    fn();
  } catch (err) {
    if (err instanceof EmulatorHttpError) throw new SeedError(`seed${err.detail ?? err.title}`);
    throw err;
  }
};

const fullSlug = (org: SeedOrg, slug: string): string =>
  slug.includes("/") ? slug : `${org.slug}/${slug}`;

/** Load a seed; throws SeedError naming the JSON pointer of the first problem. */
export const createState = (seed: Seed): State => {
  const issue = check(seedSchema, seed);
  if (issue) seedFail(issue.pointer, issue.message);
  const ids = new Set<string>();
  const st: State = {
    tokens: (seed.tokens ?? []).map((t) => ({
      token: t.token,
      readOnly: t.read_only === true,
      user: t.user !== false,
      writeContexts: t.write_contexts !== false,
    })),
    orgs: [],
    projects: [],
    contexts: [],
    webhooks: [],
    pipelines: [],
    triggers: [],
    checkoutKeys: [],
    otelExporters: [],
    schedules: [],
    seq: 0,
    seeded: ids,
    version: 0,
    memo: { version: 0 },
  };
  const claim = (id: string, pointer: string): string => {
    if (!isUuid(id)) seedFail(pointer, `id ${JSON.stringify(id)} is not a UUID`);
    if (ids.has(id)) seedFail(pointer, `duplicate id ${id}`);
    ids.add(id);
    return id;
  };
  const slugs = new Set<string>();

  // Pass 1: orgs, groups, projects (restrictions refer to them by slug or name).
  (seed.orgs ?? []).forEach((so, oi) => {
    const op = `/orgs/${oi}`;
    if (slugs.has(so.slug)) seedFail(`${op}/slug`, `duplicate org slug ${so.slug}`);
    slugs.add(so.slug);
    const org: OrgRow = {
      id: claim(so.id ?? standaloneOrgId(so.slug) ?? hashUuid("org", so.slug), `${op}/id`),
      slug: so.slug,
      name: so.name ?? so.slug.split("/").pop() ?? so.slug,
      settings: { ...emptyOrgSettings(), ...so.settings },
      defaultContextRestriction: so.default_context_restriction !== false,
      groups: (so.groups ?? []).map((g, gi) => ({
        id: claim(g.id ?? hashUuid("group", so.slug, g.name), `${op}/groups/${gi}/id`),
        name: g.name,
        ...(g.description !== undefined ? { description: g.description } : {}),
      })),
      ssoGroupMappings: [],
    };
    for (const [mi, m] of (so.sso_group_mappings ?? []).entries()) {
      const group = org.groups.find((g) => g.id === m.group || g.name === m.group);
      if (group === undefined) {
        seedFail(`${op}/sso_group_mappings/${mi}/group`, `no group ${m.group} in this org`);
        continue;
      }
      org.ssoGroupMappings.push({ idp_group_name: m.idp_group_name, group_id: group.id });
    }
    st.orgs.push(org);
    (so.projects ?? []).forEach((sp, pi) => {
      loadProject(st, org, so, sp, `${op}/projects/${pi}`, claim, slugs);
    });
    const exporters = so.otel_exporters ?? [];
    if (exporters.length > OTEL_EXPORTERS_PER_ORG)
      seedFail(`${op}/otel_exporters`, `more than ${OTEL_EXPORTERS_PER_ORG} exporters`);
    exporters.forEach((se, ei) => {
      const ep = `${op}/otel_exporters/${ei}`;
      asSeed(() => checkOtelEndpoint(se.endpoint, `${ep}/endpoint`));
      st.otelExporters.push({
        id: claim(se.id ?? hashUuid("otel", org.id, String(ei)), `${ep}/id`),
        orgId: org.id,
        endpoint: se.endpoint,
        protocol: se.protocol,
        insecure: se.insecure === true,
        headers: { ...se.headers },
      });
    });
  });

  // Pass 2: contexts, whose restrictions may name a project by slug or a group by name.
  (seed.orgs ?? []).forEach((so, oi) => {
    const org = st.orgs[oi]!;
    (so.contexts ?? []).forEach((sc, ci) => {
      const cp = `/orgs/${oi}/contexts/${ci}`;
      const ctxId = claim(sc.id ?? hashUuid("context", org.id, sc.name, String(ci)), `${cp}/id`);
      const env = Object.entries(sc.env ?? {}).map(([name, value]) => {
        asSeed(() => checkEnvName(name, `${cp}/env/${name}`));
        return {
          name,
          value,
          created_at: sc.created_at ?? SEED_TIME,
          updated_at: sc.created_at ?? SEED_TIME,
        };
      });
      const restrictions: RestrictionRow[] = [];
      (sc.restrictions ?? []).forEach((sr, ri) => {
        const rp = `${cp}/restrictions/${ri}`;
        let pattern = sr.match_pattern;
        if (sr.restriction_type === "project" && !isUuid(pattern)) {
          const slug = fullSlug(so, pattern);
          const proj = st.projects.find((p) => p.slug === slug);
          if (!proj) seedFail(`${rp}/match_pattern`, `no project ${slug} in the seed`);
          pattern = proj!.id;
        }
        if (sr.restriction_type === "group" && !isUuid(pattern)) {
          const group = org.groups.find((g) => g.name === pattern);
          if (!group && pattern !== org.slug)
            seedFail(`${rp}/match_pattern`, `no group ${pattern} in org ${org.slug}`);
          pattern = group ? group.id : org.id;
        }
        const id = sr.id ?? restrictionId(sr.restriction_type, pattern);
        if (restrictions.some((r) => r.id === id))
          seedFail(`${rp}`, `duplicate restriction ${id} in context`);
        restrictions.push({
          id,
          restriction_type: sr.restriction_type,
          match_pattern: pattern,
          ...(sr.created_at !== undefined ? { created_at: sr.created_at } : {}),
        });
      });
      st.contexts.push({
        id: ctxId,
        orgId: org.id,
        name: sc.name,
        created_at: sc.created_at ?? SEED_TIME,
        env,
        restrictions,
      });
    });
  });
  return st;
};

/**
 * spec: Context restriction: "Restriction ids are unique only within a context"; DELETE: "for
 * a group restriction that is the group id". Decision: a project or expression restriction's
 * id is a hash of its type and pattern, so the same restriction in two contexts has the same
 * id (as the spec allows), and a client that assumes global uniqueness finds out in tests.
 */
export const restrictionId = (type: RestrictionType, pattern: string): string =>
  type === "group" ? pattern : hashUuid("restriction", type, pattern);

const loadProject = (
  st: State,
  org: OrgRow,
  so: SeedOrg,
  sp: SeedProject,
  pp: string,
  claim: (id: string, pointer: string) => string,
  slugs: Set<string>,
): void => {
  const slug = fullSlug(so, sp.slug);
  if (slugs.has(slug)) seedFail(`${pp}/slug`, `duplicate slug ${slug}`);
  slugs.add(slug);
  const id = claim(sp.id ?? hashUuid("project", slug), `${pp}/id`);
  const settings: ProjectSettings = { ...emptyProjectSettings() };
  for (const [k, v] of Object.entries(sp.settings ?? {}))
    settings[k] = Array.isArray(v) ? [...v] : (v as boolean);
  const project: ProjectRow = {
    id,
    orgId: org.id,
    slug,
    name: sp.name ?? slug.split("/").pop() ?? slug,
    // spec: api-v3.md Pipelines: GET /pipelines "includes the synthetic OAuth pipeline".
    // Decision: every project has it unless its seed says `oauth: false`, so every test
    // meets it as clients meet it on the service.
    oauth: sp.oauth !== false,
    isFollowed: sp.is_followed !== false,
    ...(sp.last_active_at !== undefined ? { lastActiveAt: sp.last_active_at } : {}),
    repo: sp.repo ? { ...sp.repo } : defaultRepo(slug, id),
    settings,
    env: Object.entries(sp.env ?? {}).map(([name, value]) => {
      asSeed(() => checkEnvName(name, `${pp}/env/${name}`));
      return { name, value, created_at: SEED_TIME, updated_at: SEED_TIME };
    }),
  };
  st.projects.push(project);

  (sp.checkout_keys ?? []).forEach((sk, ki) => {
    const seedHex = sk.private_seed ?? keySeed("seed", id, String(ki)).toString("hex");
    if (!/^[0-9a-f]{64}$/.test(seedHex))
      seedFail(`${pp}/checkout_keys/${ki}/private_seed`, "must be 64 hex digits");
    st.checkoutKeys.push(
      checkoutKeyRow(
        project,
        sk.type,
        sk.preferred ?? ki === 0,
        seedHex,
        sk.created_at ?? SEED_TIME,
      ),
    );
  });
  (sp.schedules ?? []).forEach((ss, si) => {
    st.schedules.push({
      id: claim(ss.id ?? hashUuid("schedule", id, String(si)), `${pp}/schedules/${si}/id`),
      projectId: id,
      name: ss.name,
      description: ss.description ?? "",
      timetable: { ...(ss.timetable ?? { per_hour: 1, hours_of_day: [0], days_of_week: ["MON"] }) },
      parameters: { ...(ss.parameters ?? {}) },
      actor: { ...(ss.actor ?? { login: "system", name: "system" }) },
      created_at: SEED_TIME,
    });
  });

  const hooks = sp.webhooks ?? [];
  if (hooks.length > WEBHOOKS_PER_PROJECT)
    seedFail(`${pp}/webhooks`, `more than ${WEBHOOKS_PER_PROJECT} webhooks`);
  hooks.forEach((sw, wi) => {
    const wp = `${pp}/webhooks/${wi}`;
    asSeed(() => {
      checkWebhookUrl(sw.url, `${wp}/url`);
      checkWebhookEvents(sw.events, `${wp}/events`);
    });
    st.webhooks.push({
      id: claim(sw.id ?? hashUuid("webhook", id, sw.name, String(wi)), `${wp}/id`),
      projectId: id,
      name: sw.name,
      scope: sw.scope ?? "project",
      url: sw.url,
      events: [...sw.events],
      should_verify_tls: sw.should_verify_tls !== false,
      is_enabled: sw.is_enabled !== false,
      ...(sw.signing_secret ? { signing_secret: sw.signing_secret } : {}),
      auto_disabled_at: sw.auto_disabled_at ?? null,
      created_at: SEED_TIME,
    });
  });

  (sp.pipelines ?? []).forEach((spl, li) => {
    const lp = `${pp}/pipelines/${li}`;
    const pipelineId = claim(spl.id ?? hashUuid("pipeline", id, spl.name, String(li)), `${lp}/id`);
    st.pipelines.push({
      id: pipelineId,
      projectId: id,
      name: spl.name,
      ...(spl.description !== undefined ? { description: spl.description } : {}),
      config: structuredClone(spl.config) as unknown as PipelineConfig,
      ...(spl.checkout !== undefined
        ? { checkout: structuredClone(spl.checkout) as PipelineRow["checkout"] }
        : {}),
      created_at: SEED_TIME,
    });
    (spl.triggers ?? []).forEach((stg, ti) => {
      const tp = `${lp}/triggers/${ti}`;
      const event = stg.event as Record<string, unknown>;
      asSeed(() => checkTriggerEvent(event, stg.parameters, tp));
      const secret = isPlainObject(event.webhook) ? event.webhook.secret : undefined;
      st.triggers.push({
        id: claim(stg.id ?? hashUuid("trigger", pipelineId, String(ti)), `${tp}/id`),
        pipelineId,
        is_disabled: stg.is_disabled === true,
        ...(stg.config !== undefined ? { config: { ...stg.config } } : {}),
        ...(stg.checkout !== undefined ? { checkout: { ...stg.checkout } } : {}),
        event: toTriggerEvent(event),
        ...(stg.parameters !== undefined
          ? { parameters: structuredClone(stg.parameters) as Record<string, unknown> }
          : {}),
        ...(typeof secret === "string" && secret !== "" ? { webhookSecret: secret } : {}),
        created_at: SEED_TIME,
      });
    });
  });
};

/** spec: api-v2-v1.md "Limits": OTLP exporters, 5 per organization. */
export const OTEL_EXPORTERS_PER_ORG = 5;

/**
 * spec: POST /otel/exporters: "endpoint string (host and port only, no scheme)".
 * Decision: the emulator refuses (400) anything else, a missing port included.
 */
export const checkOtelEndpoint = (endpoint: string, pointer: string): void => {
  if (!/^[A-Za-z0-9._-]+:[0-9]{1,5}$/.test(endpoint)) {
    throw badRequest(
      "invalid_request",
      `${pointer}: endpoint must be host and port only, without a scheme (got ${JSON.stringify(endpoint)})`,
      pointer,
    );
  }
};

/**
 * spec: api-v2-v1.md "Checkout key": `type` is `deploy-key` or a `<vcs>-user-key`.
 * Decision: a user key's type names the VCS of the project's slug (`gh/…` → `github-user-key`,
 * `bb/…` → `bitbucket-user-key`, else the slug's first segment).
 */
const VCS_NAMES: Readonly<Record<string, string>> = { gh: "github", bb: "bitbucket" };
const vcsName = (slug: string): string => {
  const first = slug.split("/")[0] ?? "";
  return VCS_NAMES[first] ?? first;
};

export const checkoutKeyRow = (
  project: ProjectRow,
  input: "deploy-key" | "user-key",
  preferred: boolean,
  seedHex: string,
  createdAt: string,
): CheckoutKeyRow => {
  const pair = keyPairOf(Buffer.from(seedHex, "hex"));
  return {
    projectId: project.id,
    type: input === "deploy-key" ? "deploy-key" : `${vcsName(project.slug)}-user-key`,
    preferred,
    privateSeed: seedHex,
    publicKey: pair.publicKey,
    md5: pair.md5,
    sha256: pair.sha256,
    created_at: createdAt,
  };
};

/** spec: api-v3.md "Limits": webhooks per project 25 (one more is 400). */
export const WEBHOOKS_PER_PROJECT = 25;

// ---------------------------------------------------------------------------------------
// State → seed (GET /__admin/state)
// ---------------------------------------------------------------------------------------

/** Dump the state in the seed's shape, ids filled in, secret values included (test only). */
export const dumpState = (st: State): Seed => ({
  tokens: st.tokens.map((t) => ({
    token: t.token,
    read_only: t.readOnly,
    user: t.user,
    ...(t.writeContexts ? {} : { write_contexts: false }),
  })),
  orgs: st.orgs.map((o) => ({
    id: o.id,
    slug: o.slug,
    name: o.name,
    settings: { ...o.settings },
    default_context_restriction: o.defaultContextRestriction,
    groups: o.groups.map((g) => ({ ...g })),
    sso_group_mappings: o.ssoGroupMappings.map((m) => ({
      idp_group_name: m.idp_group_name,
      group: m.group_id,
    })),
    otel_exporters: st.otelExporters
      .filter((e) => e.orgId === o.id)
      .map((e) => ({
        id: e.id,
        endpoint: e.endpoint,
        protocol: e.protocol === "http" ? ("http" as const) : ("grpc" as const),
        insecure: e.insecure,
        headers: { ...e.headers },
      })),
    contexts: st.contexts
      .filter((c) => c.orgId === o.id)
      .map((c) => ({
        id: c.id,
        name: c.name,
        created_at: c.created_at,
        env: Object.fromEntries(c.env.map((e) => [e.name, e.value])),
        restrictions: c.restrictions.map((r) => ({ ...r })),
      })),
    projects: st.projects
      .filter((p) => p.orgId === o.id)
      .map((p) => ({
        id: p.id,
        slug: p.slug,
        name: p.name,
        oauth: p.oauth,
        is_followed: p.isFollowed,
        ...(p.lastActiveAt !== undefined ? { last_active_at: p.lastActiveAt } : {}),
        repo: { ...p.repo },
        settings: structuredClone(p.settings),
        env: Object.fromEntries(p.env.map((e) => [e.name, e.value])),
        checkout_keys: st.checkoutKeys
          .filter((k) => k.projectId === p.id)
          .map((k) => ({
            type: k.type === "deploy-key" ? ("deploy-key" as const) : ("user-key" as const),
            preferred: k.preferred,
            private_seed: k.privateSeed,
            created_at: k.created_at,
          })),
        schedules: st.schedules
          .filter((x) => x.projectId === p.id)
          .map((x) => ({
            id: x.id,
            name: x.name,
            description: x.description,
            timetable: structuredClone(x.timetable) as SeedJson,
            parameters: structuredClone(x.parameters) as SeedJson,
            actor: structuredClone(x.actor) as SeedJson,
          })),
        webhooks: st.webhooks
          .filter((w) => w.projectId === p.id)
          .map((w) => ({
            id: w.id,
            name: w.name,
            scope: w.scope,
            url: w.url,
            events: [...w.events],
            should_verify_tls: w.should_verify_tls,
            is_enabled: w.is_enabled,
            ...(w.signing_secret !== undefined ? { signing_secret: w.signing_secret } : {}),
            ...(w.auto_disabled_at !== null ? { auto_disabled_at: w.auto_disabled_at } : {}),
          })),
        pipelines: st.pipelines
          .filter((pl) => pl.projectId === p.id)
          .map((pl) => ({
            id: pl.id,
            name: pl.name,
            ...(pl.description !== undefined ? { description: pl.description } : {}),
            config: structuredClone(pl.config) as unknown as SeedJson,
            ...(pl.checkout !== undefined
              ? { checkout: structuredClone(pl.checkout) as SeedJson }
              : {}),
            triggers: st.triggers
              .filter((t) => t.pipelineId === pl.id)
              .map((t) => ({
                id: t.id,
                is_disabled: t.is_disabled,
                ...(t.config !== undefined ? { config: { ...t.config } } : {}),
                ...(t.checkout !== undefined ? { checkout: { ...t.checkout } } : {}),
                event: structuredClone({
                  ...t.event,
                  ...(t.webhookSecret !== undefined
                    ? { webhook: { ...t.event.webhook, secret: t.webhookSecret } }
                    : {}),
                }) as unknown as SeedJson,
                ...(t.parameters !== undefined
                  ? { parameters: structuredClone(t.parameters) }
                  : {}),
              })),
          })),
      })),
  })),
});

/**
 * Decision: the OAuth VCS providers' slugs (`gh`, `github`, `bb`, `bitbucket`). A slug that
 * starts with another is app-based (a project slug's vcs-slug "for app-based providers is a
 * service-native token", spec: api-v2-v1.md Resources and their fields): its projects have no checkout keys, and
 * its org is a standalone one, the only kind where groups can be created.
 */
export const OAUTH_VCS_SLUGS: ReadonlySet<string> = new Set(["gh", "github", "bb", "bitbucket"]);

/** Whether a project or org slug is on an OAuth VCS provider (see OAUTH_VCS_SLUGS). */
export const onOAuthVcs = (slug: string): boolean => OAUTH_VCS_SLUGS.has(slug.split("/")[0] ?? "");

/**
 * Decision: an app-based org's slug `<vcs-slug>/<uuid>` names its id (spec: api-v2-v1.md
 * "Conventions of V2": for app-based providers "org-name is the organization id"), so a
 * seed org written so gets that id unless the seed says otherwise.
 */
const standaloneOrgId = (slug: string): string | undefined => {
  const [vcs, second, ...rest] = slug.split("/");
  return vcs !== undefined && !onOAuthVcs(slug) && rest.length === 0 && isUuid(second ?? "")
    ? (second as string).toLowerCase()
    : undefined;
};

/**
 * A project's V2 slug (spec: api-v2-v1.md "Conventions of V2"): `<vcs-slug>/<org-name>/
 * <repo-name>`, where for app-based providers the vcs-slug is a service-native token, the
 * org-name the organization id and the repo-name the project id. Decision: on an OAuth VCS
 * provider it is the project's slug as V3 lists it; the V3 `slug` of an app-based project
 * (the spec does not say its form) stays what it is, and only this form reaches its V2 routes.
 */
export const v2SlugOf = (p: {
  readonly id: string;
  readonly orgId: string;
  readonly slug: string;
}): string => (onOAuthVcs(p.slug) ? p.slug : `${p.slug.split("/")[0] ?? ""}/${p.orgId}/${p.id}`);

/** Remove, in place, the rows `gone` says (the state's arrays are shared, never replaced). */
export const removeWhere = <T>(rows: T[], gone: (row: T) => boolean): void => {
  for (let i = rows.length - 1; i >= 0; i--) if (gone(rows[i] as T)) rows.splice(i, 1);
};
