/**
 * Plans of single projects made ahead, as each project's reads finish (issue 22).
 */

/**
 * Plans of single projects made ahead, as each project's reads finish (issue 22).
 */

import type { DesiredConfig, DesiredProject } from "../model/desired.js";
import type { LiveOrg, LiveProject, NotVisible } from "../model/live.js";
import { planProject } from "./projects.js";
import { type Acc, globMatcher, mergeOrgs, newAcc, type OrgCtx, orgStatics } from "./state.js";
import type { PlanOptions } from "./types.js";

/** One project's share of the plan, made while the rest of the org was still being read. */
export interface ProjectPart {
  readonly dp: DesiredProject;
  readonly lp: LiveProject | NotVisible;
  readonly orgId: string;
  readonly acc: Acc;
}

/**
 * Plans of single projects made ahead, as each project's reads finish (issue 22: the main
 * thread is ~90 % idle during a large org's reads, and planning 40,000 items after the last
 * answer took ~0.6 s). `planChanges` uses a project's part only when it was made from the
 * very same desired and live objects and org id, and the part never asked for anything
 * org-wide (a project id by slug, a group by name): otherwise it plans the project again. A
 * project kind's plan depends on its project alone (src/kinds: only context restrictions
 * and SSO mappings look names up across the org), which test/unit/plan-ahead.test.ts checks.
 */
export interface PlanAhead {
  /** Plan the project `key` of the org now, from its live read. Never throws. */
  project(orgSlug: string, orgId: string, key: string, lp: LiveProject | NotVisible): void;
  /** The parts made, by `org\0key`. */
  readonly parts: ReadonlyMap<string, ProjectPart>;
}

export const planAhead = (desired: DesiredConfig, options: PlanOptions = {}): PlanAhead => {
  const orgs = new Map(mergeOrgs(desired.orgs).map((o) => [o.slug, o]));
  const forced = globMatcher(options.forceSecrets ?? []);
  const statics = new Map<string, Omit<OrgCtx, "env" | "acc">>();
  const parts = new Map<string, ProjectPart>();
  return {
    parts,
    project: (orgSlug, orgId, key, lp) => {
      const org = orgs.get(orgSlug);
      const dp = org?.projects.get(key);
      if (org === undefined || dp === undefined) return;
      let fixed = statics.get(orgSlug);
      if (fixed === undefined) {
        fixed = orgStatics(org, forced, options);
        statics.set(orgSlug, fixed);
      }
      let orgWide = false;
      const acc = newAcc();
      const ctx: OrgCtx = {
        ...fixed,
        env: {
          orgId,
          projectId: () => {
            orgWide = true;
            return undefined;
          },
          refId: () => {
            orgWide = true;
            return undefined;
          },
        },
        acc,
      };
      const liveOrg: LiveOrg = {
        status: "found",
        id: orgId,
        slug: orgSlug,
        projects: new Map([[key, lp]]),
      };
      try {
        planProject(ctx, { desired: org, live: liveOrg }, key, dp);
      } catch {
        return; // planned again by planChanges, which reports the error in its order
      }
      if (!orgWide) parts.set(`${orgSlug}\u0000${key}`, { dp, lp, orgId, acc });
    },
  };
};
