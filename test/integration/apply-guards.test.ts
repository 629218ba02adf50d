/**
 * What stops an apply before it writes (issue 5 "Done when"): a non-TTY apply without
 * --auto-approve, the mass-delete guard (exit 4), a stale saved plan (exit 3), a saved plan
 * for another service; and a saved plan that still matches is applied.
 */
import { readFile, stat } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { savedPlanMeta, writeSavedPlan } from "../../src/apply/saved-plan.js";
import { loadConfigOrThrow } from "../../src/config/index.js";
import type { Seed } from "../../src/emulator/seed.js";
import { runPlan } from "../../src/live/plan-run.js";
import { expectNoSecrets, makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { applyEnv, createConfig } from "./apply-fixture.js";
import {
  ALL_SECRETS,
  baseSeed,
  matchingConfig,
  matchingEnv,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

/** The base seed plus four contexts the matching config does not list (mass delete). */
const crowdedSeed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  return {
    ...s,
    orgs: [
      {
        ...org,
        contexts: [
          ...(org.contexts ?? []),
          ...[1, 2, 3, 4].map((n) => ({ name: `extra-${n}`, env: { K: `extra-value-${n}-xxxx` } })),
        ],
      },
      ...rest,
    ],
  };
};

describe("waybill apply: approval, guards, saved plans", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let createPath: string;
  let matchingPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    createPath = await tmp.write("create.yaml", createConfig);
    matchingPath = await tmp.write("matching.yaml", matchingConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const run = (args: string[], env: Readonly<Record<string, string>> = applyEnv) =>
    runCli(args, { baseUrl: emulator.url, token: emulator.token, env });

  /** `plan --out` as the plan command will do it (src/apply/saved-plan.ts writeSavedPlan). */
  const savePlan = async (configPath: string, out: string, baseUrl = emulator.url) => {
    const desired = await loadConfigOrThrow(configPath, { env: applyEnv, resolveSecrets: true });
    const api = createApiClient({ baseUrl: emulator.url, token: emulator.token });
    try {
      const { plan, live } = await runPlan(api.readOnly(), desired, {});
      await writeSavedPlan(out, plan, savedPlanMeta({ version: "test", baseUrl, desired, live }));
      return plan;
    } finally {
      await api.close();
    }
  };

  it("refuses a non-TTY apply without --auto-approve before any request", async () => {
    const r = await run(["apply", "-c", createPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--auto-approve/);
    expect(await emulator.requests()).toEqual([]);
  });

  it("blocks a mass delete with exit 4 and no write, unless --allow-mass-delete", async () => {
    await emulator.reset(crowdedSeed());
    await emulator.clearRequests();
    const r = await run(["apply", "-c", matchingPath, "--auto-approve"], matchingEnv);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/--allow-mass-delete/);
    expect((await emulator.requests()).filter((q) => q.method !== "GET")).toEqual([]);

    const ok = await run(
      ["apply", "-c", matchingPath, "--auto-approve", "--allow-mass-delete"],
      matchingEnv,
    );
    expect(ok.code, ok.stderr).toBe(0);
    const names = (await emulator.state()).orgs?.[0]?.contexts?.map((c) => c.name).sort();
    expect(names).toEqual(["deploy-prod", "legacy-build", "stale"]);
  });

  it("applies a saved plan that still matches; the file is 0600 and holds no secret", async () => {
    const file = tmp.path("plan-ok.json");
    await savePlan(createPath, file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, "utf8");
    expectNoSecrets({ saved: text }, ALL_SECRETS);
    const saved = JSON.parse(text) as { saved_plan_format: number; orgs: unknown[] };
    expect(saved.saved_plan_format).toBe(1);

    // No --auto-approve: a reviewed plan file is the approval.
    const r = await run(["apply", "-c", createPath, file]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain("the plan was saved by Waybill test");
    const again = await run(["plan", "-c", createPath, "--detailed-exitcode"]);
    expect(again.code).toBe(0);
  });

  it("refuses a stale saved plan with exit 3 and shows the difference, before any write", async () => {
    const file = tmp.path("plan-stale.json");
    await savePlan(createPath, file);
    // Someone edits the service by hand after the plan was saved.
    const edit = await emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://hooks.example.com/services/EDITED",
    });
    expect(edit.status).toBe(200);
    await emulator.clearRequests();
    const r = await run(["apply", "-c", createPath, file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('project["gh/acme/api"].webhook["slack"]');
    expect(r.stderr).toMatch(/stale/);
    expect((await emulator.requests()).filter((q) => q.method !== "GET")).toEqual([]);
  });

  it("refuses a saved plan made for another service", async () => {
    const file = tmp.path("plan-other.json");
    await savePlan(createPath, file, "https://other.example.com");
    const r = await run(["apply", "-c", createPath, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("https://other.example.com");
    expect((await emulator.requests()).filter((q) => q.method !== "GET")).toEqual([]);
  });
});
