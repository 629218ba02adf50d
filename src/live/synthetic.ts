/**
 * The synthetic OAuth pipeline (spec: api-v3.md Pipelines: "includes the synthetic OAuth
 * pipeline"; `GET /pipelines/:id` needs `filter[project_id]` "to resolve a synthetic OAuth
 * pipeline"). The list does not mark it, so the only test is a `GET /pipelines/{id}` WITHOUT
 * the filter: 404 means synthetic. That costs one request per pipeline, so only the
 * pipelines a plan would change or delete are probed (src/run/plan-run.ts).
 */
import type { ReadOnlyApi } from "../api/types.js";
import { parseAddress } from "../model/address.js";
import type { DesiredConfig, DesiredProject } from "../model/desired.js";
import type { LiveOrg, LiveProject, LiveState } from "../model/live.js";
import { httpStatusOf } from "./resolve.js";

/** The part of a plan change this module needs (src/plan Plan changes have more). */
export interface ChangeLike {
  readonly address: string;
  readonly resource_type: string;
  readonly action: string;
  /** The live id of the item, when the planner gives it. */
  readonly id?: string;
  /** Call placeholders; a trigger's `pipeline_id` names its pipeline. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * Live pipeline ids that the changes would update, replace or delete, directly or through
 * one of their triggers. A pipeline is found by the project slug and pipeline key of the
 * change's address (the key is the live name for a delete, the desired name otherwise) and,
 * when the config pins the pipeline with `id:`, by that id.
 */
export const pipelinesTouched = (
  changes: readonly ChangeLike[],
  live: LiveState,
  desired: DesiredConfig,
): Set<string> => {
  const out = new Set<string>();
  for (const change of changes) {
    if (change.resource_type !== "pipeline" && change.resource_type !== "trigger") continue;
    if (change.action === "create") continue;
    if (change.resource_type === "pipeline" && change.id !== undefined) out.add(change.id);
    const pipelineParam = change.params?.pipeline_id;
    if (change.resource_type === "trigger" && typeof pipelineParam === "string") {
      out.add(pipelineParam);
    }
    const segments = parseAddress(change.address);
    const projectSlug = segments?.[0]?.name === "project" ? segments[0].key : undefined;
    const pipelineKey = segments?.[1]?.name === "pipeline" ? segments[1].key : undefined;
    if (projectSlug === undefined || pipelineKey === undefined) continue;
    for (const org of live.orgs) {
      const project = org.projects.get(projectSlug);
      if (project?.status !== "found") continue;
      for (const p of project.pipelines ?? []) if (p.name === pipelineKey) out.add(p.id);
    }
    for (const org of desired.orgs) {
      const pin = org.projects.get(projectSlug)?.pipelines?.get(pipelineKey)?.id;
      if (pin !== undefined) out.add(pin);
    }
  }
  return out;
};

/** GET /pipelines/{id} without filter[project_id]: true when it answers 404. */
export const probeSynthetic = async (api: ReadOnlyApi, pipelineId: string): Promise<boolean> => {
  try {
    const found = await api.get<unknown>("v3", `/pipelines/${pipelineId}`, undefined, {
      notFoundIsAnswer: true,
    });
    return found === undefined;
  } catch (err) {
    // A client that does not take `notFoundIsAnswer` rejects with the 404 instead.
    if (httpStatusOf(err) === 404) return true;
    throw err;
  }
};

/**
 * A copy of the live state where the given pipelines, and every trigger of them, are
 * marked synthetic (spec: api-v3.md Triggers: the synthetic OAuth trigger belongs to the
 * synthetic pipeline). Inputs are not mutated.
 */
export const markSynthetic = (live: LiveState, syntheticIds: ReadonlySet<string>): LiveState => {
  if (syntheticIds.size === 0) return live;
  const markOrg = (o: LiveOrg): LiveOrg => ({
    ...o,
    projects: new Map(
      [...o.projects].map(([slug, p]) => [
        slug,
        p.status === "found" ? markProjectSynthetic(p, syntheticIds) : p,
      ]),
    ),
  });
  return { orgs: live.orgs.map(markOrg) };
};

/** One project of markSynthetic: its pipelines of `syntheticIds` and their triggers. */
export const markProjectSynthetic = (
  p: LiveProject,
  syntheticIds: ReadonlySet<string>,
): LiveProject =>
  syntheticIds.size === 0
    ? p
    : {
        ...p,
        ...(p.pipelines
          ? {
              pipelines: p.pipelines.map((x) =>
                syntheticIds.has(x.id) ? { ...x, synthetic: true } : x,
              ),
            }
          : {}),
        ...(p.triggers
          ? {
              triggers: p.triggers.map((t) =>
                syntheticIds.has(t.pipeline_id) ? { ...t, synthetic: true } : t,
              ),
            }
          : {}),
      };

/**
 * Issue 22: the live pipelines of a read project that its declaration neither names nor pins
 * by `id:` — the ones a plan deletes (`pipelines:` is authoritative), so each is probed
 * anyway. The live reader probes them as soon as the project is read, overlapping the probes
 * with the other projects' reads instead of adding a round of probes (and a second plan)
 * after the whole read; runPlanWith then probes only what a plan touches besides them.
 */
export const undeclaredPipelines = (project: LiveProject, desired: DesiredProject): string[] => {
  const declared = desired.pipelines;
  if (declared === undefined || project.pipelines === undefined) return [];
  const pinned = new Set<string>();
  for (const d of declared.values()) if (d.id !== undefined) pinned.add(d.id);
  return project.pipelines
    .filter((p) => !declared.has(p.name) && !pinned.has(p.id))
    .map((p) => p.id);
};

/** The pipelines the live reader has probed (undeclaredPipelines of every read project). */
export const probedWhileReading = (live: LiveState, desired: DesiredConfig): Set<string> => {
  const out = new Set<string>();
  for (const org of desired.orgs) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    for (const [slug, d] of org.projects) {
      const p = liveOrg?.projects.get(slug);
      if (p?.status === "found") for (const id of undeclaredPipelines(p, d)) out.add(id);
    }
  }
  return out;
};
