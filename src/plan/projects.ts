/**
 * A declared project: created (`create: true`), deleted (`delete: true`) or walked, with
 * its collections planned under it.
 */

/**
 * A declared project: created (`create: true`), deleted (`delete: true`) or walked, its
 * collections planned under it.
 */

import { formatLocation, PlanError } from "../core/errors.js";
import type { PlanParents, Within } from "../kinds/contract.js";
import { childKindsIn, KINDS } from "../kinds/registry.js";
import { addr } from "../model/address.js";
import type { DesiredProject } from "../model/desired.js";
import { fromTemplate } from "./collection-diff.js";
import type { OrgCtx, WalkNode } from "./state.js";
import { planCollection } from "./walk.js";

export const planProject = (
  ctx: OrgCtx,
  org: PlanParents["org"],
  slug: string,
  dp: DesiredProject,
): void => {
  const liveOrg = org.live;
  const projectAddress = addr.project(slug);
  if (ctx.ignored(projectAddress)) {
    ctx.acc.warnings.push(
      `${projectAddress} is declared but excluded by \`ignore\`: it is not planned`,
    );
    return;
  }
  const lp = liveOrg.projects.get(slug);
  const projectChange = {
    address: projectAddress,
    resource_type: "project" as const,
    org: ctx.slug,
    collection: "projects",
    depends_on: [],
    fields: [],
  };
  if (dp.delete === true) {
    // Issue 18: `delete: true`; nothing to do when the project is already gone.
    if (lp === undefined || lp.status === "not_visible") {
      if (lp?.status === "not_visible" && lp.absent !== true) {
        throw new PlanError(`${projectAddress}: not visible (${lp.reason}); it cannot be deleted`);
      }
      return;
    }
    ctx.acc.changes.push({
      ...projectChange,
      action: "delete",
      reason: `delete: true in the config (${formatLocation(dp.source)}); the project goes with everything in it (env vars, webhooks, pipelines, triggers, checkout keys); apply needs --allow-project-delete`,
      before: KINDS.project.liveView(lp),
      after: null,
      params: { org_id: liveOrg.id, project_id: lp.id, project_slug: lp.slug, id: lp.id },
      calls: KINDS.project.deleteCalls(),
      id: lp.id,
    });
    return;
  }
  if (lp?.status === "not_visible" && lp.absent === true && dp.create === true) {
    // Issue 18: `create: true` and the look-up found no such project: create it first, then
    // everything inside it, which takes its id (and its slug, for the V2 routes) at apply.
    ctx.acc.changes.push({
      ...projectChange,
      action: "create",
      reason: fromTemplate(dp, "create: true, and the org has no such project"),
      before: null,
      after: KINDS.project.desiredView(dp, { ...ctx.env, forceSecrets: false }),
      params: { org_id: liveOrg.id },
      calls: KINDS.project.createCalls(dp),
    });
    const pending: WalkNode = {
      name: "project",
      desired: dp,
      live: undefined,
      address: projectAddress,
      params: {
        org_id: liveOrg.id,
        project_id: { pending: projectAddress },
        project_slug: { pending: `${projectAddress}#slug` },
      },
      pending: projectAddress,
      replaced: false,
    };
    const within: Within = { org: liveOrg };
    for (const kind of childKindsIn(ctx.kinds, "project"))
      planCollection(ctx, org, within, pending, kind);
    return;
  }
  if (lp === undefined) {
    throw new PlanError(`${projectAddress}: the project was not read, so it cannot be planned`);
  }
  if (lp.status === "not_visible") {
    // design.md §1: never plan a create over something that may exist.
    throw new PlanError(
      lp.collection === undefined
        ? `${projectAddress}: absent or not visible (${lp.reason})`
        : // Issue 40: the project was found; one of its collections could not be read.
          `${projectAddress}: the project was found, but its ${lp.collection} collection could not be read (${lp.reason}); nothing is planned in it from a collection that was not read`,
    );
  }
  const node: WalkNode = {
    name: "project",
    desired: dp,
    live: lp,
    address: projectAddress,
    // project_slug: the V2 routes (checkout keys) name the project by its slug.
    params: { org_id: liveOrg.id, project_id: lp.id, project_slug: lp.slug },
    replaced: false,
  };
  const within: Within = { org: liveOrg, project: lp };
  for (const kind of childKindsIn(ctx.kinds, "project"))
    planCollection(ctx, org, within, node, kind);
};
