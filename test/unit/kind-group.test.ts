/**
 * Org groups (src/kinds/group.ts; spec: api-v2-v1.md "Group", Endpoints (V2)), as pure code:
 * identity = name; no update route, so a written description that differs re-creates the
 * group (delete first), and every delete or replace says it takes the members and role
 * grants with it; an unwritten description is not managed. No secrets.
 */
import { describe, expect, it } from "vitest";
import type { KindEnv } from "../../src/kinds/contract.js";
import { GROUP_DESTROYS, groupKind } from "../../src/kinds/group.js";
import type { DesiredGroup, DesiredOrg } from "../../src/model/desired.js";
import type { LiveGroup, LiveOrg } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import { desired, dOrg, live, lOrg, source } from "../helpers/builders.js";

const env: KindEnv = {
  orgId: "org-1",
  projectId: () => undefined,
  refId: () => undefined,
  forceSecrets: false,
};

const dGroup = (name: string, description?: string): DesiredGroup => ({
  name,
  source,
  ...(description === undefined ? {} : { description }),
});
const lGroup = (name: string, description = "", id = `g:${name}`): LiveGroup => ({
  id,
  name,
  description,
});

const k = groupKind;

describe("group", () => {
  it("identity is the name; the id is the live id; there is no pin", () => {
    const l = lGroup("platform", "", "g-1");
    expect(k.desiredKey(dGroup("platform"))).toBe("platform");
    expect([k.liveKey(l), k.liveAddressKey(l), k.liveId(l)]).toEqual([
      "platform",
      "platform",
      "g-1",
    ]);
    expect(k.pinnedId(dGroup("platform"))).toBeUndefined();
  });

  it("an unwritten description is not managed; the service's none is the empty string", () => {
    expect(k.compare(dGroup("p"), lGroup("p", "set by hand"), env).fields).toEqual([]);
    expect(k.compare(dGroup("p", ""), lGroup("p", ""), env).fields).toEqual([]);
    expect(k.compare(dGroup("p", "Platform"), lGroup("p", "Platform"), env).fields).toEqual([]);
  });

  it("a written description that differs forces a replace (no update route), deleted first", () => {
    const c = k.compare(dGroup("p", "new"), lGroup("p", "old"), env);
    expect(c.fields).toEqual([
      { path: "description", before: "old", after: "new", forces_replacement: true },
    ]);
    expect(c.replace_reasons).toEqual([expect.stringMatching(/^description: .*no update route/)]);
    expect(k.updateCalls(c.fields)).toEqual([]);
    expect(k.replaceOrder).toBe("delete_before_create");
  });

  it("create and delete are V2 calls under the org; the delete says what it destroys", () => {
    const calls = [...k.createCalls(dGroup("p", "d")), ...k.deleteCalls()];
    expect(calls.map((c) => [c.phase, c.method, c.api, c.route, c.body, c.body_fields])).toEqual([
      ["create", "POST", "v2", "/organizations/{org_id}/groups", "flat", ["name", "description"]],
      ["delete", "DELETE", "v2", "/organizations/{org_id}/groups/{id}", "none", []],
    ]);
    expect(calls.flatMap((c) => c.sensitive_fields)).toEqual([]);
    expect(k.deleteCalls()[0]?.note).toBe(GROUP_DESTROYS);
    expect(k.destroys).toMatch(/members and role grants/);
  });

  it("the plan: a missing group is created, a changed one replaced, an undeclared one deleted", () => {
    // A standalone org (groups are the service's in those only, spec: api-v2-v1.md).
    const slug = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
    const org = (groups: DesiredGroup[]): DesiredOrg => ({
      ...dOrg({ slug }),
      groups: new Map(groups.map((g) => [g.name, g])),
    });
    const liveOrg = (groups: LiveGroup[]): LiveOrg => ({ ...lOrg({ slug }), groups });
    const p = planChanges(
      desired(org([dGroup("new"), dGroup("kept", "v2"), dGroup("same")])),
      live(liveOrg([lGroup("kept", "v1"), lGroup("same", "x"), lGroup("gone")])),
    );
    expect(p.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      'create group["new"]',
      'delete group["gone"]',
      'replace group["kept"]',
    ]);
  });

  it("export writes one entry per name, a description only when there is one; a shared name is ignored", () => {
    const out = k.toConfig(
      [lGroup("b", "Team B"), lGroup("a"), lGroup("dup", "", "g1"), lGroup("dup", "", "g2")],
      {},
      { env: () => expect.unreachable() as never },
    );
    expect(out.map((e) => ("written" in e ? [e.written, e.doc] : e.ignored.glob))).toEqual([
      ["a", {}],
      ["b", { description: "Team B" }],
      'group["dup"]',
    ]);
    const dup = out[2];
    expect(dup && "ignored" in dup && dup.ignored.reason).toMatch(/2 live groups .*ids g1, g2/);
  });

  it("an uncertain create is adopted by name (and the description, when written)", () => {
    expect(k.adopt.by).toBe("relist");
    if (k.adopt.by !== "relist") return;
    expect(k.adopt.matches(dGroup("p"), {}, lGroup("p", "any"))).toBe(true);
    expect(k.adopt.matches(dGroup("p", "x"), {}, lGroup("p", "y"))).toBe(false);
    expect(k.adopt.matches(dGroup("p"), {}, lGroup("q"))).toBe(false);
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/no update route/);
  });
});
