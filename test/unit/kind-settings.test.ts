import { describe, expect, it } from "vitest";
import { PlanError } from "../../src/core/errors.js";
import { KINDS } from "../../src/kinds/registry.js";
import { RESOURCE_TYPES } from "../../src/model/address.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dProject,
  live,
  lOrg,
  lProject,
  notVisible,
  PROJECT,
} from "../helpers/builders.js";

describe("the registry", () => {
  it("holds one kind per resource type, under its own name", () => {
    expect(Object.keys(KINDS).sort()).toEqual([...RESOURCE_TYPES].sort());
    for (const [name, kind] of Object.entries(KINDS)) expect(kind.type).toBe(name);
  });
});

describe("org settings", () => {
  const plan = (d: Record<string, boolean> | undefined, l: Record<string, boolean>) =>
    planChanges(desired(dOrg(d ? { settings: d } : {})), live(lOrg({ settings: l })));

  it.each<{
    name: string;
    d: Record<string, boolean> | undefined;
    l: Record<string, boolean>;
    want: string[];
  }>([
    { name: "no-op", d: { enable_private_orbs: true }, l: { enable_private_orbs: true }, want: [] },
    {
      name: "undeclared keys are left alone",
      d: { enable_private_orbs: true },
      l: { enable_private_orbs: true, enable_ai_agents: true },
      want: [],
    },
    { name: "unmanaged", d: undefined, l: { enable_ai_agents: true }, want: [] },
  ])("$name", ({ d, l, want }) => {
    expect(plan(d, l).changes.map((c) => c.address)).toEqual(want);
  });

  it("ignore", () => {
    const p = planChanges(
      desired(dOrg({ settings: { enable_private_orbs: true }, ignore: ["org_settings"] })),
      live(lOrg({ settings: { enable_private_orbs: false } })),
    );
    expect(p.changes).toEqual([]);
  });

  it("update sends only the declared keys that differ, in one call", () => {
    const p = plan(
      { enable_private_orbs: true, enable_ai_agents: false, is_running_disabled: false },
      { enable_private_orbs: false, enable_ai_agents: true, is_running_disabled: false },
    );
    expect(p.changes).toHaveLength(1);
    const c = p.changes[0];
    expect(c?.action).toBe("update");
    expect(c?.address).toBe("org_settings");
    expect(c?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/orgs/{org_id}/update-settings",
        body: "flat",
        body_fields: ["enable_ai_agents", "enable_private_orbs"],
      }),
    ]);
    expect(c?.after).not.toHaveProperty("source");
  });
});

describe("project settings", () => {
  const plan = (d: Record<string, boolean | string[]>, l: Record<string, boolean | string[]>) =>
    planChanges(
      desired(dOrg({ projects: [dProject(PROJECT, { settings: d })] })),
      live(lOrg({ projects: [lProject(PROJECT, { settings: l })] })),
    );

  it("pr_only_branch_overrides compare as a set", () => {
    expect(
      plan(
        { pr_only_branch_overrides: ["main", "release"] },
        { pr_only_branch_overrides: ["release", "main"] },
      ).changes,
    ).toEqual([]);
    const p = plan({ pr_only_branch_overrides: ["main"] }, { pr_only_branch_overrides: ["dev"] });
    expect(p.changes[0]?.fields).toEqual([
      { path: "pr_only_branch_overrides", before: ["dev"], after: ["main"] },
    ]);
  });

  it("update of a boolean uses update-settings with that key only", () => {
    const p = plan(
      { is_oss: true, enable_dynamic_config: true },
      { is_oss: false, enable_dynamic_config: true },
    );
    expect(p.changes[0]?.address).toBe('project["gh/acme/api"].settings');
    expect(p.changes[0]?.calls[0]).toMatchObject({
      route: "/projects/{project_id}/update-settings",
      body_fields: ["is_oss"],
    });
  });

  it("a project that is absent or not visible fails the plan (never a create over it)", () => {
    expect(() =>
      planChanges(
        desired(dOrg({ projects: [dProject(PROJECT, { settings: { is_oss: true } })] })),
        live(lOrg({ projects: [[PROJECT, notVisible()]] })),
      ),
    ).toThrow(PlanError);
    expect(() =>
      planChanges(
        desired(dOrg({ projects: [dProject(PROJECT, { env: {} })] })),
        live(lOrg({ projects: [[PROJECT, notVisible()]] })),
      ),
    ).toThrow(/absent or not visible/);
  });

  it("an org that was not read fails the plan", () => {
    expect(() => planChanges(desired(dOrg()), live())).toThrow(/absent or not visible/);
  });
});
