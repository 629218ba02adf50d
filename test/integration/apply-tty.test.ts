/**
 * `waybill apply` on a terminal, in-process with injected streams (conventions.md §7):
 * it shows the plan, asks for `yes`, and shows one live progress line.
 */
import { describe, expect, it } from "vitest";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
import { applyEnv, configWrites, contextNames, createConfig } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

describe("waybill apply on a terminal", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
  });

  const runTty = (answer: string) =>
    runInProcess(
      ["apply", "-c", suite.files.createPath, "--no-color"],
      { ...applyEnv, SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token },
      { input: `${answer}\n`, tty: { stdin: true, stdout: true, stderr: true } },
    );

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
