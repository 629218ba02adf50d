/**
 * Issue 28: what the plan refuses, before anything is written, because the service would
 * undo or refuse it: a declared restriction naming a group this plan deletes (or re-creates
 * with a new id), and removing a context's last group restriction while the org requires one.
 */
import { describe, expect, it } from "vitest";
import { PlanError } from "../../src/core/errors.js";
import type { DesiredGroup, DesiredOrg, DesiredRestriction } from "../../src/model/desired.js";
import type { LiveGroup, LiveOrg } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  dContext,
  desired,
  dOrg,
  lContext,
  live,
  lOrg,
  lRestriction,
  rExpr,
} from "../helpers/builders.js";

const OLD_ID = "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a";
const PLATFORM_ID = "1d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a";
const at = (line: number, col: number) => ({ file: "org.yaml", line, col });

const rGroupAt = (group: string, line: number): DesiredRestriction => ({
  type: "group",
  group,
  source: at(line, 9),
});
const dGroup = (name: string, line: number, description?: string): DesiredGroup => ({
  name,
  source: at(line, 3),
  ...(description === undefined ? {} : { description }),
});
const withGroups = (org: DesiredOrg, groups: DesiredGroup[]): DesiredOrg => ({
  ...org,
  groups: new Map(groups.map((g) => [g.name, g])),
  groups_source: at(2, 1),
});
const liveGroups = (org: LiveOrg, groups: LiveGroup[]): LiveOrg => ({ ...org, groups });

const LIVE_GROUPS: LiveGroup[] = [
  { id: OLD_ID, name: "old-team", description: "" },
  { id: PLATFORM_ID, name: "platform", description: "" },
];
const liveDeploy = (pattern: string, key: string) =>
  lContext("deploy", { restrictions: [lRestriction("group", key, { pattern })] });

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (e) {
    if (e instanceof PlanError) return e.message;
    throw e;
  }
  throw new Error("the plan was not refused");
};

describe("a restriction naming a group this plan deletes", () => {
  it("by name: refused, naming the restriction's line and the groups: map", () => {
    const message = refusal(() =>
      planChanges(
        desired(
          withGroups(
            dOrg({ contexts: [dContext("deploy", { restrictions: [rGroupAt("old-team", 7)] })] }),
            [dGroup("platform", 3)],
          ),
        ),
        live(liveGroups(lOrg({ contexts: [liveDeploy(OLD_ID, "old-team")] }), LIVE_GROUPS)),
      ),
    );
    expect(message).toBe(
      'context["deploy"].restriction["group:old-team"] (org.yaml:7:9) names group "old-team", which this plan deletes (group["old-team"]: not declared under groups at org.yaml:2:1); the service would delete the restriction with the group. Declare the group under groups to keep it, or remove the restriction',
    );
  });

  it("by id: refused the same way", () => {
    const message = refusal(() =>
      planChanges(
        desired(
          withGroups(
            dOrg({ contexts: [dContext("deploy", { restrictions: [rGroupAt(OLD_ID, 8)] })] }),
            [dGroup("platform", 3)],
          ),
        ),
        live(liveGroups(lOrg({ contexts: [liveDeploy(OLD_ID, OLD_ID)] }), LIVE_GROUPS)),
      ),
    );
    expect(message).toMatch(
      /^context\["deploy"\]\.restriction\["group:0d1e.*"\] \(org\.yaml:8:9\) names group "old-team", which this plan deletes \(group\["old-team"\]: not declared under groups at org\.yaml:2:1\)/,
    );
  });

  it("by the id of a group this plan re-creates: refused, naming the group's line", () => {
    const message = refusal(() =>
      planChanges(
        desired(
          withGroups(
            dOrg({ contexts: [dContext("deploy", { restrictions: [rGroupAt(OLD_ID, 8)] })] }),
            [dGroup("old-team", 3, "a new text"), dGroup("platform", 4)],
          ),
        ),
        live(liveGroups(lOrg({ contexts: [liveDeploy(OLD_ID, OLD_ID)] }), LIVE_GROUPS)),
      ),
    );
    expect(message).toMatch(
      /\(org\.yaml:8:9\) names group "old-team" by its id ".*", which this plan re-creates with a new id \(group\["old-team"\] at org\.yaml:3:3\);.*- group: old-team/,
    );
  });

  it("by the name of a group this plan re-creates: planned (the restriction gets the new id)", () => {
    const plan = planChanges(
      desired(
        withGroups(
          dOrg({ contexts: [dContext("deploy", { restrictions: [rGroupAt("old-team", 8)] })] }),
          [dGroup("old-team", 3, "a new text"), dGroup("platform", 4)],
        ),
      ),
      live(liveGroups(lOrg({ contexts: [liveDeploy(OLD_ID, "old-team")] }), LIVE_GROUPS)),
    );
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toContain(
      'replace group["old-team"]',
    );
  });
});

describe("removing a context's last group restriction while the org requires one", () => {
  const plan = (settings: Record<string, boolean> | undefined, keep: DesiredRestriction[]) =>
    planChanges(
      desired(
        dOrg({
          ...(settings === undefined ? {} : { settings }),
          contexts: [dContext("deploy", { restrictions: [rExpr("pipeline.x == 1"), ...keep] })],
        }),
      ),
      live(
        lOrg({
          settings: { is_context_group_restriction_required: true },
          contexts: [lContext("deploy", { restrictions: [lRestriction("group", "all-members")] })],
        }),
      ),
    );

  it("is refused like a new context without one", () => {
    expect(refusal(() => plan(undefined, []))).toBe(
      'context["deploy"] (waybill.yaml:1:1): the org setting is_context_group_restriction_required is true, and this plan removes the context\'s last group restriction, so nobody could use it; keep a group restriction in its restrictions (e.g. - group: all-members, or a group id)',
    );
  });

  it("is planned when the config keeps a group restriction, or turns the setting off", () => {
    const kept = plan(undefined, [rGroupAt("all-members", 9)]);
    expect(kept.changes.map((c) => c.action)).toEqual(["create"]);
    const off = plan({ is_context_group_restriction_required: false }, []);
    expect(off.changes.map((c) => `${c.action} ${c.resource_type}`).sort()).toEqual([
      "create context_restriction",
      "delete context_restriction",
      "update org_settings",
    ]);
  });
});
