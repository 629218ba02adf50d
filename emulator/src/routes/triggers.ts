/**
 * Triggers. spec: api-v3.md "Triggers", "Trigger". The synthetic OAuth trigger of an OAuth
 * project is listed and resolved only with `filter[project_id]`, never changed. A webhook
 * trigger's secret is returned once, in the create response.
 */
import { badRequest, notFound, unknownReference } from "../errors.js";
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
} from "../http.js";
import { hashUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { triggerCreateSchema, triggerUpdateSchema } from "../schemas.js";
import {
  checkTriggerEvent,
  findPipeline,
  findProject,
  findTrigger,
  nextId,
  type PipelineRow,
  type ProjectRow,
  rowsOf,
  type State,
  syntheticTrigger,
  type TriggerRow,
  toTriggerEvent,
} from "../store.js";
import { isPlainObject } from "../validate.js";
import { notUpdatable, resolvePipeline } from "./pipelines.js";
import { projectOr404 } from "./projects.js";

// No deep copies: a rendered body is serialized at once (server.ts) and never kept.
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
  const stored = rowsOf.projectTriggers(st, p.id);
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
    return synthetic ? [syntheticTrigger(p)] : rowsOf.triggers(ctx.state, row.id);
  }
  // spec: a pipeline-only request for the synthetic pipeline id returns 404.
  const { row } = resolvePipeline(ctx, pipelineId!, undefined);
  return rowsOf.triggers(ctx.state, row.id);
};

/** Decision: a webhook trigger created without a secret gets one from the service. */
const generatedSecret = (st: State, id: string): string =>
  hashUuid("trigger-secret", id, String(st.seq)).replace(/-/g, "");

export const triggerRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/triggers",
    handler: (ctx) => ok(paginate(ctx, listTriggers(ctx), (t) => renderTrigger(t))),
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
