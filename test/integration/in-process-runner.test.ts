/**
 * The in-process runner (test/helpers/in-process.ts) replaces child-process runs in the
 * integration tests, so its own checks must be able to fail: a secret in the output, a Node
 * warning during a run, and the working folder a relative path resolves in.
 */
import { describe, expect, it } from "vitest";
import { makeTempDir, runCli } from "../helpers/cli.js";
import { runInProcess } from "../helpers/in-process.js";

describe("the in-process CLI runner", () => {
  it("fails a run whose output shows an env value (a secret)", async () => {
    const secret = "runner-secret-value-7781";
    await expect(
      runInProcess(["validate", "-c", `/nonexistent/${secret}.yaml`], { SOME_TOKEN: secret }),
    ).rejects.toThrow(/waybill validate/);
    // The same run without the value in the environment passes the scan (exit 1: no file).
    const r = await runInProcess(["validate", "-c", `/nonexistent/${secret}.yaml`], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(secret);
  });

  it("fails a run during which Node emits a process warning", async () => {
    const run = runInProcess(["--version"], {});
    process.emitWarning("a warning during the run", "TestWarning");
    await expect(run).rejects.toThrow(/caused a Node warning: TestWarning/);
  });

  it("resolves the default config in the given folder, and restores the working folder", async () => {
    const tmp = await makeTempDir();
    try {
      await tmp.write("waybill.yaml", "org: gh/acme\n");
      const before = process.cwd();
      const here = await runCli(["validate"], { cwd: tmp.dir });
      expect(here.code, here.stderr).toBe(0);
      expect(process.cwd()).toBe(before);
      const elsewhere = await runCli(["validate"]);
      expect(elsewhere.code).toBe(1);
    } finally {
      await tmp.remove();
    }
  });
});
