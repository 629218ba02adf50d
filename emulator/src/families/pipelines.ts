/**
 * Pipelines (config sources). spec: api-v3.md "Pipelines", "Pipeline". Every project (unless
 * seeded `oauth: false`) has a synthetic pipeline: listed, resolved by id only with
 * `filter[project_id]`, never updated or deleted.
 */
import { badRequest, EmulatorHttpError, notFound, unknownReference } from "../errors.js";
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
import {
  findById,
  groupBy,
  memo,
  NONE,
  nextId,
  removeWhere,
  removeWith,
  SEED_TIME,
  type State,
} from "../state.js";
import { type Schema, s } from "../validate.js";
import type { VcsRepoWire } from "../wire.js";
import { findProject, type ProjectRow, projectOr404 } from "./projects.js";

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

declare module "../state.js" {
  interface State {
    readonly pipelines: PipelineRow[];
  }
}

export interface SeedPipeline {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
  readonly config: SeedJson;
  readonly checkout?: SeedJson;
}

declare module "./projects.js" {
  interface SeedProject {
    readonly pipelines?: readonly SeedPipeline[];
  }
}

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
export const pipelineCreateSchema = envelopedSchema(
  s.obj(pipelineProps, ["name", "config", "checkout"]),
  s.obj({ project: ref }, ["project"]),
);
/** spec: Pipelines: update takes only name, description, config.file_path, config.file_type. */
export const pipelineUpdateSchema: Schema = s.obj({
  name: nonEmpty(),
  description: s.str(),
  config: s.obj({ file_path: nonEmpty(), file_type: s.str() }),
});

/**
 * Derived from the project, never stored. Its id is a hash of the project id (never equal to
 * it). Decision: named `OAuth`, reading `.service/config.yml` from the project's repo, with
 * one vcs trigger on all pushes (triggers.ts `syntheticTrigger`).
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

export const findPipeline = (st: State, id: string): PipelineRow | undefined =>
  findById(st, st.pipelines, id);

/** The stored pipelines of one project, in creation order (an index per state version). */
const storedPipelinesOf = (st: State, projectId: string): readonly PipelineRow[] =>
  memo(st, "pipelines:by-project", () => groupBy(st.pipelines, (p) => p.projectId)).get(
    projectId,
  ) ?? NONE;

/** Stored pipelines of a project, with the synthetic one first for an OAuth project. */
export const pipelinesOf = (st: State, project: ProjectRow): readonly PipelineRow[] => {
  const stored = storedPipelinesOf(st, project.id);
  return project.oauth ? [syntheticPipeline(project), ...stored] : stored;
};

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
    sparse: withTotalCount,
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
      // Decision: deleting a pipeline deletes its triggers (each family's `onRemove.pipeline`).
      removeWith(ctx.state, "pipeline", row.id);
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

export const pipelines: Family = {
  name: "pipelines",
  routes: pipelineRoutes,
  tables: ["pipelines"],
  toFront: ["pipelines"],
  seed: [
    {
      in: "project",
      key: "pipelines",
      level: "pipeline",
      props: { id: seedId, ...pipelineProps },
      required: ["name", "config"],
      loadItem(l, parent, item, lp, li) {
        const id = (parent.row as ProjectRow).id;
        const spl = item as unknown as SeedPipeline;
        const row: PipelineRow = {
          id: l.claim(spl.id ?? hashUuid("pipeline", id, spl.name, String(li)), `${lp}/id`),
          projectId: id,
          name: spl.name,
          ...(spl.description !== undefined ? { description: spl.description } : {}),
          config: structuredClone(spl.config) as unknown as PipelineConfig,
          ...(spl.checkout !== undefined
            ? { checkout: structuredClone(spl.checkout) as PipelineRow["checkout"] }
            : {}),
          created_at: SEED_TIME,
        };
        l.st.pipelines.push(row);
        return row;
      },
      dumpItems: (st, row) =>
        st.pipelines
          .filter((pl) => pl.projectId === (row as ProjectRow).id)
          .map((pl) => ({
            row: pl,
            out: {
              id: pl.id,
              name: pl.name,
              ...(pl.description !== undefined ? { description: pl.description } : {}),
              config: structuredClone(pl.config) as unknown as SeedJson,
              ...(pl.checkout !== undefined
                ? { checkout: structuredClone(pl.checkout) as SeedJson }
                : {}),
            },
          })),
    },
  ],
  onRemove: {
    project: (st, id) => {
      for (const pl of st.pipelines) if (pl.projectId === id) removeWith(st, "pipeline", pl.id);
      removeWhere(st.pipelines, (pl) => pl.projectId === id);
    },
  },
};
