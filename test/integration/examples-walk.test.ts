/**
 * Issue 14 "Done when": every config under examples/ validates, plans and applies on the
 * emulator, then plans empty. One walk over all of them, through the CLI (in process), each
 * against an emulator seeded with the orgs, projects and groups the example names (the demo
 * with its own seed, which also holds live state to change).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { loadConfig } from "../../src/config/index.js";
import { expectNoSecrets, REPO_ROOT } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { exampleEnv, exampleSeed } from "../helpers/examples.js";
import { runInProcess } from "../helpers/in-process.js";

const EXAMPLES = join(REPO_ROOT, "examples");

/** Every Waybill config under examples/: the YAML files and the config folders. */
const examples = [
  ...readdirSync(EXAMPLES)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join("examples", f)),
  ...readdirSync(EXAMPLES)
    // examples/ci holds CI recipes (workflow YAML), examples/secrets a file a config reads.
    .filter((f) => f !== "ci" && f !== "secrets")
    .filter((f) => statSync(join(EXAMPLES, f)).isDirectory())
    .map((f) => join("examples", f)),
].sort();

describe("every example config: validate, plan, apply on the emulator, then plan empty", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator({});
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("covers the examples the README shows", () => {
    expect(examples).toEqual(
      expect.arrayContaining([
        "examples/small.yaml",
        "examples/full.yaml",
        "examples/large-org",
        "examples/demo",
      ]),
    );
  });

  it.each(examples)(
    "%s",
    async (config) => {
      const secrets = exampleEnv(config);
      const loaded = await loadConfig(join(REPO_ROOT, config), { env: secrets });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics, null, 2));
      const seed: Seed =
        config === join("examples", "demo")
          ? (JSON.parse(readFileSync(join(EXAMPLES, "demo", "seed.json"), "utf8")) as Seed)
          : exampleSeed(loaded.config);
      await emulator.reset(seed);
      const token = seed.tokens?.[0]?.token ?? emulator.token;
      const env = { SERVICE_BASE_URL: emulator.url, SERVICE_TOKEN: token, ...secrets };
      const c = join(REPO_ROOT, config);
      const outputs: { stdout: string; stderr: string }[] = [];
      const run = async (args: string[]) => {
        const r = await runInProcess(args, env);
        outputs.push({ stdout: r.stdout, stderr: r.stderr });
        return r;
      };

      const validate = await run(["validate", "-c", c]);
      expect(validate.code, validate.stderr).toBe(0);
      const plan = await run(["plan", "-c", c, "--detailed-exitcode"]);
      expect(plan.code, plan.stderr + plan.stdout).toBe(2);
      const apply = await run(["apply", "-c", c, "--auto-approve"]);
      expect(apply.code, apply.stderr + apply.stdout).toBe(0);
      const again = await run(["plan", "-c", c, "--detailed-exitcode"]);
      expect(again.stdout, again.stderr + again.stdout).toContain("No changes");
      expect(again.code).toBe(0);
      for (const o of outputs) expectNoSecrets(o, Object.values(secrets));
    },
    60_000,
  );
});
