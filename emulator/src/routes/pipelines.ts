/**
 * Pipelines (config sources). spec: api-v3.md "Pipelines", "Pipeline". Every project (unless
 * seeded `oauth: false`) has a synthetic pipeline: listed, resolved by id only with
 * `filter[project_id]`, never updated or deleted.
 */
import { badRequest, EmulatorHttpError, notFound, unknownReference } from "../errors.js";
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
import { paginate } from "../paging.js";
import { pipelineCreateSchema, pipelineUpdateSchema } from "../schemas.js";
import {
  findPipeline,
  findProject,
  nextId,
  type PipelineConfig,
  type PipelineRow,
  pipelinesOf,
  syntheticPipeline,
} from "../store.js";
import { projectOr404 } from "./projects.js";

// No deep copies: a rendered body is serialized at once (server.ts) and never kept.
export const renderPipeline = (p: PipelineRow) => ({
  id: p.id,
  attributes: {
    name: p.name,
    // Decision: a pipeline created without a description reads back as "".
    description: p.description ?? "",
    config: p.config,
    ...(p.checkout !== undefined ? { checkout: p.checkout } : {}),
    created_at: p.created_at,
  },
  references: { project: { id: p.projectId } },
});

/** Decision: changing a synthetic OAuth pipeline or trigger is 400 `not_updatable`. */
export const notUpdatable = (what: string): EmulatorHttpError =>
  new EmulatorHttpError(
    400,
    "not_updatable",
    "Bad request",
    `the synthetic OAuth ${what} cannot be updated or deleted`,
  );

/**
 * A pipeline by id. spec: GET/DELETE `filter[project_id]` is "required to resolve a synthetic
 * OAuth pipeline". Decision: a stored pipeline asked for with the filter of another project
 * is 404.
 */
export const resolvePipeline = (
  ctx: Ctx,
  id: string,
  projectId: string | undefined,
): { row: PipelineRow; synthetic: boolean } => {
  const stored = findPipeline(ctx.state, id);
  if (stored && (projectId === undefined || stored.projectId === projectId))
    return { row: stored, synthetic: false };
  if (projectId !== undefined) {
    const p = findProject(ctx.state, projectId);
    if (p?.oauth) {
      const synth = syntheticPipeline(p);
      if (synth.id === id) return { row: synth, synthetic: true };
    }
  }
  throw notFound("pipeline", id);
};

const byId = (ctx: Ctx) => {
  allowFilters(ctx, ["filter[project_id]"]);
  return resolvePipeline(ctx, ctx.params.id!, uuidFilter(ctx, "filter[project_id]", false));
};

export const pipelineRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/pipelines",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[project_id]"]);
      const p = projectOr404(ctx, uuidFilter(ctx, "filter[project_id]", true)!);
      // spec: includes the synthetic OAuth pipeline; every pipeline fetchable by id appears.
      return ok(paginate(ctx, pipelinesOf(ctx.state, p), renderPipeline));
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/pipelines",
    body: pipelineCreateSchema,
    handler: (ctx) => {
      const { attributes: a, references } = enveloped(body(ctx));
      const p = findProject(ctx.state, references.project!.id);
      if (!p) throw unknownReference("project", references.project!.id);
      // Decision: pipeline names are not unique within a project (the spec says nothing), so
      // clients meet duplicate names as they would on the service.
      const config = structuredClone(a.config) as PipelineConfig;
      // Decision: a `vcs` config names its repo.
      if (config.type === "vcs" && config.vcs === undefined) {
        throw badRequest(
          "invalid_request",
          "/data/attributes/config/vcs: is required when type is vcs",
          "/data/attributes/config/vcs",
        );
      }
      const row: PipelineRow = {
        id: nextId(ctx.state, "pipeline"),
        projectId: p.id,
        name: a.name as string,
        ...(a.description !== undefined ? { description: a.description as string } : {}),
        config,
        checkout: structuredClone(a.checkout) as NonNullable<PipelineRow["checkout"]>,
        created_at: ctx.nowIso(),
      };
      ctx.state.pipelines.push(row);
      return created({ data: renderPipeline(row) });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/pipelines/:id",
    handler: (ctx) => ok({ data: renderPipeline(byId(ctx).row) }),
  },
  {
    method: "DELETE",
    pattern: "/api/v3/pipelines/:id",
    handler: (ctx) => {
      const { row, synthetic } = byId(ctx);
      if (synthetic) throw notUpdatable("pipeline");
      ctx.state.pipelines.splice(ctx.state.pipelines.indexOf(row), 1);
      // Decision: deleting a pipeline deletes its triggers.
      for (let i = ctx.state.triggers.length - 1; i >= 0; i--) {
        if (ctx.state.triggers[i]!.pipelineId === row.id) ctx.state.triggers.splice(i, 1);
      }
      return noContent();
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/pipelines/:id/update",
    body: pipelineUpdateSchema,
    handler: (ctx) => {
      const { row, synthetic } = byId(ctx);
      if (synthetic) throw notUpdatable("pipeline");
      // spec: only name, description, config.file_path, config.file_type; present fields change.
      const b = body(ctx);
      if (b.name !== undefined) row.name = b.name as string;
      if (b.description !== undefined) row.description = b.description as string;
      const cfg = b.config as { file_path?: string; file_type?: string } | undefined;
      if (cfg?.file_path !== undefined) row.config.file_path = cfg.file_path;
      if (cfg?.file_type !== undefined) row.config.file_type = cfg.file_type;
      return ok({ data: renderPipeline(row) });
    },
  },
];
