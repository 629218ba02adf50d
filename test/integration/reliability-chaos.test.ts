/**
 * Issue 7, malformed responses: `waybill plan` against an emulator whose GET answers are
 * hostile at a seeded rate (invalid JSON, truncated, wrong shape, endless or repeating
 * cursors, unknown members, huge, slow). Every run either fails cleanly (exit 1, a message
 * naming the route, no stack trace) or prints the very plan a clean run prints; never a
 * delete the clean plan lacks (design.md §1 "Ownership": never prune from a partial read).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChaosKind } from "../../emulator/src/chaos.js";
import type { FaultOptions } from "../../emulator/src/seed.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { expectNoLeaks } from "../helpers/secrets.js";
import { ALL_SECRETS, baseSeed, matchingConfig, matchingEnv } from "./plan-fixture.js";

/** Keeps most of the seed, drops a context, a webhook and a variable: three deletes. */
const pruningConfig = matchingConfig
  .replace(/ {2}stale:\n {4}env:\n {6}ONE: .*\n {6}TWO: .*\n/, "")
  .replace(/ {6}old-hook:\n {8}url: .*\n {8}events: .*\n/, "")
  .replace(/ {6}OLD_VAR: .*\n/, "");

interface PlanJson {
  readonly changes: readonly { readonly address: string; readonly action: string }[];
}

const changeSet = (stdout: string): string[] =>
  (JSON.parse(stdout) as PlanJson).changes.map((c) => `${c.action} ${c.address}`).sort();

/**
 * The client's page bound in these runs: a tenth of the product's 1,000 (in-process only,
 * CliIO.maxPages). An endless cursor ends at the bound either way, through the same check;
 * at 1,000 the two endless cases alone read 2,000 pages and took two seconds.
 */
const PAGES = 100;

const deletes = (changes: readonly string[]): string[] =>
  changes.filter((c) => c.startsWith("delete ") || c.startsWith("replace "));

describe("plan under chaos", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let config: string;
  let clean: string[];

  const setFaults = async (faults: FaultOptions): Promise<void> => {
    const res = await fetch(`${emulator.url}/__admin/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(faults),
    });
    expect(res.status).toBe(200);
  };

  const plan = () =>
    runCli(["plan", "-c", config, "--format", "json"], {
      baseUrl: emulator.url,
      token: emulator.token,
      env: matchingEnv,
      timeoutMs: 40_000,
      maxPages: PAGES,
    });

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    config = await tmp.write("waybill.yaml", pruningConfig);
    const r = await plan();
    expect(r.code).toBe(0);
    clean = changeSet(r.stdout);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  it("the clean plan deletes exactly what the config dropped", () => {
    expect(deletes(clean)).toEqual([
      'delete context["stale"]',
      'delete project["gh/acme/api"].env["OLD_VAR"]',
      'delete project["gh/acme/api"].webhook["old-hook"]',
    ]);
  });

  // One kind at a time at a high rate, so each kind is met on some route; then all mixed.
  const cases: readonly { kinds?: ChaosKind[]; rate: number; seeds: number[] }[] = [
    { kinds: ["invalid_json"], rate: 0.3, seeds: [1] },
    { kinds: ["truncated"], rate: 0.3, seeds: [2] },
    { kinds: ["missing_data"], rate: 0.3, seeds: [3] },
    { kinds: ["data_not_list"], rate: 0.5, seeds: [4] },
    { kinds: ["endless_next"], rate: 0.5, seeds: [5] },
    // Every answer continues the chain: only the page bound can end it.
    { kinds: ["endless_next"], rate: 1, seeds: [14] },
    { kinds: ["repeat_cursor"], rate: 0.5, seeds: [6] },
    { kinds: ["unknown_fields"], rate: 1, seeds: [7] },
    { kinds: ["huge"], rate: 0.5, seeds: [8] },
    { kinds: ["slow"], rate: 0.5, seeds: [9] },
    { rate: 0.15, seeds: [10, 11, 12, 13] },
  ];

  for (const c of cases) {
    for (const seed of c.seeds) {
      it(`${c.kinds?.join(",") ?? "every kind"} at ${c.rate} (seed ${seed}): a clean error or the same plan`, async () => {
        await setFaults({
          seed,
          chaos: {
            rate: c.rate,
            huge_bytes: 512 * 1024,
            slow_ms: 50,
            ...(c.kinds ? { kinds: c.kinds } : {}),
          },
        });
        await emulator.clearRequests();
        const r = await plan();
        const log = await emulator.requests();
        await setFaults({});
        const hit = log.filter((e) => e.fault?.startsWith("chaos_"));
        expect(hit.length, "the chaos option met no request").toBeGreaterThan(0);
        // Bounded work: a listing stops at its page bound, an item met again on a later page
        // is not read again, and once the read has failed the rest stop.
        expect(log.length).toBeLessThan(12 * PAGES);
        expectNoLeaks({ stdout: r.stdout, stderr: r.stderr }, [...ALL_SECRETS, emulator.token]);
        expect(r.stderr, "no stack trace").not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
        if (r.code === 0) {
          // Survivable chaos (unknown members, huge or slow bodies, a retried truncation):
          // exactly the clean plan.
          expect(changeSet(r.stdout)).toEqual(clean);
        } else {
          expect(r.code).toBe(1);
          expect(r.stdout).toBe("");
          expect(r.stderr).toMatch(/GET \/api\/v[23]\/[^\s]*/);
        }
        if (c.kinds?.includes("unknown_fields")) expect(r.code).toBe(0);
        // Every answer continues the chain: the page bound ends it, and says so.
        if (c.kinds?.includes("endless_next") && c.rate === 1)
          expect(r.stderr).toContain(`more than ${PAGES} pages`);
        if (r.code === 0) expect(deletes(changeSet(r.stdout))).toEqual(deletes(clean));
      });
    }
  }
});
