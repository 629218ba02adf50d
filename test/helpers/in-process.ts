/**
 * Run the CLI in this process: `main` (src/cli/main.ts) with injected streams, environment,
 * working folder, stdin and (optionally) TTY flags, the way bin/waybill.js calls it. This is
 * how integration tests run the CLI (`runCli` in cli.ts uses it): a child process per run
 * costs ~0.3 s of Node start-up and module loading on a 2-core machine, and the suite runs
 * thousands of commands. The few tests where a real process is the point (signals, the
 * shipped tarball, the demo, the Action) spawn `bin/waybill.js` through `spawnCli`.
 *
 * What a child-process run checks, this checks the same way: the exit code is what `main`
 * resolves with (bin/waybill.js sets it as `process.exitCode` and nothing else), every output
 * is scanned for leaked secrets (issue 7, issue 21), and a Node process warning emitted while
 * the command runs fails the run (it would be printed to a user's stderr).
 */
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import type { Clock } from "../../src/api/types.js";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { findLeak, MIN_SECRET_LENGTH, NOT_SECRET_ENV } from "./secrets.js";

export interface InProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface InProcessOptions {
  /** Run with this working folder (relative paths and the default config resolve in it). */
  readonly cwd?: string;
  /** Written to stdin, then closed. */
  readonly input?: string;
  /** Mark stdin / stdout / stderr as terminals (`isTTY`), as an interactive shell would. */
  readonly tty?: { readonly stdin?: boolean; readonly stdout?: boolean; readonly stderr?: boolean };
  /** Fail the run after this many ms (a hung command fails the test instead of the run). */
  readonly timeoutMs?: number;
  /** More secret values that must not appear in stdout or stderr (beside every env value). */
  readonly secrets?: readonly string[];
  /** The clock the command's own waits run on (scaled-clock.ts); the system clock if absent. */
  readonly clock?: Clock;
  /** The client's page bound (CliIO.maxPages); the product's 1,000 if absent. */
  readonly maxPages?: number;
}

/**
 * The working folder is process-wide: runs that overlap (two applies racing for a lock) must
 * agree on it, or the second would read the first's relative paths. Test-helper state only.
 */
const cwdState: { depth: number; cwd: string | undefined; saved: string } = {
  depth: 0,
  cwd: undefined,
  saved: process.cwd(),
};

const enterCwd = (cwd: string | undefined): void => {
  if (cwdState.depth > 0 && cwd !== undefined && cwd !== cwdState.cwd)
    throw new Error(`overlapping in-process runs with different working folders: ${cwd}`);
  if (cwdState.depth === 0) {
    cwdState.saved = process.cwd();
    cwdState.cwd = cwd;
    if (cwd !== undefined) process.chdir(cwd);
  }
  cwdState.depth += 1;
};

const leaveCwd = (): void => {
  cwdState.depth -= 1;
  if (cwdState.depth === 0) {
    if (cwdState.cwd !== undefined) process.chdir(cwdState.saved);
    cwdState.cwd = undefined;
  }
};

/**
 * Run `body` with `cwd` as the process's working folder (restored after), under the same
 * guard as the CLI's in-process runs: code run in this process in place of a child process
 * (a CI runner's script step) resolves relative paths where the child would have.
 */
export const withWorkingFolder = async <T>(cwd: string, body: () => Promise<T>): Promise<T> => {
  enterCwd(cwd);
  try {
    return await body();
  } finally {
    leaveCwd();
  }
};

const collect = (stream: PassThrough): (() => Promise<string>) => {
  const chunks: Buffer[] = [];
  stream.on("data", (d: Buffer) => chunks.push(d));
  return async () => {
    stream.end();
    await finished(stream);
    return Buffer.concat(chunks).toString("utf8");
  };
};

const asTty = <T extends object>(stream: T, on: boolean | undefined): T & { isTTY?: boolean } =>
  on === true ? Object.assign(stream, { isTTY: true }) : stream;

export const runInProcess = async (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  options: InProcessOptions = {},
): Promise<InProcessResult> => {
  const out = new PassThrough();
  const err = new PassThrough();
  const stdin = new PassThrough();
  const stdout = collect(out);
  const stderr = collect(err);
  stdin.end(options.input ?? "");
  const io: CliIO = {
    stdin: asTty(stdin, options.tty?.stdin),
    stdout: asTty(out, options.tty?.stdout),
    stderr: asTty(err, options.tty?.stderr),
    env,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
  };
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w);
  };
  process.on("warning", onWarning);
  enterCwd(options.cwd);
  let timer: NodeJS.Timeout | undefined;
  let code: number;
  const timeoutMs = options.timeoutMs ?? 60_000;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`waybill ${args.join(" ")}: no exit within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    code = await Promise.race([main(["node", "waybill", ...args], io), timeout]);
  } finally {
    clearTimeout(timer);
    leaveCwd();
    // A warning is emitted on the next tick: let it arrive before looking.
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", onWarning);
  }
  const result = { code, stdout: await stdout(), stderr: await stderr() };
  // Issue 21: in-process runs are scanned like child-process runs: the token and every env
  // value, in every encoding a secret can take.
  const secrets = [
    ...Object.entries(env)
      .filter(([name]) => !NOT_SECRET_ENV.has(name))
      .map(([, value]) => value),
    ...(options.secrets ?? []),
  ].filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);
  const leak = findLeak({ stdout: result.stdout, stderr: result.stderr }, secrets);
  if (leak !== undefined) throw new Error(`waybill ${args.join(" ")}: ${leak}`);
  // A Node process warning (MaxListenersExceededWarning, a deprecation, ...) is noise a user
  // sees on every run: no command may cause one.
  if (warnings.length > 0) {
    throw new Error(
      `waybill ${args.join(" ")} caused a Node warning: ${warnings.map((w) => `${w.name}: ${w.message}`).join("; ")}`,
    );
  }
  return result;
};
