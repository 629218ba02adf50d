/**
 * `waybill apply` on a terminal, in-process with injected streams (conventions.md §7):
 * it shows the plan, asks for `yes`, and shows one live progress line.
 */
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { applyEnv, createConfig } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

const sink = (tty: boolean) => {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY: tty },
  );
  return { stream, text: () => chunks.join("") };
};

describe("waybill apply on a terminal", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let createPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    createPath = await tmp.write("create.yaml", createConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const runTty = async (answer: string) => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = sink(true);
    const stderr = sink(true);
    stdin.end(`${answer}\n`);
    const code = await main(["node", "waybill", "apply", "-c", createPath, "--no-color"], {
      stdin,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: { ...applyEnv, SERVICE_BASE_URL: emulator.url, SERVICE_TOKEN: emulator.token },
    });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it("asks for yes; any other answer changes nothing", async () => {
    const r = await runTty("no");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('webhook["deploys"]');
    expect(r.stderr).toMatch(/Only 'yes' will be accepted/);
    expect(r.stderr).toMatch(/nothing was changed/);
    expect((await emulator.requests()).filter((q) => q.method !== "GET")).toEqual([]);
  });

  it("applies on yes, with one rewritten progress line", async () => {
    const r = await runTty("yes");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\rApplying \d+\/\d+…/);
    // On a terminal there is no line per operation on stderr; the summary is on stdout.
    expect(r.stderr).not.toMatch(/: created in /);
    expect(r.stdout).toMatch(/Apply complete: \d+ done, 0 failed, 0 skipped\./);
    expect(r.stderr).toMatch(/all org members/);
  });
});
