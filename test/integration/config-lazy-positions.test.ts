/**
 * Issue 8: a valid config is read by the fast YAML path, and its source positions (which
 * cost a second, full parse: src/config/yaml-doc.ts) are looked up only to report a
 * problem. This runs a real `plan` in-process against the emulator and counts the look-ups
 * (`locate`, through which every position is read): none for a valid config, so nothing
 * on the plan path (a walk over the desired config, the digest, the secret scrubber)
 * reads a location and brings the slow parse back.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateOrg } from "../../bench/generate.js";
import { locate } from "../../src/config/yaml-doc.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess as run } from "../helpers/in-process.js";

vi.mock("../../src/config/yaml-doc.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/config/yaml-doc.js")>();
  return { ...real, locate: vi.fn(real.locate) };
});

const gen = generateOrg("small");

describe("source positions of a valid config are never looked up", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startTestEmulator(gen.seed);
    tmp = await makeTempDir();
    env = {
      ...gen.secrets,
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: gen.seed.tokens?.[0]?.token ?? "",
    };
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });

  it("by plan (with a saved plan file) and drift", async () => {
    const config = await tmp.write("waybill.yaml", gen.changedConfigYaml);
    vi.mocked(locate).mockClear();
    const plan = await run(["plan", "-c", config, "--out", tmp.path("plan.json")], env);
    expect(plan.stderr).not.toMatch(/Error/);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/to update/);
    const drift = await run(["drift", "-c", config], env);
    expect(drift.code).toBe(2);
    expect(vi.mocked(locate)).not.toHaveBeenCalled();
  });

  it("but are, to report a problem in the same kind of file", async () => {
    const broken = gen.configYaml.replace("contexts:", "contexts:\n  bad-context: 7");
    const config = await tmp.write("broken.yaml", broken);
    vi.mocked(locate).mockClear();
    const result = await run(["validate", "-c", config], env);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/broken\.yaml:3:16: contexts\.bad-context/);
    expect(vi.mocked(locate)).toHaveBeenCalled();
  });
});
