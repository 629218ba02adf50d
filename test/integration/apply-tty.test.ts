/**
 * `waybill apply` on a terminal, in-process with injected streams (conventions.md §7):
 * it shows the plan, asks for `yes`, and shows one live progress line.
 */
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, configWrites, contextNames, createConfig } from "./apply-fixture.js";
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
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
  });

  const runTty = async (answer: string) => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = sink(true);
    const stderr = sink(true);
    stdin.end(`${answer}\n`);
    const code = await main(
      ["node", "waybill", "apply", "-c", suite.files.createPath, "--no-color"],
      {
        stdin,
        stdout: stdout.stream,
        stderr: stderr.stream,
        env: {
          ...applyEnv,
          SERVICE_BASE_URL: suite.emulator.url,
          SERVICE_TOKEN: suite.emulator.token,
        },
      },
    );
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it("asks for yes; any other answer changes nothing", async () => {
    const contextsBefore = contextNames(await suite.emulator.state());
    const r = await runTty("no");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('webhook["deploys"]');
    expect(r.stderr).toMatch(/Only 'yes' will be accepted/);
    expect(r.stderr).toMatch(/nothing was changed/);
    // The org lock's own context (taken before the plan) is the only write, and it is gone.
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    expect(contextNames(await suite.emulator.state())).toEqual(contextsBefore);
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
