/**
 * Issue 21: apply's own output suggests `--force-secrets` for unverified secrets, and the
 * flag did not exist on apply. It has plan's meaning: re-set the matching secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { baseSeed, DESIRED_SECRETS, matchingConfig, matchingEnv } from "./plan-fixture.js";

describe("apply --force-secrets", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let config: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    config = await tmp.write("waybill.yaml", matchingConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  it("re-sets an unverified secret (same last four) that apply alone leaves alone", async () => {
    // Same last four as the live value: unverified, so a plain apply does not touch it.
    const env = { ...matchingEnv, PROD_DEPLOY_TOKEN: DESIRED_SECRETS.PROD_DEPLOY_TOKEN };
    const options = { baseUrl: emulator.url, token: emulator.token, env };
    const plain = await runCli(["apply", "-c", config, "--auto-approve"], options);
    expect(plain.code).toBe(0);
    expect(`${plain.stdout}${plain.stderr}`).toMatch(/--force-secrets/);
    await emulator.clearRequests();
    const forced = await runCli(
      ["apply", "-c", config, "--auto-approve", "--force-secrets", 'context["deploy-prod"].*'],
      options,
    );
    expect(forced.stderr).toBe(forced.stderr.replace(/unknown option/, ""));
    expect(forced.code).toBe(0);
    const sets = (await emulator.requests()).filter(
      (r) => r.method === "POST" && /env-vars\/set$/.test(r.path),
    );
    expect(sets.length).toBeGreaterThanOrEqual(1);
  });
});
