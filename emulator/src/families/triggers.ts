/**
 * Triggers. spec: api-v3.md "Triggers", "Trigger". The synthetic OAuth trigger of an OAuth
 * project is listed and resolved only with `filter[project_id]`, never changed. A webhook
 * trigger's secret is returned once, in the create response.
 */
import { badRequest, notFound, unknownReference } from "../errors.js";
import type { Family } from "../family.js";
import {
  allowFilters,
  body,
  type Ctx,
  created,
  enveloped,
  noContent,
  ok,
  type Route,
  uuidFilter,
  withTotalCount,
} from "../http.js";
import { hashUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { enveloped as envelopedSchema, nonEmpty, ref, seedId, vcsRepoSchema } from "../schemas.js";
import type { SeedJson } from "../seed.js";
import { EVENT_PRESETS, TRIGGER_EVENT_TYPES } from "../spec-names.js";
import {
  findById,
  groupBy,
  memo,
  NONE,
  nextId,
  removeWhere,
  SEED_TIME,
  type State,
} from "../state.js";
import { isPlainObject, type Schema, s } from "../validate.js";
import type { VcsRepoWire } from "../wire.js";
import { findPipeline, notUpdatable, type PipelineRow, resolvePipeline } from "./pipelines.js";
import { findProject, type ProjectRow, projectOr404 } from "./projects.js";

export type TriggerType = (typeof TRIGGER_EVENT_TYPES)[number];

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

declare module "../state.js" {
  interface State {
    readonly triggers: TriggerRow[];
  }
}

/** Trigger attributes as in `POST /triggers` (`event.webhook.secret` is kept as the secret). */
export interface SeedTrigger {
  readonly id?: string;
  readonly is_disabled?: boolean;
  readonly config?: { readonly ref?: string };
  readonly checkout?: { readonly ref?: string };
  readonly event: SeedJson;
  readonly parameters?: SeedJson;
}

declare module "./pipelines.js" {
  interface SeedPipeline {
    readonly triggers?: readonly SeedTrigger[];
  }
}

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
export const triggerCreateSchema = envelopedSchema(
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

/** The synthetic OAuth pipeline's one trigger (pipelines.ts `syntheticPipeline`). */
export const syntheticTrigger = (p: ProjectRow): TriggerRow => ({
  id: hashUuid("oauth-trigger", p.id),
  pipelineId: hashUuid("oauth-pipeline", p.id),
  is_disabled: false,
  event: { type: "vcs", vcs: { ...p.repo }, filter: { preset: "all-pushes" } },
  created_at: SEED_TIME,
});

const findTrigger = (st: State, id: string): TriggerRow | undefined =>
  findById(st, st.triggers, id);

/** The stored triggers of one pipeline, in creation order (an index per state version). */
const triggersOfPipeline = (st: State, pipelineId: string): readonly TriggerRow[] =>
  memo(st, "triggers:by-pipeline", () => groupBy(st.triggers, (t) => t.pipelineId)).get(
    pipelineId,
  ) ?? NONE;

/** The stored triggers of all of a project's stored pipelines, in creation order. */
const storedTriggersOfProject = (st: State, projectId: string): readonly TriggerRow[] =>
  memo(st, "triggers:by-project", () => {
    const projectOf = new Map(st.pipelines.map((p) => [p.id, p.projectId]));
    const groups = new Map<string, TriggerRow[]>();
    for (const t of st.triggers) {
      const project = projectOf.get(t.pipelineId);
      if (project === undefined) continue;
      const list = groups.get(project);
      if (list) list.push(t);
      else groups.set(project, [t]);
    }
    return groups;
  }).get(projectId) ?? NONE;

const renderTrigger = (t: TriggerRow, secretOnce?: string) => ({
  id: t.id,
  attributes: {
    is_disabled: t.is_disabled,
    ...(t.config !== undefined ? { config: t.config } : {}),
    ...(t.checkout !== undefined ? { checkout: t.checkout } : {}),
    event:
      secretOnce !== undefined
        ? { ...t.event, webhook: { ...t.event.webhook, secret: secretOnce } }
        : t.event,
    ...(t.parameters !== undefined ? { parameters: t.parameters } : {}),
    created_at: t.created_at,
  },
  references: { pipeline: { id: t.pipelineId } },
});

/** Decision: the synthetic trigger first, then stored triggers in creation order. */
const triggersOfProject = (st: State, p: ProjectRow): readonly TriggerRow[] => {
  const stored = storedTriggersOfProject(st, p.id);
  return p.oauth ? [syntheticTrigger(p), ...stored] : stored;
};

const projectOfTrigger = (st: State, t: TriggerRow): string | undefined =>
  findPipeline(st, t.pipelineId)?.projectId;

/** A trigger by id; the synthetic one only with filter[project_id] (spec: GET /triggers/:id). */
const resolveTrigger = (ctx: Ctx): { row: TriggerRow; synthetic: boolean } => {
  allowFilters(ctx, ["filter[project_id]"]);
  const id = ctx.params.id!;
  const projectId = uuidFilter(ctx, "filter[project_id]", false);
  const stored = findTrigger(ctx.state, id);
  if (stored && (projectId === undefined || projectOfTrigger(ctx.state, stored) === projectId)) {
    return { row: stored, synthetic: false };
  }
  if (projectId !== undefined) {
    const p = findProject(ctx.state, projectId);
    if (p?.oauth && syntheticTrigger(p).id === id)
      return { row: syntheticTrigger(p), synthetic: true };
  }
  throw notFound("trigger", id);
};

const listTriggers = (ctx: Ctx): readonly TriggerRow[] => {
  allowFilters(ctx, ["filter[project_id]", "filter[pipeline_id]"]);
  const projectId = uuidFilter(ctx, "filter[project_id]", false);
  const pipelineId = uuidFilter(ctx, "filter[pipeline_id]", false);
  if (projectId === undefined && pipelineId === undefined) {
    throw badRequest("missing_filter", "filter[project_id] or filter[pipeline_id] is required");
  }
  if (projectId !== undefined) {
    const p = projectOr404(ctx, projectId);
    if (pipelineId === undefined) return triggersOfProject(ctx.state, p);
    // Decision: a pipeline of another project is 404 (as on GET /pipelines/:id).
    const { row, synthetic } = resolvePipeline(ctx, pipelineId, p.id);
    return synthetic ? [syntheticTrigger(p)] : triggersOfPipeline(ctx.state, row.id);
  }
  // spec: a pipeline-only request for the synthetic pipeline id returns 404.
  const { row } = resolvePipeline(ctx, pipelineId!, undefined);
  return triggersOfPipeline(ctx.state, row.id);
};

/** Decision: a webhook trigger created without a secret gets one from the service. */
const generatedSecret = (st: State, id: string): string =>
  hashUuid("trigger-secret", id, String(st.seq)).replace(/-/g, "");

export const triggerRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/triggers",
    handler: (ctx) => ok(paginate(ctx, listTriggers(ctx), (t) => renderTrigger(t))),
    sparse: withTotalCount,
  },
  {
    method: "POST",
    pattern: "/api/v3/triggers",
    body: triggerCreateSchema,
    handler: (ctx) => {
      const { attributes: a, references } = enveloped(body(ctx));
      // spec: Triggers: POST lists 201/400: an unknown pipeline is 400; so is the synthetic
      // OAuth pipeline (it cannot take new triggers and is resolvable only with
      // filter[project_id]).
      const pipeline: PipelineRow | undefined = findPipeline(ctx.state, references.pipeline!.id);
      if (!pipeline) throw unknownReference("pipeline", references.pipeline!.id);
      const event = a.event as Record<string, unknown>;
      checkTriggerEvent(event, a.parameters, "/data/attributes");
      const id = nextId(ctx.state, "trigger");
      const given = isPlainObject(event.webhook) ? event.webhook.secret : undefined;
      const secret =
        event.type === "webhook"
          ? typeof given === "string" && given !== ""
            ? given
            : generatedSecret(ctx.state, id)
          : undefined;
      const row: TriggerRow = {
        id,
        pipelineId: pipeline.id,
        is_disabled: a.is_disabled === true,
        ...(a.config !== undefined ? { config: { ...(a.config as object) } } : {}),
        ...(a.checkout !== undefined ? { checkout: { ...(a.checkout as object) } } : {}),
        event: toTriggerEvent(event),
        ...(a.parameters !== undefined
          ? { parameters: structuredClone(a.parameters as Record<string, unknown>) }
          : {}),
        ...(secret !== undefined ? { webhookSecret: secret } : {}),
        created_at: ctx.nowIso(),
      };
      ctx.state.triggers.push(row);
      // spec: Trigger: "The create response includes the webhook secret once."
      return created({ data: renderTrigger(row, secret) });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/triggers/:id",
    handler: (ctx) => ok({ data: renderTrigger(resolveTrigger(ctx).row) }),
  },
  {
    method: "DELETE",
    pattern: "/api/v3/triggers/:id",
    handler: (ctx) => {
      const { row, synthetic } = resolveTrigger(ctx);
      if (synthetic) throw notUpdatable("trigger");
      ctx.state.triggers.splice(ctx.state.triggers.indexOf(row), 1);
      return noContent();
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/triggers/:id/update",
    body: triggerUpdateSchema,
    handler: (ctx) => {
      const { row, synthetic } = resolveTrigger(ctx);
      if (synthetic) throw notUpdatable("trigger");
      const b = body(ctx);
      const type = row.event.type;
      // spec: parameters only on scheduled triggers; 400 for non-scheduled triggers.
      if (b.parameters !== undefined && type !== "schedule") {
        throw badRequest(
          "invalid_request",
          "/parameters: parameters are accepted only on schedule triggers",
          "/parameters",
        );
      }
      const ev = (b.event ?? {}) as Record<string, Record<string, unknown> | undefined>;
      for (const sub of ["webhook", "schedule"] as const) {
        if (ev[sub] !== undefined && type !== sub) {
          throw badRequest(
            "invalid_request",
            `/event/${sub}: not allowed on a ${type} trigger`,
            `/event/${sub}`,
          );
        }
      }
      if (ev.schedule !== undefined) {
        // Decision: nested event objects merge key by key; the merged schedule is re-checked.
        const merged = { ...row.event.schedule, ...ev.schedule };
        checkTriggerEvent({ type, schedule: merged }, undefined, "");
        row.event.schedule = merged as NonNullable<TriggerRow["event"]["schedule"]>;
      }
      if (ev.webhook !== undefined) {
        const { secret, ...rest } = ev.webhook;
        row.event.webhook = {
          ...row.event.webhook,
          ...(rest as { name?: string; source?: string }),
        };
        // Decision: a non-empty `secret` rotates the webhook secret (never returned).
        if (typeof secret === "string" && secret !== "") row.webhookSecret = secret;
      }
      // spec: Triggers update: `event? {webhook?, schedule?, filter?}`, each member optional,
      // and the spec's update rule ("only present fields change", "omitted fields keep
      // values"). The less forgiving reading, which a client must survive: nested objects
      // merge key by key, so `filter: {preset}` keeps the live `rules`; only an explicit
      // `rules` (an empty list to clear) replaces them.
      if (ev.filter !== undefined) {
        row.event.filter = { ...row.event.filter, ...structuredClone(ev.filter) };
      }
      if (b.is_disabled !== undefined) row.is_disabled = b.is_disabled as boolean;
      if (b.config !== undefined) row.config = { ...row.config, ...(b.config as object) };
      if (b.checkout !== undefined) row.checkout = { ...row.checkout, ...(b.checkout as object) };
      // spec: parameters replace wholesale: omitted keeps, an empty object clears.
      if (b.parameters !== undefined) {
        const params = b.parameters as Record<string, unknown>;
        if (Object.keys(params).length === 0) delete row.parameters;
        else row.parameters = structuredClone(params);
      }
      return ok({ data: renderTrigger(row) });
    },
  },
];

export const triggers: Family = {
  name: "triggers",
  routes: triggerRoutes,
  tables: ["triggers"],
  toFront: ["triggers"],
  seed: [
    {
      in: "pipeline",
      key: "triggers",
      schema: s.arr(s.obj({ id: seedId, ...triggerProps }, ["event"])),
      load(l, parent, value, pointer) {
        const pipelineId = (parent.row as PipelineRow).id;
        ((value ?? []) as readonly SeedTrigger[]).forEach((stg, ti) => {
          const tp = `${pointer}/${ti}`;
          const event = stg.event as Record<string, unknown>;
          l.asSeed(() => checkTriggerEvent(event, stg.parameters, tp));
          const secret = isPlainObject(event.webhook) ? event.webhook.secret : undefined;
          l.st.triggers.push({
            id: l.claim(stg.id ?? hashUuid("trigger", pipelineId, String(ti)), `${tp}/id`),
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
      },
      dump: (st, row) =>
        st.triggers
          .filter((t) => t.pipelineId === (row as PipelineRow).id)
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
            ...(t.parameters !== undefined ? { parameters: structuredClone(t.parameters) } : {}),
          })),
    },
  ],
  onRemove: {
    pipeline: (st, id) => removeWhere(st.triggers, (t) => t.pipelineId === id),
  },
};
