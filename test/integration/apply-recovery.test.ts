/**
 * Recovery (issue 5 "Done when", issue 15): an apply killed with SIGKILL while creates are
 * in flight leaves its org lock; a re-run at once is refused (exit 5, zero duplicates),
 * and after `force-unlock` a re-run converges with no duplicates. SIGINT and SIGTERM finish
 * running calls, print the summary, release the lock and exit 130 / 143.
 * (Faults: apply-faults.test.ts.)
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { beforeEach, describe, expect, it } from "vitest";
import { claimName } from "../../src/lock/claim.js";
import { CLI_BIN, REPO_ROOT, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, createConfig, duplicates } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

/**
 * Every write (POST, PUT, DELETE) held 40 ms before it lands, so a signal sent after the
 * first creates meets creates in flight and creates not yet started. Writes only, not a
 * latency on every request: the reads of the plan and the lock (about 40 of them, many in
 * turn) then take no longer than they must, which halved these tests' time.
 */
const SLOW_WRITES = { rate_slow_commit: 1, slow_commit_ms: 40 } as const;

describe("waybill apply: recovery", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
  });
  beforeEach(async () => {
    await suite.emulator.setFaults({});
  });

  const run = (args: string[], env: Readonly<Record<string, string>>) =>
    runCli(args, {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env,
      timeoutMs: 40_000,
    });

  /**
   * Start the built CLI as a real process and resolve once `ready(stderr)` holds (or it
   * exits). Deliberately a child process, not an in-process run: these tests are about what
   * a real process does on SIGKILL (no code runs: the lock stays), SIGINT and SIGTERM (the
   * handlers bin/waybill.js's process installs, the 130 / 143 exit status the shell sees).
   * The runs around them (re-runs, plans, force-unlock) are in-process.
   */
  const startApply = (
    args: string[],
    env: Readonly<Record<string, string>>,
  ): {
    child: ChildProcessWithoutNullStreams;
    output: () => { stdout: string; stderr: string };
    waitFor: (ready: (stderr: string) => boolean) => Promise<void>;
    exit: Promise<number | null>;
  } => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? tmpdir(),
        NO_COLOR: "1",
        SERVICE_BASE_URL: suite.emulator.url,
        SERVICE_TOKEN: suite.emulator.token,
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const waiters: { ready: (s: string) => boolean; resolve: () => void }[] = [];
    const check = () => {
      for (const w of [...waiters]) {
        if (w.ready(stderr)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString("utf8");
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString("utf8");
      check();
    });
    const exit = new Promise<number | null>((resolve) => {
      child.on("close", (code) => {
        for (const w of waiters) w.resolve();
        resolve(code);
      });
    });
    child.stdin.end();
    return {
      child,
      output: () => ({ stdout, stderr }),
      waitFor: (ready) =>
        new Promise<void>((resolve) => {
          waiters.push({ ready, resolve });
          check();
        }),
      exit,
    };
  };

  const createdLines = (stderr: string): number =>
    (stderr.match(/: (created|adopted) in /g) ?? []).length;

  const lockNames = async (): Promise<string[]> =>
    ((await suite.emulator.state()).orgs?.[0]?.contexts ?? [])
      .map((c) => c.name)
      .filter((n) => n.startsWith("waybill-lock--"));

  it("an apply killed with SIGKILL while creates are in flight: a re-run at once is refused, then converges after force-unlock, with no duplicate", async () => {
    // Slow every write a little so the kill lands in the middle of the creates.
    await suite.emulator.setFaults(SLOW_WRITES);
    const p = startApply(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--parallelism", "2"],
      applyEnv,
    );
    await p.waitFor((s) => createdLines(s) >= 3);
    p.child.kill("SIGKILL");
    await p.exit;
    // At once, creates of the killed run possibly still in flight: the lock it left stops
    // the re-run before any write.
    // Issue 29: by default the re-run waits for the claim to lapse (reliability-lock-crash);
    // told not to wait, it is refused before any write of the plan's.
    const atOnce = await run(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--lock-timeout", "0"],
      applyEnv,
    );
    expect(atOnce.code, atOnce.stderr).toBe(5);
    expect(atOnce.stderr).toMatch(
      /org gh\/acme is locked by another Waybill run: run [0-9a-f]{12}/,
    );
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    await suite.emulator.setFaults({});
    const before = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(before.code, "the kill should leave work undone").toBe(2);
    expect(before.stderr).toMatch(/Note: an apply may hold the lock of org gh\/acme/);

    const unlock = await run(["force-unlock", "--all", "-c", suite.files.createPath], applyEnv);
    expect(unlock.code, unlock.stderr).toBe(0);
    expect(unlock.stdout).toMatch(/org gh\/acme: removed the lock of run [0-9a-f]{12}/);
    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    const after = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(after.code).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    expect(await lockNames()).toEqual([]);
  }, 60_000);

  it("SIGINT: starts nothing new, lets running calls finish, prints the summary, exits 130", async () => {
    await suite.emulator.setFaults(SLOW_WRITES);
    const p = startApply(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--parallelism", "1"],
      applyEnv,
    );
    await p.waitFor((s) => createdLines(s) >= 2);
    p.child.kill("SIGINT");
    const code = await p.exit;
    await suite.emulator.setFaults({});
    const { stdout, stderr } = p.output();
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/Interrupted/);
    expect(stdout).toMatch(/Apply interrupted: \d+ done, 0 failed, \d+ skipped/);
    expect(stdout).toMatch(/: interrupted/);
    expect(await lockNames(), "the lock is released").toEqual([]);

    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(
      (await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"], applyEnv)).code,
    ).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
  }, 60_000);

  it("SIGTERM (a cancelled CI job): like SIGINT, drains, prints the summary, releases the lock, exits 143", async () => {
    await suite.emulator.setFaults(SLOW_WRITES);
    const p = startApply(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--parallelism", "2"],
      applyEnv,
    );
    await p.waitFor((s) => createdLines(s) >= 2);
    p.child.kill("SIGTERM");
    const code = await p.exit;
    await suite.emulator.setFaults({});
    const { stdout, stderr } = p.output();
    expect(code, stderr).toBe(143);
    expect(stderr).toMatch(
      /Terminated \(SIGTERM\): starting nothing new; waiting for running calls to finish/,
    );
    expect(stdout).toMatch(/Apply interrupted: \d+ done, 0 failed, \d+ skipped/);
    expect(await lockNames(), "the lock is released").toEqual([]);
    // Drained: every create that was started finished, so the re-run adopts nothing.
    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/adopted/);
    expect(
      (await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"], applyEnv)).code,
    ).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
  }, 60_000);

  it("SIGTERM while waiting for another run's lock: stops at once, changes nothing, exits 143", async () => {
    // Another run holds the lock: its claim was just written (issue 29: the service's
    // created_at says how old a claim is; its name may say at most 120 s).
    const held = claimName({
      run: "3f2a9c1e5d2b",
      takenAt: Date.now(),
      expiresAt: Date.now() + 60_000,
      pid: 1,
      host: "elsewhere",
      who: "user:ada",
    });
    const seed = baseSeed();
    await suite.emulator.reset({
      ...seed,
      orgs: (seed.orgs ?? []).map((o) => ({
        ...o,
        contexts: [...(o.contexts ?? []), { name: held, created_at: new Date().toISOString() }],
      })),
    });
    await suite.emulator.clearRequests();
    const waiting = startApply(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--lock-timeout", "5m"],
      applyEnv,
    );
    // It has looked at the lock twice (settled: held) and is waiting.
    for (let i = 0; i < 400; i++) {
      const looks = (await suite.emulator.requests()).filter(
        (r) => r.path === "/api/v3/contexts" && r.query["filter[name]"] === "waybill-lock--",
      );
      if (looks.length >= 2) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    waiting.child.kill("SIGTERM");
    expect(await waiting.exit, waiting.output().stderr).toBe(143);
    expect(waiting.output().stderr).toContain(
      "Stopped while waiting for the lock: nothing was changed.",
    );
    // Only its own claim, written to learn the service's time, and deleted at once.
    expect(
      (await suite.emulator.requests()).filter((r) => r.method !== "GET").map((r) => r.route),
    ).toEqual(["POST /api/v3/contexts", "DELETE /api/v3/contexts/:id"]);
    expect(await lockNames()).toEqual([held]);
  }, 60_000);
});
