/**
 * Recovery (issue 5 "Done when"): an apply killed with SIGKILL midway, then re-run,
 * converges with no duplicates; SIGINT finishes running calls, prints the summary and
 * exits 130. (Faults: apply-faults.test.ts.)
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { beforeEach, describe, expect, it } from "vitest";
import { CLI_BIN, REPO_ROOT, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, createConfig, duplicates } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

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

  /** Start the CLI and resolve once `ready(stderr)` holds (or it exits). */
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

  it("an apply killed with SIGKILL midway, then re-run, converges with no duplicate", async () => {
    // Slow every request a little so the kill lands in the middle of the creates.
    await suite.emulator.setFaults({ latency_ms: 40 });
    const p = startApply(
      ["apply", "-c", suite.files.createPath, "--auto-approve", "--parallelism", "2"],
      applyEnv,
    );
    await p.waitFor((s) => createdLines(s) >= 3);
    p.child.kill("SIGKILL");
    await p.exit;
    await suite.emulator.setFaults({});
    const before = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(before.code, "the kill should leave work undone").toBe(2);

    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    const after = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(after.code).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
  }, 60_000);

  it("SIGINT: starts nothing new, lets running calls finish, prints the summary, exits 130", async () => {
    await suite.emulator.setFaults({ latency_ms: 40 });
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

    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(
      (await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"], applyEnv)).code,
    ).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
  }, 60_000);
});
