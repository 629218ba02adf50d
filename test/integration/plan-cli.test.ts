/**
 * `waybill plan` as users run it: exit codes, --out, secrets kept out of every output, no
 * request at all when the config is invalid, not-visible projects reported (issue 4).
 */
import { readFile, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import {
  ALL_SECRETS,
  baseSeed,
  DESIRED_SECRETS,
  envRef,
  matchingConfig,
  matchingEnv,
} from "./plan-fixture.js";

/** Changes that touch every secret-bearing kind (env vars, signing secret). */
const changedConfig = matchingConfig
  .replace("      AWS_REGION: eu-west-1\n", "      NEW_KEY: " + envRef("NEW_SECRET") + "\n")
  .replace("https://hooks.example.com/services/T0", "https://hooks.example.com/services/T1");
const changedEnv = {
  ...matchingEnv,
  PROD_AWS_SECRET: DESIRED_SECRETS.PROD_AWS_SECRET,
  PROD_DEPLOY_TOKEN: DESIRED_SECRETS.PROD_DEPLOY_TOKEN,
  NPM_TOKEN: DESIRED_SECRETS.NPM_TOKEN,
  NEW_SECRET: DESIRED_SECRETS.NEW_SECRET,
  SLACK_SIGNING_SECRET: DESIRED_SECRETS.SLACK_SIGNING_SECRET,
};

describe("waybill plan", () => {
  const suite = useEmulatorSuite(baseSeed, {
    matching: { name: "matching.yaml", content: matchingConfig },
    changed: { name: "changed.yaml", content: changedConfig },
  });

  const run = (args: string[], env: Record<string, string> = changedEnv) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env });

  it("--detailed-exitcode: 0 without changes, 2 with; plain plan exits 0 either way", async () => {
    expect(
      (await run(["plan", "-c", suite.files.matching, "--detailed-exitcode"], matchingEnv)).code,
    ).toBe(0);
    const withChanges = await run(["plan", "-c", suite.files.changed, "--detailed-exitcode"]);
    expect(withChanges.code).toBe(2);
    expect(withChanges.stdout).toContain('project["gh/acme/api"].webhook["slack"]');
    expect((await run(["plan", "-c", suite.files.changed])).code).toBe(0);
  });

  // Issue 21: the synthetic OAuth pipeline's would-be delete was never probed when --target
  // left it out, so it was counted among the "other changes left for a later apply".
  it("--target counts only the changes a plan without --target has", async () => {
    const all = JSON.parse(
      (await run(["plan", "-c", suite.files.changed, "--format", "json"])).stdout,
    );
    const r = await run([
      "plan",
      "-c",
      suite.files.changed,
      "--format",
      "json",
      "--target",
      'project["gh/acme/api"].webhook["slack"]',
    ]);
    expect(r.code).toBe(0);
    const targeted = JSON.parse(r.stdout);
    expect(targeted.changes.length).toBe(1);
    const left = all.changes.length - targeted.changes.length;
    expect(left).toBeGreaterThan(0);
    expect(targeted.warnings).toContain(
      `the plan is limited by --target: ${left} other change(s) are left for a later apply`,
    );
  });

  it("prints the plan on stdout and progress on stderr", async () => {
    const r = await run(["plan", "-c", suite.files.changed, "--format", "json"]);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    expect(r.stderr).toMatch(/Reading live state/);
  });

  it("keeps every secret out of stdout, stderr and the saved plan, in every format", async () => {
    const outputs: Record<string, string> = {};
    for (const format of ["text", "json", "markdown"]) {
      const out = suite.tmp.path(`plan-${format}.json`);
      const r = await run([
        "plan",
        "-c",
        suite.files.changed,
        "--format",
        format,
        "--out",
        out,
        "--verbose",
        "--force-secrets",
      ]);
      expect(r.code, r.stderr).toBe(0);
      outputs[`${format} stdout`] = r.stdout;
      outputs[`${format} stderr`] = r.stderr;
      outputs[`${format} saved plan`] = await readFile(out, "utf8");
      // --verbose logs the requests, without the token.
      expect(r.stderr).toMatch(/GET \/api\/v3\//);
    }
    expectNoSecrets(outputs, [...ALL_SECRETS, suite.emulator.token]);
    // The secrets were really planned (so the scan is not vacuous).
    const planned = JSON.parse(outputs["json stdout"] ?? "{}") as {
      changes: { address: string }[];
    };
    expect(planned.changes.map((c) => c.address)).toContain(
      'context["deploy-prod"].env["NEW_KEY"]',
    );
    expect(outputs["json stdout"]).toContain("(sensitive)");
  });

  it("--out writes the JSON plan readable by its owner only", async () => {
    const out = suite.tmp.path("saved.json");
    await suite.tmp.write("saved.json", "old", 0o644);
    const r = await run(["plan", "-c", suite.files.changed, "--out", out]);
    expect(r.code).toBe(0);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(out, "utf8")) as {
      saved_plan_format: number;
      base_url: string;
      plan: { changes: unknown[] };
    };
    expect(saved.saved_plan_format).toBe(1);
    expect(saved.base_url).toBe(suite.emulator.url);
    expect(saved.plan.changes.length).toBeGreaterThan(0);
  });

  it("saves a plan that apply accepts, after which a plan is empty", async () => {
    const out = suite.tmp.path("roundtrip.json");
    expect((await run(["plan", "-c", suite.files.changed, "--out", out])).code).toBe(0);
    const applied = await run(["apply", out, "-c", suite.files.changed, "--auto-approve"]);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await run(["plan", "-c", suite.files.changed, "--detailed-exitcode"])).code).toBe(0);
  });

  it("refuses --out with --skip-secrets before any request", async () => {
    const r = await run(
      ["plan", "-c", suite.files.changed, "--skip-secrets", "--out", suite.tmp.path("x.json")],
      {},
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--skip-secrets/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("plans without secret values under --skip-secrets", async () => {
    const r = await run(
      ["plan", "-c", suite.files.changed, "--skip-secrets", "--format", "json"],
      {},
    );
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { saveable: boolean };
    expect(plan.saveable).toBe(false);
  });

  it("makes no request at all when the config is invalid", async () => {
    const bad = await suite.tmp.write(
      "bad.yaml",
      "org: gh/acme\ncontexts:\n  x:\n    env: [1, 2\n",
    );
    const r = await run(["plan", "-c", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("bad.yaml:");
    expect(r.stderr).toMatch(/no API call/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("lists every missing env reference at once and makes no request", async () => {
    const r = await run(["plan", "-c", suite.files.changed], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("PROD_AWS_SECRET");
    expect(r.stderr).toContain("NEW_SECRET");
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("reports a declared project that is absent or not visible instead of planning a create", async () => {
    const ghost = await suite.tmp.write(
      "ghost.yaml",
      "org: gh/acme\nprojects:\n  gh/acme/ghost:\n    env: {}\n",
    );
    const r = await run(["plan", "-c", ghost, "--format", "json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${ghost}:3:3: projects.gh/acme/ghost: no project "gh/acme/ghost" in org gh/acme (absent or not visible to this token); check the slug`,
    );
    expect(r.stdout).toBe("");
  });

  it("names every misspelt project slug with file:line:col and the closest slug, and plans nothing", async () => {
    const typo = await suite.tmp.write(
      "typo.yaml",
      [
        "org: gh/acme",
        "contexts:",
        "  deploy-prod:",
        "    restrictions:",
        '      - expression: pipeline.git.branch == "main"',
        "      - project: gh/acme/wbe",
        "projects:",
        "  gh/acme/aip:",
        "    env: {}",
        "",
      ].join("\n"),
    );
    const r = await run(["plan", "-c", typo]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "the config names 2 projects the service does not have; nothing was planned:\n" +
        `${typo}:6:9: contexts.deploy-prod.restrictions.1.project: no project "gh/acme/wbe" in org gh/acme (absent or not visible to this token); did you mean "gh/acme/web"?\n` +
        `${typo}:8:3: projects.gh/acme/aip: no project "gh/acme/aip" in org gh/acme (absent or not visible to this token); did you mean "gh/acme/api"?\n`,
    );
  });

  it("reports an org that is absent or not visible", async () => {
    const other = await suite.tmp.write("other.yaml", "org: gh/nobody\n");
    const r = await run(["plan", "-c", other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/org gh\/nobody absent or not visible/);
  });

  it("refuses an http:// base URL that is not loopback, and a missing token, before any request", async () => {
    const insecure = await runCli(
      ["plan", "-c", suite.files.matching, "--base-url", "http://service.example.com"],
      {
        token: suite.emulator.token,
        env: matchingEnv,
      },
    );
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toMatch(/http:\/\//);
    const noToken = await runCli(["plan", "-c", suite.files.matching], {
      baseUrl: suite.emulator.url,
      env: matchingEnv,
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/SERVICE_TOKEN/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("fails with the service's 401 on a wrong token, without printing it", async () => {
    const wrong = "wrong-token-value-0123456789";
    const r = await runCli(["plan", "-c", suite.files.matching], {
      baseUrl: suite.emulator.url,
      token: wrong,
      env: matchingEnv,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/401/);
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [wrong, ...ALL_SECRETS]);
  });

  it("rejects an out-of-range --parallelism before any request", async () => {
    const r = await run(["plan", "-c", suite.files.matching, "--parallelism", "0"], matchingEnv);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/parallelism/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("reads the token from --token-file and warns when others can read it", async () => {
    const tokenFile = await suite.tmp.write("token", `${suite.emulator.token}\n`, 0o644);
    const r = await runCli(["plan", "-c", suite.files.matching, "--token-file", tokenFile], {
      baseUrl: suite.emulator.url,
      env: matchingEnv,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/readable by other users/);
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [suite.emulator.token]);
  });

  it("has a help text with every option and examples", async () => {
    const r = await runCli(["plan", "--help"]);
    expect(r.code).toBe(0);
    for (const opt of [
      "--config",
      "--base-url",
      "--token-file",
      "--format",
      "--parallelism",
      "--target",
      "--no-color",
      "--verbose",
      "--out",
      "--detailed-exitcode",
      "--force-secrets",
      "--skip-secrets",
    ]) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain("Examples:");
    // There is no plain --token option (argv is visible to other users).
    expect(r.stdout).not.toMatch(/^\s+--token\s/m);
  });
});
