/**
 * `waybill schema [config|plan]` prints the JSON Schema the package ships in schemas/ (issue
 * 30: the schema travels with the binary; the single file's copy is checked in
 * release.test.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";

describe("waybill schema", () => {
  it("prints the config schema by default, and the plan schema when asked", async () => {
    const config = await readFile(join(REPO_ROOT, "schemas", "waybill.schema.json"), "utf8");
    const plan = await readFile(join(REPO_ROOT, "schemas", "plan.schema.json"), "utf8");
    for (const [args, text] of [
      [["schema"], config],
      [["schema", "config"], config],
      [["schema", "plan"], plan],
    ] as const) {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(text.endsWith("\n") ? text : `${text}\n`);
      expect(JSON.parse(r.stdout)).toHaveProperty("$schema");
    }
  });

  it("refuses another name, listing the two", async () => {
    const r = await runCli(["schema", "pipeline"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Allowed choices are config, plan/);
  });
});
