/**
 * A killed CI job never blocks the next merge (issue 29 "Done when"): an apply with default
 * flags is killed with SIGKILL at a seeded random moment (while it plans, takes the lock,
 * applies or releases), and `apply` runs again at once with default flags. The re-run waits
 * for the killed run's claim to lapse when it left one, and converges: exit 0 without
 * `force-unlock`, zero duplicates, no claim left, an empty plan after.
 *
 * The lease is shortened for the test (`WAYBILL_TEST_LOCK_LEASE_MS`, 4 s instead of 60 s) so
 * a trial does not wait a minute; the rules are the same. `npm test` runs a few trials;
 * `LOCK_CRASH_TRIALS=24 npx vitest run test/integration/reliability-lock-crash.test.ts`
 * runs more (`LOCK_CRASH_SEED` picks another sequence) and prints a summary on stderr.
 *
 * Trials are independent (each has its own emulator) and run a few at a time: most of a
 * trial is the wait for a killed run's claim to lapse, which need not be spent in turn.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prng } from "../../emulator/src/faults.js";
import type { Seed } from "../../emulator/src/seed.js";
import { isLockContextName } from "../../src/lock/claim.js";
import { CLI_BIN, makeTempDir, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";
import { duplicates } from "./apply-fixture.js";

const TRIALS = Number(process.env.LOCK_CRASH_TRIALS ?? 3);
const SEED = Number(process.env.LOCK_CRASH_SEED ?? 20261125);
const LEASE_MS = "4000";
const ORG_ID = "0a2b0000-0000-4000-8000-0000000000aa";
const API_ID = "0b2b0000-0000-4000-8000-0000000000aa";
const HOOKS = 8;
const CONTEXTS = 3;
/** The plan's operations: a context's create, then its env var; each webhook's create. */
const OPS = 2 * CONTEXTS + HOOKS;
/** Trials run at once (each mostly waits for a lease to lapse). */
const AT_ONCE = 3;

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      default_context_restriction: false,
      projects: [{ id: API_ID, slug: "api" }],
    },
  ],
});

/** Non-idempotent creates (webhooks, contexts): a second writer would duplicate them. */
const config = [
  "org: gh/acme",
  "contexts:",
  ...Array.from({ length: CONTEXTS }, (_, i) => `  ctx${i}:\n    env:\n      K: value-${i}-xxxx`),
  "projects:",
  "  gh/acme/api:",
  "    webhooks:",
  ...Array.from(
    { length: HOOKS },
    (_, i) =>
      `      hook${i}:\n        url: https://hooks.example.com/${i}\n        events: [job-completed]`,
  ),
  "",
].join("\n");

describe("apply killed with SIGKILL, then run again at once with default flags", () => {
  let tmp: TempDir;
  let path: string;
  const env = (emulator: TestEmulator) => ({
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? tmpdir(),
    NO_COLOR: "1",
    SERVICE_BASE_URL: emulator.url,
    SERVICE_TOKEN: emulator.token,
    WAYBILL_TEST_LOCK_LEASE_MS: LEASE_MS,
  });

  beforeAll(async () => {
    tmp = await makeTempDir();
    path = await tmp.write("waybill.yaml", config);
  });
  afterAll(async () => {
    await tmp?.remove();
  });

  /**
   * Start an apply and SIGKILL it: `afterOps` 0 kills it `delayMs` after it started (Node's
   * start-up, the plan's reads, the lock); otherwise once `afterOps` operations finished
   * (the lock held, writes in flight), `delayMs / 20` later.
   */
  const applyAndKill = (
    emulator: TestEmulator,
    afterOps: number,
    delayMs: number,
  ): Promise<{ killed: boolean; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [CLI_BIN, "apply", "-c", path, "--auto-approve", "--parallelism", "2"],
        {
          cwd: REPO_ROOT,
          env: env(emulator),
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stderr = "";
      let exited = false;
      let armed = false;
      const kill = (ms: number) => {
        if (armed) return;
        armed = true;
        setTimeout(() => {
          if (!exited) child.kill("SIGKILL");
        }, ms);
      };
      child.stdout.resume();
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString("utf8");
        const done = (stderr.match(/: (created|adopted|updated|deleted|already gone) in /g) ?? [])
          .length;
        if (afterOps > 0 && done >= afterOps) kill(delayMs / 20);
      });
      if (afterOps === 0) kill(delayMs);
      child.on("close", (_code, signal) => {
        exited = true;
        resolve({ killed: signal === "SIGKILL", stderr });
      });
      child.stdin.end();
    });

  it(`${TRIALS} trials: the re-run converges without force-unlock, zero duplicates`, async () => {
    const rand = prng(SEED);
    const stats = { trials: 0, killed: 0, leftClaim: 0, waited: 0, noChange: 0, claimAfter: 0 };
    // The seeded sequence, drawn in trial order: from Node's start-up and the plan's reads
    // to the last operations and the release.
    const draws = Array.from({ length: TRIALS }, () => ({
      afterOps: Math.floor(rand() * (OPS + 1)),
      delayMs: Math.floor(rand() * 1_200),
    }));
    const trial = async (n: number): Promise<void> => {
      const { afterOps, delayMs } = draws[n] as (typeof draws)[number];
      const emulator = await startTestEmulator(seed(), {
        faults: { latency_ms: 25, jitter_ms: 30 },
      });
      try {
        const r = await applyAndKill(emulator, afterOps, delayMs);
        stats.trials += 1;
        if (r.killed) stats.killed += 1;
        const before = await emulator.state();
        if ((before.orgs?.[0]?.contexts ?? []).some((c) => isLockContextName(c.name)))
          stats.leftClaim += 1;
        // At once, with default flags: no settling, no force-unlock.
        const again = await runInProcess(["apply", "-c", path, "--auto-approve"], env(emulator), {
          timeoutMs: 60_000,
        });
        if (again.stdout.includes("No changes")) stats.noChange += 1;
        const label = `trial ${n} (seed ${SEED}, killed: ${r.killed})`;
        expect(again.code, `${label}\n${again.stderr}`).toBe(0);
        if (again.stderr.includes("Waiting for the lock")) stats.waited += 1;
        const state = await emulator.state();
        expect(duplicates(state), label).toEqual([]);
        const org = state.orgs?.[0];
        // A claim the killed run left lapses on its own; an apply with no change writes
        // nothing, so it may still be there (the next apply that writes clears it).
        const names = (org?.contexts ?? []).map((c) => c.name);
        if (names.some(isLockContextName)) stats.claimAfter += 1;
        expect(
          names.filter((n) => !isLockContextName(n)).sort(),
          `${label}\n${again.stderr}`,
        ).toEqual(Array.from({ length: CONTEXTS }, (_, i) => `ctx${i}`));
        expect(org?.projects?.[0]?.webhooks?.map((w) => w.name).sort(), label).toEqual(
          Array.from({ length: HOOKS }, (_, i) => `hook${i}`).sort(),
        );
        const plan = await runInProcess(["plan", "-c", path, "--detailed-exitcode"], env(emulator));
        expect(plan.code, `${label}\n${plan.stdout}${plan.stderr}`).toBe(0);
      } finally {
        await emulator.close();
      }
    };
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < TRIALS) await trial(next++);
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, TRIALS) }, lane));
    process.stderr.write(`lock crash trials: ${JSON.stringify(stats)}\n`);
    expect(stats.trials).toBe(TRIALS);
  }, 600_000);
});
