/**
 * Apply locks only to write (issue 29): it plans without the org lock, and an apply that has
 * nothing to change, that a guard or the stale check refuses, or whose reads fail makes
 * zero write requests (counted at the emulator's request log), its lock included. Only a plan
 * that writes takes the lock, and it reads the live state again under it: a change that
 * landed between the plan and the lock is planned again (no duplicate), or refuses a saved
 * plan as stale. Runs the CLI in-process against the emulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";
import { duplicates } from "./apply-fixture.js";

const ORG_ID = "0a290000-0000-4000-8000-0000000000aa";
const API_ID = "0b290000-0000-4000-8000-0000000000aa";
const TEAM_ORG = "5a290000-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const TEAM_SLUG = `circleci/${TEAM_ORG}`;
const URL_ = "https://hooks.example.com/services/T29";

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      contexts: ["keep", "extra-1", "extra-2", "extra-3", "extra-4"].map((name) => ({ name })),
      projects: [{ id: API_ID, slug: "api" }, { slug: "old-repo" }],
    },
    {
      id: TEAM_ORG,
      slug: TEAM_SLUG,
      name: "team",
      groups: [{ name: "old-team", description: "kept by hand" }],
    },
  ],
});

const hooks = (n: number): string =>
  [
    "org: gh/acme",
    "projects:",
    "  gh/acme/api:",
    "    webhooks:",
    ...Array.from({ length: n }, (_, i) => [
      `      hook${i}:`,
      `        url: ${URL_}`,
      "        events: [workflow-completed]",
    ]).flat(),
    "",
  ].join("\n");

const webhookBody = (name: string) => ({
  data: {
    attributes: { name, scope: "project", url: URL_, events: ["workflow-completed"] },
    references: { project: { id: API_ID } },
  },
});

describe("apply locks only to write", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  const files: Record<string, string> = {};
  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    files.hooks = await tmp.write("hooks.yaml", hooks(4));
    files.massDelete = await tmp.write("mass.yaml", "org: gh/acme\ncontexts:\n  keep: {}\n");
    files.projectDelete = await tmp.write(
      "project.yaml",
      "org: gh/acme\nprojects:\n  gh/acme/old-repo:\n    delete: true\n",
    );
    files.group = await tmp.write(
      "group.yaml",
      `org: ${TEAM_SLUG}\ngroups:\n  old-team: { description: a new text }\n`,
    );
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  beforeEach(async () => {
    await emulator.reset(seed());
    await emulator.clearRequests();
  });

  const run = (args: readonly string[]) =>
    runInProcess(args, {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      NO_COLOR: "1",
    });
  const writes = async (): Promise<string[]> =>
    (await emulator.requests()).filter((r) => r.method !== "GET").map((r) => r.route);

  it("a plan with no change: exit 0, zero writes, no lock", async () => {
    expect((await run(["apply", "-c", files.hooks!, "--auto-approve"])).code).toBe(0);
    await emulator.clearRequests();
    const r = await run(["apply", "-c", files.hooks!, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("No changes");
    expect(await writes()).toEqual([]);
  });

  it.each([
    ["the mass-delete guard", "massDelete", /--allow-mass-delete/],
    ["the project-delete guard", "projectDelete", /--allow-project-delete/],
    ["the group re-create guard", "group", /re-creates group\["old-team"\].*--allow-mass-delete/],
  ])("a plan refused by %s: exit 4, zero writes", async (_label, file, message) => {
    const r = await run(["apply", "-c", files[file]!, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(message);
    expect(await writes()).toEqual([]);
  });

  it("a stale saved plan: exit 3, zero writes", async () => {
    const out = tmp.path("plan.json");
    const saved = await run(["plan", "-c", files.hooks!, "--out", out]);
    expect(saved.code, saved.stderr).toBe(0);
    // Someone creates one of the planned webhooks by hand: the saved plan is stale.
    await emulator.call("POST", "/api/v3/webhooks", webhookBody("hook0"));
    await emulator.clearRequests();
    const r = await run(["apply", "-c", files.hooks!, out]);
    expect(r.code, r.stderr).toBe(3);
    expect(await writes()).toEqual([]);
  });

  it.each([
    ["truncated JSON", { status: 200, body: '{"data": [{"id": "0c29' }],
    ["a 200 without data", { status: 200, json: { page: { next: null } } }],
    ["data that is not a list", { status: 200, json: { data: {} } }],
  ])("a read that fails (%s): exit 1, zero writes", async (_label, answer) => {
    // Only the plan's own reads (the project's webhooks), not the lock's: the lock comes
    // after the plan, so no claim may be written either.
    await emulator.script([{ method: "GET", path: "/api/v3/webhooks", times: 50, ...answer }]);
    const r = await run(["apply", "-c", files.hooks!, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(1);
    expect(await writes()).toEqual([]);
  });

  it("a change that lands between the plan and the lock is planned again under it: no duplicate", async () => {
    // Another client creates hook0 as the claim is written (after the plan was made).
    await emulator.script([
      {
        method: "POST",
        path: "/api/v3/contexts",
        after: [{ method: "POST", path: "/api/v3/webhooks", json: webhookBody("hook0") }],
      },
    ]);
    const r = await run(["apply", "-c", files.hooks!, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("planned again under the lock");
    const state = await emulator.state();
    expect(duplicates(state)).toEqual([]);
    const webhooks = state.orgs?.[0]?.projects?.find((p) => p.id === API_ID)?.webhooks ?? [];
    expect(webhooks.map((w) => w.name).sort()).toEqual(["hook0", "hook1", "hook2", "hook3"]);
  });

  it("a saved plan that a change under the lock makes stale: exit 3, nothing applied", async () => {
    const out = tmp.path("plan-lock.json");
    expect((await run(["plan", "-c", files.hooks!, "--out", out])).code).toBe(0);
    await emulator.script([
      {
        method: "POST",
        path: "/api/v3/contexts",
        after: [{ method: "POST", path: "/api/v3/webhooks", json: webhookBody("hook0") }],
      },
    ]);
    await emulator.clearRequests();
    const r = await run(["apply", "-c", files.hooks!, out]);
    expect(r.code, r.stderr).toBe(3);
    expect((await writes()).filter((w) => !w.includes("/contexts"))).toEqual([]);
  });
});
