/**
 * Issue 8: the requests a plan and an apply of a generated org cost (bench/generate.js, the
 * `small` preset: 20 projects, 10 contexts, 380 managed items), counted in the emulator's
 * request log — counts only, never time. Guards the read path against regressions: the
 * fewest requests the spec allows (bench/bounds.js), no read repeated, lists instead of
 * per-item reads, the largest page size.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { applyBound, planBound } from "../../bench/bounds.js";
import { type GeneratedOrg, generateOrg } from "../../bench/generate.js";
import type { ApiClient } from "../../src/api/client.js";
import { createApiClient } from "../../src/api/client.js";
import { runApply } from "../../src/apply/run-apply.js";
import { loadConfig } from "../../src/config/index.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { runPlan } from "../../src/run/plan-run.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { type LoggedRequest, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

const gen: GeneratedOrg = generateOrg("small");

const requestKey = (r: LoggedRequest): string =>
  `${r.method} ${r.path}?${Object.entries(r.query)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join("&")}`;

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** Per-item reads a refresh would make; lists replace every one of them. */
const PER_ITEM_READ = new RegExp(
  `^/api/v3/(projects|webhooks|pipelines|triggers|contexts)/${UUID}$`,
);

describe("request counts on a generated org (small preset)", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let desired: DesiredConfig;
  let changed: DesiredConfig;
  let client: ApiClient | undefined;

  const load = async (name: string, text: string): Promise<DesiredConfig> => {
    const loaded = await loadConfig(await tmp.write(name, text), { env: gen.secrets });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    return loaded.config;
  };
  const connect = (): ApiClient => {
    client = createApiClient({
      baseUrl: emulator.url,
      token: gen.seed.tokens?.[0]?.token ?? "",
      maxConcurrentRequests: 10,
    });
    return client;
  };

  beforeAll(async () => {
    emulator = await startTestEmulator(gen.seed);
    tmp = await makeTempDir();
    desired = await load("waybill.yaml", gen.configYaml);
    changed = await load("changed.yaml", gen.changedConfigYaml);
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  it("a no-change plan costs exactly the lower bound: one request per page, nothing repeated", async () => {
    await emulator.reset(gen.seed);
    const { plan } = await runPlan(connect().readOnly(), desired, {});
    expect(plan.changes).toEqual([]);
    const log = await emulator.requests();
    // 1 org + 1 org settings + 1 project page + 1 context page + 10×2 context reads + 20×4
    // project reads + 20 probes of the synthetic OAuth pipeline every project lists.
    expect(planBound(gen.preset, 0).requests).toBe(124);
    expect(log).toHaveLength(124);
    expect(log.every((r) => r.method === "GET")).toBe(true);
    const keys = log.map(requestKey);
    expect(new Set(keys).size).toBe(keys.length);
    // The only per-item reads: one synthetic probe per project (spec: api-v3.md Pipelines).
    const perItem = log.filter((r) => PER_ITEM_READ.test(r.path));
    expect(perItem).toHaveLength(20);
    expect(perItem.every((r) => r.path.startsWith("/api/v3/pipelines/") && r.status === 404)).toBe(
      true,
    );
    expect(log.filter((r) => r.status !== 404).every((r) => r.status === 200)).toBe(true);
    // 20 declared projects: one org listing at the documented maximum, not 20 slug look-ups.
    const projectReads = log.filter((r) => r.path === "/api/v3/projects");
    expect(projectReads).toHaveLength(1);
    expect(projectReads[0]?.query["page[limit]"]).toBe("50");
    // V3 gives every project env var's last four: V2 is never needed.
    expect(log.filter((r) => r.api !== "v3")).toEqual([]);
  });

  it("a plan with changes adds one synthetic probe per touched pipeline, and nothing else", async () => {
    await emulator.reset(gen.seed);
    const { plan } = await runPlan(connect().readOnly(), changed, {});
    expect(plan.changes.length).toBeGreaterThan(0);
    const log = await emulator.requests();
    expect(gen.touchedPipelines).toBe(4);
    expect(log).toHaveLength(planBound(gen.preset, gen.touchedPipelines).requests);
    const probes = log.filter((r) => new RegExp(`^/api/v3/pipelines/${UUID}$`).test(r.path));
    // 4 touched pipelines + every project's synthetic OAuth pipeline.
    expect(probes).toHaveLength(24);
    expect(probes.every((r) => r.query["filter[project_id]"] === undefined)).toBe(true);
    const keys = log.map(requestKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("apply from empty costs the plan's reads plus one create per item, then plans clean", async () => {
    await emulator.reset(gen.emptySeed);
    const api = connect();
    const { plan } = await runPlan(api.readOnly(), desired, {});
    const result = await runApply(api, plan, desired, { parallelism: 10 });
    expect(result.outcomes.every((o) => o.status === "done")).toBe(true);
    const log = await emulator.requests();
    // 104 reads (every collection empty, 20 synthetic probes) + 20×12 + 10×14 creates.
    expect(applyBound(gen.preset).requests).toBe(484);
    expect(log).toHaveLength(484);
    expect(log.filter((r) => r.method === "POST")).toHaveLength(380);
    expect(log.filter((r) => r.method === "DELETE")).toEqual([]);

    await emulator.clearRequests();
    const again = await runPlan(api.readOnly(), desired, {});
    expect(again.plan.changes).toEqual([]);
  });
});
