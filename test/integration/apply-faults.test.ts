/**
 * Faults (issue 5 "Done when"): with the emulator's faults on (20% 429, 10% 500, 5%
 * dropped connections, 20% "commit then fail" on writes) an apply converges within at most
 * two runs with no duplicate item, for creates and then for updates, replaces and deletes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { applyEnv, changeConfig, changeEnv, createConfig, duplicates } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

const FAULTS = {
  rate_429: 0.2,
  rate_500: 0.1,
  rate_drop: 0.05,
  rate_commit_then_fail: 0.2,
  retry_after_seconds: 0,
} as const;

describe("waybill apply: faults", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let createPath: string;
  let changePath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    createPath = await tmp.write("create.yaml", createConfig);
    changePath = await tmp.write("change.yaml", changeConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await setFaults({});
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const setFaults = async (faults: Record<string, unknown>) => {
    const res = await fetch(`${emulator.url}/__admin/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(faults),
    });
    expect(res.status).toBe(200);
  };

  const run = (args: string[], env: Readonly<Record<string, string>>) =>
    runCli(args, { baseUrl: emulator.url, token: emulator.token, env, timeoutMs: 40_000 });

  /** Apply under faults at most twice; returns how many runs it took. */
  const applyUnderFaults = async (
    path: string,
    env: Readonly<Record<string, string>>,
    seed: number,
  ): Promise<number> => {
    let runs = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      await setFaults({ ...FAULTS, seed: seed + attempt });
      const r = await run(["apply", "-c", path, "--auto-approve"], env);
      runs += 1;
      if (r.code === 0) break;
      expect(r.code, r.stderr).toBe(1);
    }
    await setFaults({});
    return runs;
  };

  it.each([11, 37])(
    "converges within two runs under faults, with no duplicate (fault seed %i)",
    async (seed) => {
      await applyUnderFaults(createPath, applyEnv, seed);
      const created = await run(["plan", "-c", createPath, "--detailed-exitcode"], applyEnv);
      expect(created.code, created.stdout + created.stderr).toBe(0);
      expect(duplicates(await emulator.state())).toEqual([]);

      await applyUnderFaults(changePath, changeEnv, seed + 100);
      const changed = await run(["plan", "-c", changePath, "--detailed-exitcode"], changeEnv);
      expect(changed.code, changed.stdout + changed.stderr).toBe(0);
      expect(duplicates(await emulator.state())).toEqual([]);
    },
    60_000,
  );
});
