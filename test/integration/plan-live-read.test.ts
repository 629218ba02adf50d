/**
 * The live reader and the plan loop in-process, with the real client over loopback against
 * the emulator: what is read, how references resolve, and which requests it costs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { loadConfig } from "../../src/config/index.js";
import { readLiveState } from "../../src/live/read-live-state.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import type { LiveProject } from "../../src/model/live.js";
import { runPlan } from "../../src/run/plan-run.js";
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

  it("falls back to V2's masked values when V3 project env vars carry no last four", async () => {
    await emulator.script([
      {
        method: "GET",
        path: `/api/v3/projects/${API_ID}/environment-variables`,
        json: {
          data: [{ attributes: { name: "NPM_TOKEN" } }, { attributes: { name: "OLD_VAR" } }],
          page: { next: null },
        },
      },
    ]);
    const live = await readLiveState(client().readOnly(), desired);
    const api = live.orgs[0]?.projects.get("gh/acme/api") as LiveProject;
    expect(api.env).toEqual([
      { name: "NPM_TOKEN", truncated_value: "5555" },
      { name: "OLD_VAR", truncated_value: "1010" },
    ]);
    const log = await emulator.requests();
    expect(log.filter((r) => r.api === "v2").map((r) => r.path)).toEqual([
      "/api/v2/project/gh/acme/api/envvar",
    ]);
  });

  it("resolves many declared projects with one org listing, reporting the missing one", async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `gh/acme/svc-${i}`);
    const seed = baseSeed();
    const org = seed.orgs?.[0];
    if (!org) throw new Error("seed without org");
    await emulator.reset({
      ...seed,
      orgs: [
        {
          ...org,
          projects: [...(org.projects ?? []), ...slugs.slice(0, 11).map((slug) => ({ slug }))],
        },
      ],
    });
    await emulator.clearRequests();
    const yaml = `org: gh/acme\nprojects:\n${slugs.map((s) => `  ${s}:\n    env: {}\n`).join("")}`;
    const loaded = await loadConfig(await tmp.write("many.yaml", yaml), { env: {} });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    const live = await readLiveState(client().readOnly(), loaded.config);
    const projects = live.orgs[0]?.projects;
    expect(projects?.get("gh/acme/svc-0")?.status).toBe("found");
    expect(projects?.get("gh/acme/svc-11")).toMatchObject({ status: "not_visible" });
    const log = await emulator.requests();
    const lookups = log.filter((r) => r.path === "/api/v3/projects");
    expect(lookups.every((r) => r.query["filter[org_id]"] === ORG_ID)).toBe(true);
    expect(lookups.every((r) => r.query["filter[slug]"] === undefined)).toBe(true);
    // 13 projects fit one page of 50.
    expect(lookups).toHaveLength(1);
  });

  it("turns a 403 on a declared project's collection into 'not visible', not an exception", async () => {
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/webhooks",
        status: 403,
        json: { error: { title: "Forbidden" } },
      },
    ]);
    const live = await readLiveState(client().readOnly(), desired);
    const api = live.orgs[0]?.projects.get("gh/acme/api");
    expect(api).toMatchObject({ status: "not_visible" });
    expect(api && "reason" in api ? api.reason : "").toMatch(/webhooks.*403/);
    // The other project is read as usual.
    expect(live.orgs[0]?.projects.get("gh/acme/web")?.status).toBe("found");
  });
});
