/**
 * Run the CLI for integration tests. `runCli` runs it in this process (in-process.ts: `main`
 * with an injected env, cwd and stdin; the same leak and warning checks), which is how the
 * suite stays fast on 2 cores. `spawnCli` runs the built CLI (`node bin/waybill.js`) as a
 * child process, for the few tests where a real process is the point (signals, exit status
 * of the real binary); they need `npm run build` first (`npm test` does it).
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { Clock } from "../../src/api/types.js";
import { runInProcess } from "./in-process.js";
import { findLeak, MIN_SECRET_LENGTH, NOT_SECRET_ENV } from "./secrets.js";

export { NOT_SECRET_ENV };

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI_BIN = join(REPO_ROOT, "bin", "waybill.js");

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCliOptions {
  /** SERVICE_BASE_URL (omitted when undefined). */
  readonly baseUrl?: string;
  /** SERVICE_TOKEN (omitted when undefined). */
  readonly token?: string;
  /** More environment variables (e.g. the values of `${env:…}` references). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Written to stdin, then closed (stdin is never a TTY here). */
  readonly input?: string;
  /** Fail (in-process) or kill (child) after this many ms: a hung CLI fails the test. */
  readonly timeoutMs?: number;
  /**
   * More secret values that must not appear in stdout or stderr (issue 7). The token and
   * every `env` value (but those of NOT_SECRET_ENV) are scanned for anyway.
   */
  readonly secrets?: readonly string[];
  /** In-process only: the clock the command's waits run on (scaled-clock.ts). */
  readonly clock?: Clock;
  /** In-process only: the client's page bound (the product's 1,000 if absent). */
  readonly maxPages?: number;
  /** spawnCli only: each piece of stderr as it arrives (to time the lines of a long run). */
  readonly onStderr?: (text: string) => void;
}

/**
 * Issue 7: the values `runCli` treats as secrets: the token, the values of `${env:…}`
 * references (every `env` value), and `secrets`. Short values are skipped (they would match
 * by chance).
 */
const secretsOf = (options: RunCliOptions): string[] =>
  [
    options.token,
    ...Object.entries(options.env ?? {})
      .filter(([name]) => !NOT_SECRET_ENV.has(name))
      .map(([, value]) => value),
    ...(options.secrets ?? []),
  ].filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);

/**
 * The environment of a run: a minimal one (PATH, HOME and what is given), so a developer's
 * own SERVICE_TOKEN can never leak into a test.
 */
const envOf = (options: RunCliOptions): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? tmpdir(),
  NO_COLOR: "1",
  ...(options.baseUrl !== undefined ? { SERVICE_BASE_URL: options.baseUrl } : {}),
  ...(options.token !== undefined ? { SERVICE_TOKEN: options.token } : {}),
  ...options.env,
});

/** Run `waybill ...args` in this process (see in-process.ts), in `cwd` (default the repo root). */
export const runCli = (args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> =>
  runInProcess(args, envOf(options), {
    cwd: options.cwd ?? REPO_ROOT,
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    secrets: secretsOf(options),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
  });

/**
 * Run `node bin/waybill.js ...args` as a child process: only for tests where a real process
 * is the point (a signal, the real exit status); everything else uses `runCli`.
 */
export const spawnCli = (
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> => {
  const env = envOf(options);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => {
      err.push(b);
      options.onStderr?.(b.toString("utf8"));
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const result = {
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      };
      // Issue 7: every CLI run of every integration test is scanned for leaked secrets.
      const leak = findLeak({ stdout: result.stdout, stderr: result.stderr }, secretsOf(options));
      // A Node process warning (MaxListenersExceededWarning, a deprecation, ...) is noise a
      // user sees on every run: no command may print one.
      const warning = /\(node:\d+\) \[?\w*Warning/.exec(result.stderr);
      if (leak !== undefined) reject(new Error(`waybill ${args.join(" ")}: ${leak}`));
      else if (warning !== null) {
        reject(new Error(`waybill ${args.join(" ")} printed a Node warning:\n${result.stderr}`));
      } else resolvePromise(result);
    });
    child.stdin.end(options.input ?? "");
  });
};

export interface TempDir {
  readonly dir: string;
  /** Absolute path of a file in the folder. */
  path(name: string): string;
  /** Write a file (folders created as needed); returns its absolute path. */
  write(name: string, content: string, mode?: number): Promise<string>;
  remove(): Promise<void>;
}

export const makeTempDir = async (prefix = "waybill-test-"): Promise<TempDir> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    path: (name) => join(dir, name),
    write: async (name, content, mode) => {
      const file = join(dir, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content, mode === undefined ? {} : { mode });
      return file;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
};

/** Write `waybill.yaml` in a fresh temp folder; returns the folder and the config path. */
export const writeTempConfig = async (
  yaml: string,
): Promise<{ readonly tmp: TempDir; readonly configPath: string }> => {
  const tmp = await makeTempDir();
  const configPath = await tmp.write("waybill.yaml", yaml);
  return { tmp, configPath };
};

/**
 * Assert that no secret value occurs in any output (stdout, stderr, a saved plan, ...).
 * `outputs` names each text so a failure says where the secret leaked. Secrets shorter than
 * eight characters are refused: they would match by chance and make the scan meaningless.
 */
export const expectNoSecrets = (
  outputs: Readonly<Record<string, string>>,
  secrets: readonly string[],
): void => {
  for (const secret of secrets)
    expect(secret.length, "a secret is too short to scan for").toBeGreaterThanOrEqual(8);
  // Every encoding, not only the raw value (issue 21; test/helpers/secrets.ts `leakForms`).
  expect(findLeak(outputs, secrets)).toBeUndefined();
};
