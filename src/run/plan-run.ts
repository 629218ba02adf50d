/**
 * The read side of `plan`, `drift` and `apply`: read the live state (which probes the
 * pipelines a plan deletes as it reads), plan, and probe for the synthetic OAuth pipeline
 * where the plan touches another pipeline (src/live/synthetic.ts), then plan again with what
 * the probes found.
 */
import type { ReadOnlyApi } from "../api/types.js";
import { type ProgressCallback, withProgress } from "../live/progress.js";
import { type ReadLiveOptions, readLiveState } from "../live/read-live-state.js";
import { scopedRead } from "../live/scoped-read.js";
import {
  type ChangeLike,
  markSynthetic,
  pipelinesTouched,
  probedWhileReading,
  probeSynthetic,
} from "../live/synthetic.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import { planConfigDigest } from "../plan/digest.js";
import { planAhead, planChanges } from "../plan/plan.js";
import type { Plan, PlanOptions } from "../plan/types.js";
import { checkProjectReferences } from "./unknown-projects.js";
import { checkNamedReferences } from "./unknown-references.js";

export interface PlanRunOptions {
  readonly onProgress?: ProgressCallback;
  /** Each declared project as its reads finish (src/live ReadLiveOptions `onProject`). */
  readonly onProject?: ReadLiveOptions["onProject"];
  /** A scoped read (src/live/scoped-read.ts): `desired` is then the narrowed config. */
  readonly readsUnder?: ReadLiveOptions["readsUnder"];
  /** Pipelines probed by an earlier read of this run (src/live ReadLiveOptions `probed`). */
  readonly probed?: Map<string, boolean>;
}

/**
 * Read → plan → probe the pipelines the plan changes or deletes that were not probed yet →
 * plan again, until no unprobed pipeline is touched. Each round probes at least one new
 * pipeline, so the loop ends; in practice it runs at most twice.
 */
export const runPlanWith = async <P extends { readonly changes: readonly ChangeLike[] }>(
  api: ReadOnlyApi,
  desired: DesiredConfig,
  planner: (live: LiveState) => P,
  options: PlanRunOptions = {},
): Promise<{ plan: P; live: LiveState }> => {
  const tracked = withProgress(api, options.onProgress);
  let live = await readLiveState(tracked, desired, {
    ...(options.onProject ? { onProject: options.onProject } : {}),
    ...(options.readsUnder ? { readsUnder: options.readsUnder } : {}),
    ...(options.probed ? { probed: options.probed } : {}),
  });
  // A misspelt project slug is a config error with a location and a suggestion, not a
  // plan failure for the first one met (issue 20).
  await checkProjectReferences(tracked, desired, live);
  // Likewise a restriction's group name the org does not have (issue 17).
  checkNamedReferences(desired, live);
  let plan = planner(live);
  // The live reader probed the pipelines a plan deletes (src/live/synthetic.ts): only what
  // else the plan touches (an update, a trigger's change) is probed here, so this loop
  // usually ends at once, with the first plan.
  const probed = probedWhileReading(live, desired);
  const synthetic = new Set<string>();
  for (;;) {
    const toProbe = [...pipelinesTouched(plan.changes, live, desired)].filter(
      (id) => !probed.has(id),
    );
    if (toProbe.length === 0) return { plan, live };
    const results = await Promise.all(
      toProbe.map(async (id) => {
        const known = options.probed?.get(id);
        const answer = known ?? (await probeSynthetic(tracked, id));
        options.probed?.set(id, answer);
        return [id, answer] as const;
      }),
    );
    for (const [id, isSynthetic] of results) {
      probed.add(id);
      if (isSynthetic) synthetic.add(id);
    }
    if (!results.some(([, isSynthetic]) => isSynthetic)) return { plan, live };
    live = markSynthetic(live, synthetic);
    plan = planner(live);
  }
};

/** `planChanges` options (src/plan), passed through. */
export type RunPlanOptions = PlanRunOptions & PlanOptions;

/**
 * Read, plan, probe, re-plan with the pure planner (src/plan `planChanges`).
 *
 * The probe loop plans without `--target`: which pipelines are synthetic must be known for
 * every change, or a change `--target` leaves out (a would-be delete of the synthetic OAuth
 * pipeline) is never probed and is counted among the "other changes left for a later apply"
 * although no apply would ever make it (issue 21: phantom changes). The targeted plan is
 * then made once from the same live state.
 */
export const runPlan = async (
  api: ReadOnlyApi,
  config: DesiredConfig,
  options: RunPlanOptions,
): Promise<{ plan: Plan; live: LiveState }> => {
  const { onProgress, targets, excludes, probed, ...rest } = options;
  // The config half of the plan digest, once for the run's plans (src/plan/digest.ts): of
  // the whole config, also when only a scope of it is read and planned.
  const untargeted = {
    ...rest,
    configDigest: rest.configDigest ?? planConfigDigest(config.orgs),
  };
  // design.md §5: `--changed-since` plans a scope; apply re-reads under the lock only what
  // its plan touches (`within`, inside any scope). Both read and plan the narrowed config.
  const addresses = rest.within ?? rest.scope?.addresses;
  const scoped = addresses === undefined ? undefined : scopedRead(config, addresses);
  const desired = scoped?.desired ?? config;
  // Issue 22: each project is planned as its reads finish; planChanges reuses those parts.
  const ahead = planAhead(desired, untargeted);
  const run = await runPlanWith(
    api,
    desired,
    (live) => planChanges(desired, live, untargeted, ahead),
    {
      ...(onProgress ? { onProgress } : {}),
      onProject: ahead.project,
      ...(scoped ? { readsUnder: scoped.readsUnder } : {}),
      ...(probed ? { probed } : {}),
    },
  );
  const narrowed = (targets?.length ?? 0) > 0 || (excludes?.length ?? 0) > 0;
  if (!narrowed) return run;
  return {
    plan: planChanges(
      desired,
      run.live,
      {
        ...untargeted,
        ...(targets && targets.length > 0 ? { targets } : {}),
        ...(excludes && excludes.length > 0 ? { excludes } : {}),
      },
      ahead,
    ),
    live: run.live,
  };
};
