/**
 * The synthetic OAuth pipeline (spec: api-v3.md Pipelines: "includes the synthetic OAuth
 * pipeline"; `GET /pipelines/:id` needs `filter[project_id]` "to resolve a synthetic OAuth
 * pipeline"). The list does not mark it, so the only test is a `GET /pipelines/{id}` WITHOUT
 * the filter: 404 means synthetic. That costs one request per pipeline, so only the
 * pipelines a plan would change or delete are probed (src/run/plan-run.ts).
 */
import type { ReadOnlyApi } from "../api/types.js";
import { parseAddress } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
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
    await api.get("v3", `/pipelines/${pipelineId}`);
    return false;
  } catch (err) {
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
  const markProject = (p: LiveProject): LiveProject => ({
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
  });
  const markOrg = (o: LiveOrg): LiveOrg => ({
    ...o,
    projects: new Map(
      [...o.projects].map(([slug, p]) => [slug, p.status === "found" ? markProject(p) : p]),
    ),
  });
  return { orgs: live.orgs.map(markOrg) };
};
