/**
 * `--changed-since` and references (design.md §5 "Scoped plans and the reviewed plan"): a
 * change to an item others name changes those referrers too, though not a word of theirs
 * changed. A group's description change re-creates the group with a new id; the service
 * deletes the context restrictions that name it, and the SSO mappings must be sent again with
 * the new id. The partial plan must plan what the full plan plans: before, it re-created the
 * group alone, and after its apply the context had lost its group restriction (anyone in the
 * org could use it). And the full apply of that change must run: the old restriction's
 * delete (before the old group's) and the new one's create (after the new group) made a
 * cycle with "a context's restrictions are created before they are deleted", and apply
 * refused the plan.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { commitBase } from "../helpers/git-repo.js";

// A standalone org: the service creates groups there only.
const ORG = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const GROUP = "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a";

const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      slug: ORG,
      groups: [{ id: GROUP, name: "platform", description: "before" }],
      sso_group_mappings: [{ idp_group_name: "okta-platform", group: GROUP }],
      contexts: [
        { name: "deploy", restrictions: [{ restriction_type: "group", match_pattern: GROUP }] },
        { name: "build", env: { REGION: "eu" } },
      ],
    },
  ],
});

const config = (description: string) =>
  [
    `org: ${ORG}`,
    "groups:",
    "  platform:",
    `    description: ${description}`,
    "sso_group_mappings:",
    "  - idp_group_name: okta-platform",
    "    group: platform",
    "contexts:",
    "  deploy:",
    "    restrictions:",
    "      - group: platform",
    "  build:",
    "    env:",
    "      REGION: eu",
    "",
  ].join("\n");

describe("plan --changed-since: the referrers of a changed item", () => {
  const suite = useEmulatorSuite(seed, {});
  /** The context is still restricted to the group, under its new id; the mapping follows. */
  const expectFollowsTheNewGroup = async (file: string): Promise<void> => {
    const after = (await suite.emulator.state()).orgs?.[0];
    const group = after?.groups?.find((g) => g.name === "platform");
    expect(group?.id).toBeDefined();
    expect(group?.id).not.toBe(GROUP);
    const deploy = after?.contexts?.find((c) => c.name === "deploy");
    expect(deploy?.restrictions?.map((r) => `${r.restriction_type}:${r.match_pattern}`)).toEqual([
      `group:${group?.id}`,
    ]);
    expect(after?.sso_group_mappings?.map((m) => m.group)).toEqual([group?.id]);
    const again = await suite.run(["plan", "-c", file, "--detailed-exitcode"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  };
  const changes = (stdout: string) =>
    (JSON.parse(stdout).changes as { address: string; action: string }[])
      .map((c) => `${c.action} ${c.address}`)
      .sort();

  it("a re-created group brings the restrictions and SSO mappings naming it into the partial plan", async () => {
    const dir = join(suite.tmp.dir, "repo");
    await mkdir(dir, { recursive: true });
    const file = join(dir, "waybill.yaml");
    await writeFile(file, config("before"));
    commitBase(dir);
    await writeFile(file, config("after"));

    const full = await suite.run(["plan", "-c", file, "--format", "json"]);
    expect(full.code, full.stderr).toBe(0);
    const part = await suite.run([
      "plan",
      "-c",
      file,
      "--changed-since",
      "HEAD",
      "--format",
      "json",
    ]);
    expect(part.code, part.stderr).toBe(0);
    expect(JSON.parse(part.stdout).scope).toBeDefined();
    expect(changes(part.stdout)).toEqual(changes(full.stdout));
    expect(changes(part.stdout)).toEqual(
      expect.arrayContaining([
        'replace group["platform"]',
        'create context["deploy"].restriction["group:platform"]',
        "update sso_group_mappings",
      ]),
    );
    // The unrelated context is not read: its env vars' listing is not in the log.
    const state = await suite.emulator.state();
    const build = state.orgs?.[0]?.contexts?.find((c) => c.name === "build");
    await suite.emulator.clearRequests();
    const apply = await suite.run([
      "apply",
      "-c",
      file,
      "--changed-since",
      "HEAD",
      "--auto-approve",
      "--allow-mass-delete",
    ]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const read = (await suite.emulator.requests()).map((q) => `${q.method} ${q.path}`);
    expect(read.some((r) => build?.id !== undefined && r.includes(build.id))).toBe(false);
    await expectFollowsTheNewGroup(file);
  });

  it("a full apply re-creates the group, then the restriction and the mapping that name it", async () => {
    const file = await suite.tmp.write("full.yaml", config("after"));
    const apply = await suite.run(["apply", "-c", file, "--auto-approve", "--allow-mass-delete"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    await expectFollowsTheNewGroup(file);
  });
});
