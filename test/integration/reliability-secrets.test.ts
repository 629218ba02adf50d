/**
 * Issue 7, secrets and the token, end to end through the CLI against the emulator: with
 * `--verbose` and `--token-file`, no command (validate, plan --out, drift, apply, export)
 * puts the token or any secret value into stdout, stderr, a saved plan or an export; the
 * service's error texts that echo a secret are scrubbed; the token never travels in a URL
 * or to another host on a redirect; an `http://` base URL is refused unless loopback.
 */

import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { createSecretRegistry, type SecretRegistry } from "../helpers/secrets.js";
import {
  ALL_SECRETS,
  baseSeed,
  DESIRED_SECRETS,
  envRef,
  matchingConfig,
  matchingEnv,
} from "./plan-fixture.js";

/** Changes every secret-bearing kind, so plan, apply and drift all handle secret values. */
const changedConfig = matchingConfig.replace(
  "      AWS_REGION: eu-west-1\n",
  `      NEW_KEY: ${envRef("NEW_SECRET")}\n`,
);
const changedEnv = {
  ...matchingEnv,
  PROD_AWS_SECRET: DESIRED_SECRETS.PROD_AWS_SECRET,
  NPM_TOKEN: DESIRED_SECRETS.NPM_TOKEN,
  NEW_SECRET: DESIRED_SECRETS.NEW_SECRET,
  SLACK_SIGNING_SECRET: DESIRED_SECRETS.SLACK_SIGNING_SECRET,
};

describe("no secret and no token in any output", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let config: string;
  let tokenFile: string;
  let secrets: SecretRegistry;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    config = await tmp.write("waybill.yaml", changedConfig);
    tokenFile = await tmp.write("token", `${emulator.token}\n`, 0o600);
    secrets = createSecretRegistry(emulator.token, ...ALL_SECRETS);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  /** Token only through --token-file: the env holds the secrets and the base URL. */
  const run = (args: string[]) =>
    runCli([...args, "--token-file", tokenFile], {
      env: { ...changedEnv, SERVICE_BASE_URL: emulator.url },
      secrets: secrets.values,
    });

  it("every command with --verbose: validate, plan --out, drift, apply, export", async () => {
    const planFile = tmp.path("saved.plan");
    const exportDir = `${tmp.path("exported")}/`;
    const validate = await runCli(["validate", "-c", config], {
      env: changedEnv,
      secrets: secrets.values,
    });
    expect(validate.code).toBe(0);
    const plan = await run(["plan", "-c", config, "--verbose", "--out", planFile]);
    expect(plan.code).toBe(0);
    // --verbose logs requests; the log names routes, never the token.
    expect(plan.stderr).toMatch(/GET \/api\/v3\/contexts/);
    const planJson = await run(["plan", "-c", config, "--verbose", "--format", "json"]);
    const drift = await run(["drift", "-c", config, "--verbose", "--format", "markdown"]);
    expect(drift.code).toBe(2);
    const apply = await run(["apply", planFile, "-c", config, "--verbose", "--auto-approve"]);
    expect(apply.code, apply.stderr).toBe(0);
    const exported = await run([
      "export",
      "--org",
      "gh/acme",
      "--all-projects",
      "-o",
      exportDir,
      "--verbose",
    ]);
    expect(exported.code, exported.stderr).toBe(0);

    secrets.expectClean({
      "validate stdout": validate.stdout,
      "validate stderr": validate.stderr,
      "plan stdout": plan.stdout,
      "plan stderr": plan.stderr,
      "plan json": planJson.stdout,
      "drift stdout": drift.stdout,
      "drift stderr": drift.stderr,
      "apply stdout": apply.stdout,
      "apply stderr": apply.stderr,
      "export stderr": exported.stderr,
    });
    await secrets.expectFilesClean(planFile, exportDir);
    // Plan files and exports are written for the owner only.
    expect((await stat(planFile)).mode & 0o777).toBe(0o600);
    expect((await stat(`${exportDir}org.yaml`)).mode & 0o777).toBe(0o600);
    // The token went in a header only: the service saw it in no query and refused nothing.
    const log = await emulator.requests();
    expect(log.length).toBeGreaterThan(10);
    expect(log.filter((e) => e.status === 401)).toEqual([]);
    expect(JSON.stringify(log)).not.toContain(emulator.token);
    // The apply did write what the secrets demanded (so the scan covered real secret traffic).
    const state = await emulator.state();
    const prod = state.orgs?.[0]?.contexts?.find((c) => c.name === "deploy-prod");
    expect(prod?.env?.NEW_KEY).toBe(DESIRED_SECRETS.NEW_SECRET);
  });

  it("a service error that echoes a secret or the token is scrubbed, on read and on write", async () => {
    const echo = (value: string) => ({
      error: {
        type: "invalid_request",
        title: "Bad request",
        detail: `value ${value} and token ${emulator.token} rejected`,
      },
    });
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        status: 400,
        json: echo(DESIRED_SECRETS.NEW_SECRET),
      },
    ]);
    const plan = await run(["plan", "-c", config, "--verbose"]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("GET /api/v3/contexts");
    expect(plan.stderr).toContain("rejected");

    await emulator.script([
      {
        method: "POST",
        path: "/api/v3/contexts/*/env-vars/set",
        status: 400,
        json: echo(DESIRED_SECRETS.PROD_AWS_SECRET),
        times: 5,
      },
    ]);
    const apply = await run(["apply", "-c", config, "--auto-approve", "--verbose"]);
    expect(apply.code).toBe(1);
    expect(`${apply.stdout}${apply.stderr}`).toContain("rejected");
    secrets.expectClean({
      "plan stderr": plan.stderr,
      "apply stdout": apply.stdout,
      "apply stderr": apply.stderr,
    });
  });
});

describe("the token never leaves for another host", () => {
  let emulator: TestEmulator;
  let other: Server;
  let otherUrl: string;
  const otherSaw: string[] = [];
  let tmp: TempDir;
  let config: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    // "Another host": a second loopback server that records every request it gets.
    other = createServer((req, res) => {
      otherSaw.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.2", r));
    otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    tmp = await makeTempDir();
    config = await tmp.write("waybill.yaml", matchingConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await new Promise<void>((r) => other.close(() => r()));
    await tmp?.remove();
  });

  it("a redirect is not followed: the command fails naming it, the other host gets nothing", async () => {
    for (const status of [301, 302, 307, 308]) {
      await emulator.script([
        {
          path: "/api/v3/orgs",
          status,
          headers: { Location: `${otherUrl}/api/v3/orgs?filter[slug]=gh/acme` },
        },
      ]);
      const r = await runCli(["plan", "-c", config], {
        baseUrl: emulator.url,
        token: emulator.token,
        env: matchingEnv,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`failed with ${status}`);
      expect(r.stderr).toContain("not followed");
    }
    expect(otherSaw).toEqual([]);
  });

  it("an http:// base URL that is not loopback is refused by every command, before any request", async () => {
    const runs = [
      ["plan", "-c", config],
      ["drift", "-c", config],
      ["apply", "-c", config, "--auto-approve"],
      ["export", "--org", "gh/acme"],
    ];
    for (const args of runs) {
      const r = await runCli([...args, "--base-url", "http://service.example.com"], {
        token: emulator.token,
        env: matchingEnv,
      });
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr).toMatch(/http:\/\/ base URL/);
    }
    // Loopback http is fine (the emulator): the same plan works.
    const ok = await runCli(["plan", "-c", config, "--base-url", emulator.url], {
      token: emulator.token,
      env: matchingEnv,
    });
    expect(ok.code).toBe(0);
  });
});
