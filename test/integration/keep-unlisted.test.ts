/**
 * Issue 19 `keep_unlisted`, end to end against the emulator: a team adopting one context at
 * a time declares it under `keep_unlisted: [context["*"]]`; apply creates and updates what
 * it declares and deletes nothing else (the other contexts and their secrets stay), a plan
 * right after is empty, and drift names the kept items as unmanaged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000cc";

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/adopt",
      name: "adopt",
      default_context_restriction: false,
      contexts: [
        { name: "deploy", env: { OLD_TOKEN: "old-token-value-7731" } },
        { name: "legacy", env: { AWS_KEY: "legacy-aws-key-5521" } },
      ],
    },
  ],
});

const config = `org: gh/adopt
contexts:
  deploy:
    env:
      NEW_TOKEN: \${env:NEW_TOKEN}
keep_unlisted:
  - context["*"]
`;

describe("keep_unlisted: adopting one context at a time", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let configPath: string;
  const env = { NEW_TOKEN: "new-token-value-9048" };

  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    configPath = await tmp.write("waybill.yaml", config);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  const run = (args: string[]) =>
    runCli(args, { baseUrl: emulator.url, token: emulator.token, env });

  it("plans and applies only what the config lists, then plans empty; drift names the kept items", async () => {
    const plan = await run(["plan", "-c", configPath, "--format", "json"]);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      changes: { action: string; address: string }[];
      kept_unlisted: { address: string; resource_type: string }[];
    };
    expect(json.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'create context["deploy"].env["NEW_TOKEN"]',
    ]);
    expect(json.kept_unlisted).toEqual([
      { address: 'context["deploy"].env["OLD_TOKEN"]', resource_type: "context_env_var" },
      { address: 'context["legacy"]', resource_type: "context" },
    ]);

    const applied = await run(["apply", "-c", configPath, "--auto-approve"]);
    expect(applied.code, applied.stderr).toBe(0);
    const state = await emulator.state();
    const contexts = state.orgs?.[0]?.contexts ?? [];
    expect(contexts.find((c) => c.name === "legacy")?.env).toEqual({
      AWS_KEY: "legacy-aws-key-5521",
    });
    expect(contexts.find((c) => c.name === "deploy")?.env).toEqual({
      OLD_TOKEN: "old-token-value-7731",
      NEW_TOKEN: env.NEW_TOKEN,
    });

    const again = await run(["plan", "-c", configPath, "--detailed-exitcode"]);
    expect(again.code, again.stdout).toBe(0);

    const drift = await run(["drift", "-c", configPath, "--format", "json"]);
    expect(drift.code, drift.stderr).toBe(0);
    const report = JSON.parse(drift.stdout) as {
      drift: boolean;
      unmanaged: { address: string; why: string }[];
    };
    expect(report.drift).toBe(false);
    expect(report.unmanaged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: 'context["legacy"]', why: "kept" }),
        expect.objectContaining({ address: 'context["deploy"].env["OLD_TOKEN"]', why: "kept" }),
      ]),
    );
    const text = await run(["drift", "-c", configPath]);
    expect(text.stdout + text.stderr).toContain(
      'context["legacy"] (not in the config; left alone by keep_unlisted)',
    );
  });
});
