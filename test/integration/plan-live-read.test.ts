/**
 * The live reader and the plan loop in-process, with the real client over loopback against
 * the emulator: what is read, how references resolve, and which requests it costs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { loadConfig } from "../../src/config/index.js";
import { runPlan } from "../../src/live/plan-run.js";
import { readLiveState } from "../../src/live/read-live-state.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import type { LiveProject } from "../../src/model/live.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import {
  API_ID,
  baseSeed,
  CTX_LEGACY_ID,
  matchingConfig,
  matchingEnv,
  ORG_ID,
  PIPELINE_BUILD_ID,
} from "./plan-fixture.js";

describe("readLiveState and runPlan against the emulator", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let desired: DesiredConfig;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    const loaded = await loadConfig(await tmp.write("waybill.yaml", matchingConfig), {
      env: matchingEnv,
    });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    desired = loaded.config;
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const client = () => createApiClient({ baseUrl: emulator.url, token: emulator.token });

  it("reads what the config declares, with references resolved", async () => {
    const live = await readLiveState(client().readOnly(), desired);
    const org = live.orgs[0];
    expect(org?.id).toBe(ORG_ID);
    expect(org?.settings?.enable_private_orbs).toBe(false);
    const prod = org?.contexts?.find((c) => c.name === "deploy-prod");
    expect(prod?.env?.map((e) => e.name).sort()).toEqual([
      "AWS_REGION",
      "AWS_SECRET_ACCESS_KEY",
      "DEPLOY_TOKEN",
    ]);
    expect(prod?.env?.find((e) => e.name === "AWS_REGION")?.truncated_value).toBe("st-1");
    expect(prod?.restrictions?.map((r) => r.key_value).sort()).toEqual([
      "all-members",
      'pipeline.git.branch == "main"',
    ]);
    const api = org?.projects.get("gh/acme/api") as LiveProject;
    expect(api.status).toBe("found");
    expect(api.id).toBe(API_ID);
    expect(api.env?.find((e) => e.name === "NPM_TOKEN")?.truncated_value).toBe("5555");
    expect(api.webhooks?.map((w) => w.name).sort()).toEqual(["old-hook", "slack"]);
    expect(api.pipelines?.map((p) => p.id)).toContain(PIPELINE_BUILD_ID);
    expect(api.triggers?.every((t) => t.pipeline_id !== "")).toBe(true);
    expect(org?.projectIds?.get("gh/acme/api")).toBe(API_ID);

    const log = await emulator.requests();
    expect(log.every((r) => r.method === "GET")).toBe(true);
    // The ignored context is listed with the others but nothing of it is read.
    expect(log.some((r) => r.path.includes(CTX_LEGACY_ID))).toBe(false);
  });

  it("marks the synthetic OAuth pipeline only after the plan wanted to delete it", async () => {
    const { plan, live } = await runPlan(client().readOnly(), desired, {});
    expect(plan.changes).toEqual([]);
    const web = live.orgs[0]?.projects.get("gh/acme/web") as LiveProject;
    expect(web.pipelines?.length).toBeGreaterThan(0);
    expect(web.pipelines?.every((p) => p.synthetic)).toBe(true);
    expect(web.triggers?.every((t) => t.synthetic)).toBe(true);
    // The real pipeline of gh/acme/api was not touched by the plan, so it was not probed.
    const log = await emulator.requests();
    expect(log.some((r) => r.path === `/api/v3/pipelines/${PIPELINE_BUILD_ID}`)).toBe(false);
  });

  it("reports progress from 0 to the total", async () => {
    const seen: [number, number][] = [];
    await runPlan(client().readOnly(), desired, { onProgress: (d, t) => seen.push([d, t]) });
    const last = seen.at(-1);
    expect(last?.[0]).toBe(last?.[1]);
    expect(last?.[1]).toBe((await emulator.requests()).length);
  });
});
