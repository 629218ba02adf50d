/**
 * The planner: desired × live → Plan. PURE: no I/O, no clock, no environment
 * (conventions.md §1). Rules from design.md §1: Identity, Ownership, Secrets, Plans.
 * Inputs are never mutated.
 *
 * This module plans each org (its org-level collections, its projects, the plan-wide
 * refusals) and finishes the plan; its parts, by responsibility: state.ts (the run's
 * accumulator, an org's context, the walk's nodes), walk.ts (the generic collection walk),
 * collection-diff.ts (one collection's diff), moves.ts (`moved`), projects.ts (a declared
 * project), ahead.ts (projects planned while the org is still read), and
 * src/kinds/references.ts (references between kinds).
 */

import { formatLocation, PlanError } from "../core/errors.js";
import { resolvedSecretValues } from "../core/secret.js";
import { isUuid } from "../core/uuid.js";
import type { PlanParents } from "../kinds/contract.js";
import { referenceResolver, referencesOnDeletedItems } from "../kinds/references.js";
import { childKindsIn } from "../kinds/registry.js";
import { normalAddress } from "../model/address.js";
import type { DesiredConfig, DesiredOrg } from "../model/desired.js";
import type { LiveOrg, LiveState } from "../model/live.js";
import type { PlanAhead } from "./ahead.js";
import { planConfigDigest } from "./digest.js";
import { finishPlan } from "./finish.js";
import { maskLiveSecrets } from "./mask-live.js";
import { maskPlanUrls } from "./mask-urls.js";
import { planProject } from "./projects.js";
import {
  type Acc,
  deleteUnknownKey,
  globMatcher,
  mergeAcc,
  mergeOrgs,
  newAcc,
  type OrgCtx,
  orgStatics,
  type WalkNode,
} from "./state.js";
import type { Change, Plan, PlanOptions } from "./types.js";
import { planCollection } from "./walk.js";

export type { PlanAhead } from "./ahead.js";
export { planAhead } from "./ahead.js";
export { globMatcher } from "./state.js";

const planOrg = (ctx: OrgCtx, org: DesiredOrg, live: LiveOrg, ahead?: PlanAhead): void => {
  const parents: PlanParents["org"] = { desired: org, live };
  const node: WalkNode = {
    name: "org",
    desired: org,
    live,
    address: "",
    params: { org_id: live.id },
    replaced: false,
  };
  for (const kind of childKindsIn(ctx.kinds, "org"))
    planCollection(ctx, parents, { org: live }, node, kind);
  for (const [slug, dp] of org.projects) {
    const part = ahead?.parts.get(`${org.slug}\u0000${slug}`);
    if (
      part !== undefined &&
      part.dp === dp &&
      part.lp === live.projects.get(slug) &&
      part.orgId === live.id
    ) {
      mergeAcc(ctx.acc, part.acc);
    } else {
      planProject(ctx, parents, slug, dp);
    }
  }
};

/**
 * Plan the changes that make `live` look like `desired`.
 * Throws PlanError for what cannot be planned safely: an ambiguous identity, a declared
 * parent that is absent or not visible, a synthetic item in the config, a collection that
 * was not read, a missing secret without `skipSecrets`.
 */
export const planChanges = (
  desired: DesiredConfig,
  live: LiveState,
  options: PlanOptions = {},
  ahead?: PlanAhead,
): Plan => {
  const acc = newAcc();
  const forced = globMatcher(options.forceSecrets ?? []);
  const orgs: { slug: string; id: string }[] = [];
  for (const org of mergeOrgs(desired.orgs)) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) {
      throw new PlanError(`org ${org.slug}: absent or not visible (it was not read)`);
    }
    orgs.push({ slug: org.slug, id: liveOrg.id });
    const found = new Map<string, string>();
    for (const [s, p] of liveOrg.projects) if (p.status === "found") found.set(s, p.id);
    // Decision: a restriction may name its project by id (design.md config example: "project
    // slug (or id)"): a known project id, or any UUID, is taken as the id itself.
    const knownIds = new Set([...found.values(), ...(liveOrg.projectIds?.values() ?? [])]);
    const ctx: OrgCtx = {
      env: {
        orgId: liveOrg.id,
        projectId: (s) =>
          found.get(s) ??
          liveOrg.projectIds?.get(s) ??
          (knownIds.has(s) || isUuid(s) ? s : undefined),
        // Issue 17: a reference by name names a declared item (created by this plan when
        // it is not live yet) or a live one; declared first (design.md §3 "More kinds").
        refId: referenceResolver(org, liveOrg, acc.changes, options.kinds),
      },
      ...orgStatics(org, forced, options),
      acc,
    };
    planOrg(ctx, org, liveOrg, ahead);
    unmatchedDeleteUnknown(org, acc);
    // Issue 28: what the service would undo or refuse, before anything is written.
    const refused = [
      ...referencesOnDeletedItems(org, liveOrg, acc.changes, ctx.ignored, ctx.kinds),
      ...ctx.kinds.flatMap((kind) => kind.refusePlan?.(org, liveOrg, acc.changes) ?? []),
    ];
    if (refused.length > 0) throw new PlanError(refused.join("\n"));
  }
  const targets = options.targets && options.targets.length > 0 ? options.targets : undefined;
  return finishPlan({
    orgs,
    // No change, nothing to mask: the walk for the config's secrets is ~70 ms at 40,000
    // items, on the no-change plan's critical path (issue 33).
    changes:
      acc.changes.length === 0
        ? []
        : maskedUrls(maskLiveSecrets(acc.changes, resolvedSecretValues(desired)), options),
    unverified: acc.unverified,
    skipped: acc.skipped,
    unresolvedCreates: acc.unresolvedCreates,
    warnings: acc.warnings,
    collections: [...acc.collections.values()],
    // No `--target` and an empty list mean the same: everything is planned.
    targets: targets,
    matchTarget: targets === undefined ? undefined : globMatcher(targets),
    ...(options.excludes && options.excludes.length > 0 ? { excludes: options.excludes } : {}),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.within === undefined ? {} : { within: options.within }),
    skipSecrets: options.skipSecrets ?? false,
    kept: acc.kept,
    ignoredFields: acc.ignoredFields,
    configDigest: options.configDigest ?? planConfigDigest(desired.orgs),
    unknown: acc.unknown,
    ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
  });
};

/**
 * `delete_unknown` entries that named no unknown live item. Decision: when an entry names
 * something else — its id is a live item's that Waybill can name or that stands at another
 * address, or its address holds an unknown item with another id — it is an error before
 * any write, at the entry: the entry is the one way to delete what Waybill cannot name, and
 * a mistaken one must not pass for a delete done. When no live item read has its id at all,
 * the item is gone (deleted by the last apply, or by hand): a warning that writes nothing,
 * so a re-run after the delete (or after a kill right after it) converges instead of
 * failing every plan until the entry is removed.
 */
const unmatchedDeleteUnknown = (org: DesiredOrg, acc: Acc): void => {
  const matched = new Set(acc.deletedUnknown);
  const liveIds = new Set(acc.liveIdsOfUnknownKinds);
  const unknownAt = new Set(acc.unknown.map((u) => normalAddress(u.address)));
  const problems: string[] = [];
  for (const e of org.delete_unknown ?? []) {
    if (matched.has(deleteUnknownKey(org.slug, e.address, e.id))) continue;
    const where = `${formatLocation(e.source)}: delete_unknown names ${e.address} with id ${e.id}`;
    if (liveIds.has(`${org.slug}\u0000${e.id}`) || unknownAt.has(normalAddress(e.address))) {
      problems.push(
        `${where}, but plan lists no unknown live item with that address and id (the id may be another item's, the item may be one Waybill can name, or \`ignore\` may exclude it): remove the entry, or copy the address and id plan lists under "Unknown"`,
      );
    } else {
      acc.warnings.push(
        `${where}, and no live item read has that id: nothing is deleted (if the item was deleted, remove the entry; if its collection is not managed by the config, it was not read)`,
      );
    }
  }
  if (problems.length > 0) throw new PlanError(problems.join("\n"));
};

/** design.md §4 "Integration": URLs masked unless `--show-urls` (src/plan/mask-urls.ts). */
const maskedUrls = (changes: Change[], options: PlanOptions): Change[] =>
  options.showUrls === true ? changes : maskPlanUrls(changes);
