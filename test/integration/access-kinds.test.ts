/**
 * Issue 17: org groups (V2 /organizations/{org_id}/groups) planned, applied, drifted and
 * exported against the emulator over loopback.
 * - key = name; present = authoritative; no update route, so a description change is a
 *   replace; a delete or replace removes the group's members and role grants: the plan says
 *   so in words and apply refuses it (exit 4) without --allow-mass-delete, changing nothing;
 * - the service creates groups in standalone orgs only: elsewhere the refusal says why;
 * - the emulator removes the restrictions that name a deleted group.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

// A standalone org: its slug is the service's own provider and the org id (api-v2-v1.md).
const ORG = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const GROUP_OLD = "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a";

const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      slug: ORG,
      groups: [{ id: GROUP_OLD, name: "old-team", description: "kept by hand" }],
      contexts: [
        {
          name: "deploy",
          restrictions: [{ restriction_type: "group", match_pattern: GROUP_OLD }],
        },
      ],
    },
    { slug: "gh/acme" },
  ],
});

const groups = (entries: string) => `org: ${ORG}\ngroups:\n${entries}`;

/** A context restricted to one group, by the value written (a name, an id, all-members). */
const restricted = (group: string, declare = "") =>
  `org: ${ORG}\n${declare}contexts:\n  deploy:\n    restrictions:\n      - group: ${group}\n`;

describe("groups", () => {
  const suite = useEmulatorSuite(seed, {
    create: {
      name: "create.yaml",
      content: groups(
        "  old-team: { description: kept by hand }\n  platform: { description: Platform engineers }\n  release-managers: {}\n",
      ),
    },
    describe: {
      name: "describe.yaml",
      content: groups("  old-team: { description: a new text }\n"),
    },
    unwritten: { name: "unwritten.yaml", content: groups("  old-team: {}\n") },
    remove: { name: "remove.yaml", content: groups("  platform: {}\n") },
    vcsOrg: { name: "vcs.yaml", content: "org: gh/acme\ngroups:\n  platform: {}\n" },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });
  const groupsOf = async (slug = ORG) =>
    (await suite.emulator.state()).orgs?.find((o) => o.slug === slug)?.groups ?? [];
  const restrictionsOf = async () =>
    (await suite.emulator.state()).orgs
      ?.find((o) => o.slug === ORG)
      ?.contexts?.find((c) => c.name === "deploy")?.restrictions ?? [];
  type JsonPlan = {
    changes: { address: string; resource_type: string; action: string; reason: string }[];
    guards: { destroys?: { address: string; action: string; destroys: string }[] };
  };
  const jsonPlan = async (file: string): Promise<JsonPlan> => {
    const r = await runInProcess(["plan", "-c", file, "--format", "json"], env());
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as JsonPlan;
  };

  it("creates groups by name, and the next plan is empty", async () => {
    const plan = await jsonPlan(suite.files.create);
    expect(plan.changes.map((c) => [c.address, c.resource_type, c.action])).toEqual([
      ['group["platform"]', "group", "create"],
      ['group["release-managers"]', "group", "create"],
    ]);
    expect(plan.guards.destroys).toBeUndefined();
    const r = await runInProcess(["apply", "-c", suite.files.create, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect((await groupsOf()).map((g) => [g.name, g.description ?? ""]).sort()).toEqual([
      ["old-team", "kept by hand"],
      ["platform", "Platform engineers"],
      ["release-managers", ""],
    ]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.create, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("a description change re-creates the group: said in words, refused without --allow-mass-delete", async () => {
    const plan = await jsonPlan(suite.files.describe);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['group["old-team"]', "replace"],
    ]);
    expect(plan.changes[0]?.reason).toMatch(/members and role grants/);
    expect(plan.guards.destroys?.map((g) => [g.address, g.action])).toEqual([
      ['group["old-team"]', "replace"],
    ]);
    const text = await runInProcess(["plan", "-c", suite.files.describe], env());
    expect(text.stdout).toMatch(
      /Re-creates group\["old-team"\]: .*members and role grants.*--allow-mass-delete/,
    );

    const refused = await runInProcess(
      ["apply", "-c", suite.files.describe, "--auto-approve"],
      env(),
    );
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toMatch(/re-creates group\["old-team"\].*--allow-mass-delete/);
    expect(await groupsOf()).toEqual([
      { id: GROUP_OLD, name: "old-team", description: "kept by hand" },
    ]);

    const done = await runInProcess(
      ["apply", "-c", suite.files.describe, "--auto-approve", "--allow-mass-delete"],
      env(),
    );
    expect(done.code, done.stderr + done.stdout).toBe(0);
    const after = await groupsOf();
    expect(after.map((g) => [g.name, g.description])).toEqual([["old-team", "a new text"]]);
    expect(after[0]?.id).not.toBe(GROUP_OLD);
    // The old group's restriction went with it (the service removes what names it).
    expect(await restrictionsOf()).toEqual([]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.describe, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout).toBe(0);
  });

  it("a description the config does not write is not managed (no replace)", async () => {
    const plan = await jsonPlan(suite.files.unwritten);
    expect(plan.changes).toEqual([]);
  });

  it("a group left out of an authoritative map is deleted only with --allow-mass-delete", async () => {
    const plan = await jsonPlan(suite.files.remove);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['group["old-team"]', "delete"],
      ['group["platform"]', "create"],
    ]);
    expect(plan.guards.destroys?.map((g) => g.address)).toEqual(['group["old-team"]']);
    const refused = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve"],
      env(),
    );
    expect(refused.code).toBe(4);
    // Refused before any write: nothing was created either.
    expect((await groupsOf()).map((g) => g.name)).toEqual(["old-team"]);
    const done = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve", "--allow-mass-delete"],
      env(),
    );
    expect(done.code, done.stderr + done.stdout).toBe(0);
    expect((await groupsOf()).map((g) => g.name)).toEqual(["platform"]);
  });

  it("refuses groups: in an org tied to a VCS provider at its line, before any request", async () => {
    // Issue 28: the service creates groups in standalone orgs only; the refusal came from the
    // service mid-apply (17 done, 1 failed). validate (offline) and plan/apply say it first.
    await suite.emulator.clearRequests();
    for (const args of [
      ["validate", "-c", suite.files.vcsOrg],
      ["plan", "-c", suite.files.vcsOrg],
      ["apply", "-c", suite.files.vcsOrg, "--auto-approve"],
    ]) {
      const r = await runInProcess(args, env());
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr + r.stdout).toMatch(/vcs\.yaml:2:1: groups: .*standalone orgs only/);
    }
    expect(await suite.emulator.requests()).toEqual([]);
    expect(await groupsOf("gh/acme")).toEqual([]);
  });

  it("drift lists a live group the config does not declare; export writes groups by name", async () => {
    const drift = await runInProcess(["drift", "-c", suite.files.remove], env());
    expect(drift.stdout + drift.stderr).toMatch(/group\["old-team"\]/);
    const out = await runInProcess(["export", "--org", ORG], env());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/groups:\n\s+old-team:\n\s+description: kept by hand/);
  });
});

describe("groups by name in restrictions", () => {
  const suite = useEmulatorSuite(seed, {
    // release-managers does not exist yet: created by the same apply, before the restriction.
    newGroup: {
      name: "new.yaml",
      content: restricted(
        "release-managers",
        "groups:\n  old-team: {}\n  release-managers: { description: Ship it }\n",
      ),
    },
    liveByName: { name: "live.yaml", content: restricted("old-team") },
    byId: { name: "id.yaml", content: restricted(GROUP_OLD) },
    typo: { name: "typo.yaml", content: restricted("old-tema") },
    // old-team is live and left out of groups: this plan deletes it.
    dropsGroup: {
      name: "drops.yaml",
      content: restricted("old-team", "groups:\n  platform: {}\n"),
    },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });
  const org = async () => (await suite.emulator.state()).orgs?.find((o) => o.slug === ORG);

  it("a group the same apply creates: group first, then the restriction with its new id", async () => {
    const plan = await runInProcess(
      ["plan", "-c", suite.files.newGroup, "--format", "json"],
      env(),
    );
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: { address: string; action: string; depends_on: string[] }[];
      }
    ).changes;
    expect(changes.map((c) => [c.address, c.action, c.depends_on])).toEqual([
      ['context["deploy"].restriction["group:old-team"]', "delete", []],
      [
        'context["deploy"].restriction["group:release-managers"]',
        "create",
        ['group["release-managers"]'],
      ],
      ['group["release-managers"]', "create", []],
    ]);
    const r = await runInProcess(["apply", "-c", suite.files.newGroup, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const o = await org();
    const made = o?.groups?.find((g) => g.name === "release-managers");
    expect(made?.id).toBeDefined();
    expect(o?.contexts?.find((c) => c.name === "deploy")?.restrictions).toEqual([
      expect.objectContaining({ restriction_type: "group", match_pattern: made?.id }),
    ]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.newGroup, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("a live group by name, or by id, is the restriction the org has: no change", async () => {
    for (const file of [suite.files.liveByName, suite.files.byId]) {
      const r = await runInProcess(["plan", "-c", file, "--detailed-exitcode"], env());
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }
  });

  it("an unknown name is an error with file:line:col and a suggestion, before any write", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.typo, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /typo\.yaml:5:\d+: contexts\.deploy\.restrictions\.0\.group: no group "old-tema" .*did you mean "old-team"\?/,
    );
    // Only the org lock's claim and release (a context of its own, src/lock) were written.
    const writes = (await suite.emulator.requests()).filter(
      (q) => q.method !== "GET" && !q.path.startsWith("/api/v3/contexts"),
    );
    expect(writes).toEqual([]);
  });

  it("a restriction naming a group the same plan deletes is refused, naming both places, before any write", async () => {
    // Issue 28: the service deletes the restriction with the group; the apply succeeded and
    // the next plan failed.
    await suite.emulator.clearRequests();
    const r = await runInProcess(["apply", "-c", suite.files.dropsGroup, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /context\["deploy"\]\.restriction\["group:old-team"\] \(.*drops\.yaml:7:9\) names group "old-team", which this plan deletes \(group\["old-team"\]: not declared under groups at .*drops\.yaml:2:1\)/,
    );
    const writes = (await suite.emulator.requests()).filter(
      (q) => q.method !== "GET" && !q.path.startsWith("/api/v3/contexts"),
    );
    expect(writes).toEqual([]);
    expect((await org())?.groups?.map((g) => g.name)).toEqual(["old-team"]);
  });

  it("export writes a group restriction by the group's name", async () => {
    const out = await runInProcess(["export", "--org", ORG], env());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/restrictions:\n\s+- group: old-team/);
  });

  it("converges under uncertain creates: each group once, the restriction on it", async () => {
    await suite.emulator.setFaults({ seed: 7, rate_commit_then_fail: 0.5, methods: ["POST"] });
    for (let run = 0; run < 6; run++) {
      const r = await runInProcess(["apply", "-c", suite.files.newGroup, "--auto-approve"], env());
      if (r.code === 0) break;
    }
    await suite.emulator.setFaults({});
    const again = await runInProcess(
      ["plan", "-c", suite.files.newGroup, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const o = await org();
    expect(o?.groups?.map((g) => g.name).sort()).toEqual(["old-team", "release-managers"]);
    const made = o?.groups?.find((g) => g.name === "release-managers");
    expect(o?.contexts?.find((c) => c.name === "deploy")?.restrictions).toEqual([
      expect.objectContaining({ match_pattern: made?.id }),
    ]);
  });
});

describe("SSO group mappings", () => {
  const GROUP_PLATFORM = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
  const mappingSeed = (): Seed => ({
    tokens: [{ token: TEST_TOKEN }],
    orgs: [
      {
        slug: ORG,
        groups: [
          { id: GROUP_OLD, name: "old-team" },
          { id: GROUP_PLATFORM, name: "platform" },
        ],
        sso_group_mappings: [
          { idp_group_name: "okta-old", group: GROUP_OLD },
          { idp_group_name: "okta-platform", group: GROUP_PLATFORM },
        ],
      },
    ],
  });
  const mappings = (pairs: string, declare = "") =>
    `org: ${ORG}\n${declare}sso_group_mappings:\n${pairs}`;
  const suite = useEmulatorSuite(mappingSeed, {
    // The same set, in another order, one group by id: no change (compared as a set).
    same: {
      name: "same.yaml",
      content: mappings(
        `  - { idp_group_name: okta-platform, group: platform }\n  - { idp_group_name: okta-old, group: ${GROUP_OLD} }\n`,
      ),
    },
    // A new group declared and mapped, old-team's pair dropped, then old-team deleted.
    change: {
      name: "change.yaml",
      content: mappings(
        "  - { idp_group_name: okta-platform, group: platform }\n  - { idp_group_name: okta-release, group: release-managers }\n",
        "groups:\n  platform: {}\n  release-managers: {}\n",
      ),
    },
    typo: {
      name: "typo.yaml",
      content: mappings("  - { idp_group_name: okta-platform, group: platfrom }\n"),
    },
    none: { name: "none.yaml", content: mappings("  []\n").replace(":\n  []", ": []") },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });
  const org = async () => (await suite.emulator.state()).orgs?.find((o) => o.slug === ORG);

  it("compares the pairs as a set: another order, a group by id or by name, no change", async () => {
    const r = await runInProcess(["plan", "-c", suite.files.same, "--detailed-exitcode"], env());
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it("one PUT of the whole set, after the group it names is created, before the dropped group is deleted", async () => {
    const plan = await runInProcess(["plan", "-c", suite.files.change, "--format", "json"], env());
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: { address: string; resource_type: string; action: string; depends_on: string[] }[];
      }
    ).changes;
    expect(changes.map((c) => [c.address, c.resource_type, c.action, c.depends_on])).toEqual([
      ['group["old-team"]', "group", "delete", []],
      ['group["release-managers"]', "group", "create", []],
      ["sso_group_mappings", "sso_group_mappings", "update", ['group["release-managers"]']],
    ]);
    const r = await runInProcess(
      ["apply", "-c", suite.files.change, "--auto-approve", "--allow-mass-delete"],
      env(),
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const o = await org();
    const made = o?.groups?.find((g) => g.name === "release-managers");
    expect(o?.sso_group_mappings).toEqual([
      { idp_group_name: "okta-platform", group: GROUP_PLATFORM },
      { idp_group_name: "okta-release", group: made?.id },
    ]);
    expect(o?.groups?.map((g) => g.name).sort()).toEqual(["platform", "release-managers"]);
    // The PUT that dropped old-team's pair ran before old-team was deleted.
    const log = (await suite.emulator.requests()).filter((q) => q.method !== "GET");
    const put = log.findIndex((q) => q.method === "PUT");
    const del = log.findIndex((q) => q.method === "DELETE" && q.path.includes(GROUP_OLD));
    expect(put).toBeGreaterThanOrEqual(0);
    expect(del).toBeGreaterThan(put);
    const again = await runInProcess(
      ["plan", "-c", suite.files.change, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("[] removes every pair", async () => {
    // Issue 45: emptying the mappings is a risky transition, allowed for this run.
    const r = await runInProcess(
      ["apply", "-c", suite.files.none, "--auto-approve", "--allow-risky", "sso-mappings-emptied"],
      env(),
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect((await org())?.sso_group_mappings).toEqual([]);
  });

  it("an unknown group name is an error with file:line:col, before any write", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.typo, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /typo\.yaml:3:\d+: sso_group_mappings\.0\.group: no group "platfrom" .*did you mean "platform"\?/,
    );
    expect((await suite.emulator.requests()).filter((q) => q.method === "PUT")).toEqual([]);
  });

  it("export writes the pairs by group name", async () => {
    const out = await runInProcess(["export", "--org", ORG], env());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(
      /sso_group_mappings:\n\s+- idp_group_name: okta-old\n\s+group: old-team\n\s+- idp_group_name: okta-platform\n\s+group: platform/,
    );
  });
});

describe("access as code: export, then plan", () => {
  const GROUP_PLATFORM = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
  const suite = useEmulatorSuite(
    (): Seed => ({
      tokens: [{ token: TEST_TOKEN }],
      orgs: [
        {
          slug: ORG,
          groups: [
            { id: GROUP_OLD, name: "old-team", description: "kept by hand" },
            { id: GROUP_PLATFORM, name: "platform" },
          ],
          sso_group_mappings: [{ idp_group_name: "okta-platform", group: GROUP_PLATFORM }],
          contexts: [
            {
              name: "deploy",
              restrictions: [
                { restriction_type: "group", match_pattern: GROUP_OLD },
                { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
              ],
            },
          ],
        },
      ],
    }),
    {},
  );
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });

  it("exports groups, mappings and group restrictions by name, and the plan of the export is empty", async () => {
    const out = await runInProcess(["export", "--org", ORG], env());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toContain(GROUP_OLD);
    expect(out.stdout).not.toContain(GROUP_PLATFORM);
    const file = await suite.tmp.write("exported.yaml", out.stdout);
    const plan = await runInProcess(["plan", "-c", file, "--detailed-exitcode"], env());
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
