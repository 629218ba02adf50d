/**
 * Run the CLI in this process (`main` with injected streams), for tests that spy on a
 * module or run many commands quickly. Child-process runs, the way users run it, are in
 * cli.ts.
 */
import { PassThrough } from "node:stream";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { NOT_SECRET_ENV } from "./cli.js";
import { findLeak, MIN_SECRET_LENGTH } from "./secrets.js";

export const runInProcess = async (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ code: number; stdout: string; stderr: string }> => {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = "";
  let stderr = "";
  out.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  err.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const io: CliIO = { stdin: new PassThrough(), stdout: out, stderr: err, env };
  const code = await main(["node", "waybill", ...args], io);
  // Issue 21: in-process runs are scanned like child-process runs (test/helpers/cli.ts):
  // the token and every env value, in every encoding a secret can take.
  const secrets = Object.entries(env)
    .filter(([name]) => !NOT_SECRET_ENV.has(name))
    .map(([, value]) => value)
    .filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH);
  const leak = findLeak({ stdout, stderr }, secrets);
  if (leak !== undefined) throw new Error(`waybill ${args.join(" ")}: ${leak}`);
  return { code, stdout, stderr };
};
