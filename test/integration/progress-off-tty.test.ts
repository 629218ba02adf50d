/**
 * Off a terminal (a CI log) plan, drift and apply never go quiet for long (issue 46): a
 * line on stderr at least every progress interval (10 s by default; a short one here, set
 * by WAYBILL_PROGRESS_INTERVAL_MS), saying how many reads or operations are done of how
 * many; apply says when it takes the lock, waits for it, has it, and reads again under it.
 * The built CLI runs as a child process (stderr a pipe, not a TTY) against the emulator
 * with injected latency; each line is timed as it arrives, and the longest gap between two
 * lines is compared with the interval, not with a wall-clock range of the run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { claimName } from "../../src/lock/claim.js";
import { makeTempDir, spawnCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

/** The interval the runs are given; every bound below is relative to it. */
const INTERVAL_MS = 1_000;
const CONTEXTS = Array.from({ length: 30 }, (_, i) => `ctx-${String(i).padStart(2, "0")}`);

/** The value of every context's one variable (a secret: no line may show it). */
const VALUE = "progress-secret-0d9c4e";

const seed = (extra: readonly { name: string; created_at?: string }[] = []): Seed => ({
  orgs: [
    {
      slug: "gh/acme",
      name: "acme",
      contexts: [...CONTEXTS.map((name) => ({ name, env: { TOKEN: VALUE } })), ...extra],
    },
  ],
});

/** Each context declares its variable, so each context's variables are one read. */
const config = (names: readonly string[]): string =>
  [
    "org: gh/acme",
    "contexts:",
    ...names.flatMap((n) => [`  ${n}:`, "    env:", "      TOKEN: ${env:CTX_TOKEN}"]),
    "",
  ].join("\n");

/** A run's stderr lines, each with the time it arrived. */
const timedRun = async (
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ code: number | null; lines: { at: number; text: string }[]; stderr: string }> => {
  const lines: { at: number; text: string }[] = [];
  let partial = "";
  const r = await spawnCli(args, {
    env,
    timeoutMs: 60_000,
    onStderr: (text) => {
      const at = performance.now();
      const parts = (partial + text).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) lines.push({ at, text: line });
    },
  });
  return { code: r.code, lines, stderr: r.stderr };
};

const longestGap = (lines: readonly { at: number; text: string }[]): number =>
  Math.max(0, ...lines.slice(1).map((l, i) => l.at - (lines[i]?.at ?? l.at)));

describe("progress off a terminal", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let env: Record<string, string>;
  const files: Record<string, string> = {};
  beforeAll(async () => {
    // Every answer waits 100 ms; with two requests at a time one read of the ~35 this config
    // makes takes about 2 s: twice the interval without a word, before the heartbeat.
    emulator = await startTestEmulator(seed(), { faults: { latency_ms: 100 } });
    tmp = await makeTempDir();
    files.same = await tmp.write("same.yaml", config(CONTEXTS));
    files.more = await tmp.write("more.yaml", config([...CONTEXTS, "new-0", "new-1", "new-2"]));
    env = {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      WAYBILL_PROGRESS_INTERVAL_MS: String(INTERVAL_MS),
      WAYBILL_TEST_LOCK_LEASE_MS: "4000",
      CTX_TOKEN: VALUE,
    };
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  beforeEach(async () => {
    await emulator.reset(seed());
  });

  it.each([
    ["plan", ["plan", "--parallelism", "2"]],
    ["drift", ["drift", "--parallelism", "2"]],
  ])(
    "%s: a line at least every interval, with the reads done of the total",
    async (_c, args) => {
      const r = await timedRun([...args, "-c", files.same!], env);
      expect(r.code, r.stderr).toBe(0);
      expect(longestGap(r.lines), r.stderr).toBeLessThan(INTERVAL_MS);
      expect(r.stderr).toMatch(/^Reading live state: [\d,]+ of ~[\d,]+ reads done \(\d+ s\)$/m);
    },
    60_000,
  );

  it("apply: a line at least every interval; says it takes the lock, has it, and reads again under it", async () => {
    const r = await timedRun(
      ["apply", "-c", files.more!, "--auto-approve", "--parallelism", "2"],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(longestGap(r.lines), r.stderr).toBeLessThan(INTERVAL_MS);
    const texts = r.lines.map((l) => l.text);
    const at = (re: RegExp): number => texts.findIndex((t) => re.test(t));
    const order = [
      at(/^Reading live state…$/),
      at(/^Taking the lock of org gh\/acme…$/),
      at(/^Took the lock of org gh\/acme \(run [0-9a-f]{12}\)\.$/),
      at(/^Reading live state under the lock…$/),
      at(/^Reading live state under the lock: \d+ reads done$/),
      at(/^context\["new-\d"\]: created/),
    ];
    expect(
      order.every((i) => i >= 0),
      r.stderr,
    ).toBe(true);
    expect(
      [...order].sort((a, b) => a - b),
      r.stderr,
    ).toEqual(order);
    // The heartbeat spoke during the reads (before the lock and under it).
    expect(r.stderr).toMatch(/^Reading live state: [\d,]+ of ~[\d,]+ reads done \(\d+ s\)$/m);
    expect(r.stderr).toMatch(
      /^Reading live state under the lock: [\d,]+ of ~[\d,]+ reads done \(\d+ s\)$/m,
    );
  }, 60_000);

  it("apply waiting for another run's lock says so and keeps saying it until it has it", async () => {
    // Another run's claim, written just now: it lapses one (test) lease of 8 s after it was
    // written, so this apply (which reaches the lock within a second, a few on a loaded
    // machine) waits some seconds without a claim of its own being live.
    const lease = 8_000;
    const held = claimName({
      run: "46aa0000beef",
      takenAt: Date.now(),
      expiresAt: Date.now() + lease,
      pid: 1,
      host: "elsewhere",
      who: "user:ada",
    });
    await emulator.reset(seed([{ name: held, created_at: new Date().toISOString() }]));
    // No latency: the wait is the point here (beforeEach's reset restores the latency).
    await emulator.setFaults({});
    const r = await timedRun(["apply", "-c", files.more!, "--auto-approve"], {
      ...env,
      WAYBILL_TEST_LOCK_LEASE_MS: String(lease),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(longestGap(r.lines), r.stderr).toBeLessThan(INTERVAL_MS);
    const texts = r.lines.map((l) => l.text);
    const waiting = texts.findIndex((t) =>
      /^Waiting for the lock of org gh\/acme: held by .*46aa0000beef/.test(t),
    );
    const took = texts.findIndex((t) => /^Took the lock of org gh\/acme/.test(t));
    expect(waiting, r.stderr).toBeGreaterThan(texts.indexOf("Taking the lock of org gh/acme…"));
    expect(took, r.stderr).toBeGreaterThan(waiting);
    // Between the two, the heartbeat says what the run waits for.
    expect(texts.slice(waiting + 1, took).join("\n"), r.stderr).toMatch(
      /^Taking the lock of org gh\/acme \(\d+ s\)$/m,
    );
  }, 60_000);
});
