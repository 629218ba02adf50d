// Lower bounds (issue 8): the fewest requests the spec allows for the work, and the time
// bound max(requests × latency / parallelism, dependency depth × latency).
//
// Page sizes: spec api-v3.md "Limits" documents a page[limit] maximum only for orgs and
// projects (50). For the other collections Waybill sends no page[limit] (src/core/wire.ts
// PAGE_LIMIT_MAX), so their pages are counted at the service default: 20 items (the
// emulator's default, docs/emulator.md "Paging"). Every collection costs at least one
// request, even when empty (that is how its emptiness is known).

export const PROJECT_PAGE = 50;
export const DEFAULT_PAGE = 20;

const pages = (items, size) => Math.max(1, Math.ceil(items / size));

/** Reads of a plan of the bench config: org, project listing, contexts, then per item. */
const reads = (p, populated) => {
  const projectPages = pages(p.projects, PROJECT_PAGE);
  const contexts = populated ? p.contexts : 0;
  const contextPages = pages(contexts, DEFAULT_PAGE);
  const perContext = pages(p.contextEnv, DEFAULT_PAGE) + 1; // env-vars pages + restrictions
  // env vars (one page: the route has no paging), webhooks, pipelines, triggers.
  const perProject = 1 + pages(populated ? p.webhooks : 0, DEFAULT_PAGE) + 1 + 1;
  // Issue 14: + 1 org settings read (is_context_group_restriction_required decides whether
  // a new context may be planned without a group restriction), + 1 probe per project: every
  // project lists the synthetic OAuth pipeline (spec: api-v3.md Pipelines), which looks like
  // an undeclared pipeline to delete until GET /pipelines/{id} without filter[project_id]
  // answers 404.
  return {
    requests:
      1 +
      1 +
      projectPages +
      contextPages +
      contexts * perContext +
      p.projects * perProject +
      p.projects,
    projectPages,
    contextPages,
    perContext,
    perProject,
  };
};

/**
 * A plan (or drift) of the bench config against the org it was generated from. `probes`:
 * pipelines the plan changes, each of which needs one GET /pipelines/{id} without
 * filter[project_id] — the only way the spec gives to tell the synthetic OAuth pipeline
 * apart (api-v3.md Pipelines; docs/emulator.md) — a lookup no list replaces.
 */
export const planBound = (p, probes) => {
  const r = reads(p, true);
  const depth = 1 + Math.max(r.projectPages, r.contextPages) + 1 + (probes > 0 ? 1 : 0);
  return {
    requests: r.requests + probes,
    depth,
    explain:
      `1 org + 1 org settings + ${r.projectPages} project pages (50) + ${r.contextPages} context pages (default 20)` +
      ` + ${p.contexts}×${r.perContext} context reads + ${p.projects}×${r.perProject} project reads` +
      ` + ${p.projects} synthetic OAuth pipeline probes` +
      (probes > 0 ? ` + ${probes} pipeline probes` : "") +
      `; depth ${depth}`,
  };
};

/**
 * Apply of the bench config to an org that has only its projects: the plan's reads (every
 * collection empty) plus one create per item. Depth: org → project pages → project reads →
 * pipeline create → trigger create (a trigger needs its pipeline's id).
 */
export const applyBound = (p) => {
  const r = reads(p, false);
  const creates =
    p.projects * (p.projectEnv + p.webhooks + 2 + 2) + p.contexts * (1 + p.contextEnv + 3);
  const depth = 1 + r.projectPages + 1 + 2;
  return {
    requests: r.requests + creates,
    depth,
    explain:
      `1 org + 1 org settings + ${r.projectPages} project pages + 1 (empty) context page + ${p.projects}×4 project reads` +
      ` + ${p.projects} synthetic OAuth pipeline probes` +
      ` + ${creates} creates; depth ${depth}`,
  };
};

export const timeBound = (requests, depth, latency, parallelism) =>
  Math.max((requests * latency) / parallelism, depth * latency);
