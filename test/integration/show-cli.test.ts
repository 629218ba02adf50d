/**
 * `waybill show PLANFILE` and `waybill version` (issue 20). `show` renders a plan saved with
 * `plan --out` exactly as `plan` printed it, in every format, without a token or a request;
 * a file that is not a saved plan is exit 1 with a message that says what to do.
 */
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/version.js";
import { expectNoSecrets } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
import {
  ALL_SECRETS,
  baseSeed,
  DESIRED_SECRETS,
  envRef,
  matchingConfig,
  matchingEnv,
} from "./plan-fixture.js";

const changedConfig = matchingConfig.replace(
  "      AWS_REGION: eu-west-1\n",
  `      NEW_KEY: ${envRef("NEW_SECRET")}\n`,
);
const env = { ...matchingEnv, NEW_SECRET: DESIRED_SECRETS.NEW_SECRET };

describe("waybill show", () => {
  const suite = useEmulatorSuite(baseSeed, {
    changed: { name: "changed.yaml", content: changedConfig },
  });

  it("renders a saved plan as plan printed it, in text, JSON and Markdown, with no request", async () => {
    const connection = {
      SERVICE_BASE_URL: suite.emulator.url,
      SERVICE_TOKEN: suite.emulator.token,
    };
    const outputs: Record<string, string> = {};
    for (const format of ["text", "json", "markdown"]) {
      const file = suite.tmp.path(`saved-${format}.json`);
      const planned = await runInProcess(
        ["plan", "-c", suite.files.changed, "--format", format, "--out", file],
        { ...env, ...connection },
      );
      expect(planned.code, planned.stderr).toBe(0);
      expect(planned.stdout).toContain("NEW_KEY");
      const before = (await suite.emulator.requests()).length;
      // No connection at all: show never needs one.
      const shown = await runInProcess(["show", file, "--format", format], {});
      expect(shown.code, shown.stderr).toBe(0);
      // The saved file holds neither the config path nor the commit that the plan's
      // Markdown names under its summary: show names the org(s) only.
      const asSaved =
        format === "markdown"
          ? planned.stdout.replace(/ · config `[^`\n]*`( · commit `[0-9a-f]+`)?/, "")
          : planned.stdout;
      expect(shown.stdout).toBe(asSaved);
      expect(shown.stderr).toBe(
        `Saved by waybill ${VERSION} for ${suite.emulator.url} (gh/acme).\n`,
      );
      expect((await suite.emulator.requests()).length).toBe(before);
      outputs[format] = shown.stdout;
    }
    // Text is the default format.
    const file = suite.tmp.path("saved-text.json");
    expect((await runInProcess(["show", file], {})).stdout).toBe(outputs.text);
    expectNoSecrets(outputs, ALL_SECRETS);
  });

  it("refuses what is not a saved plan, saying how to make one (exit 1)", async () => {
    const missing = await runInProcess(["show", suite.tmp.path("nope.json")], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read the plan file");
    const jsonPlan = suite.tmp.path("json-output.json");
    await writeFile(jsonPlan, JSON.stringify({ format_version: 1, changes: [] }));
    const notSaved = await runInProcess(["show", jsonPlan], {});
    expect(notSaved.code).toBe(1);
    expect(notSaved.stderr).toContain("waybill plan --out FILE");
    const badFormat = await runInProcess(["show", jsonPlan, "--format", "yaml"], {});
    expect(badFormat.code).toBe(1);
    expect(badFormat.stderr).toMatch(/Allowed choices are text, json, markdown/);
  });
});

describe("waybill version", () => {
  it("prints the package version with the runtime, as text and JSON; --version stays bare", async () => {
    const text = await runInProcess(["version"], {});
    expect(text).toEqual({
      code: 0,
      stdout: `waybill ${VERSION}\nnode ${process.version} on ${process.platform}-${process.arch}\n`,
      stderr: "",
    });
    const json = await runInProcess(["version", "--format", "json"], {});
    expect(JSON.parse(json.stdout)).toEqual({
      version: VERSION,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect((await runInProcess(["--version"], {})).stdout).toBe(`${VERSION}\n`);
  });
});
