/**
 * `waybill drift`: exit 0 when the service matches the config, 2 after someone changes the
 * service directly (through its V3 API), naming what differs; unmanaged live items listed
 * as information (issue 4).
 */
import { describe, expect, it } from "vitest";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import {
  ALL_SECRETS,
  API_ID,
  baseSeed,
  CTX_PROD_ID,
  matchingConfig,
  matchingEnv,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

interface DriftJson {
  drift: boolean;
  plan: { changes: { address: string; action: string; fields: { path: string }[] }[] };
  unmanaged: { address: string; resource_type: string; why: string }[];
}

describe("waybill drift", () => {
  const suite = useEmulatorSuite(baseSeed, {
    config: { name: "waybill.yaml", content: matchingConfig },
  });

  const drift = (format = "text") =>
    runCli(["drift", "-c", suite.files.config, "--format", format], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });

  it("exits 0 and says so when the service matches the config", async () => {
    const r = await drift();
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/No drift/);
  });

  it("exits 2 after a change made directly on the service, and names it", async () => {
    const edit = await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://evil.example.com/hook",
    });
    expect(edit.status).toBe(200);
    await suite.emulator.clearRequests();

    const r = await drift();
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('project["gh/acme/api"].webhook["slack"]');
    expect(r.stdout).toMatch(/url/);
    // drift only reads.
    expect((await suite.emulator.requests()).filter((x) => x.method !== "GET")).toEqual([]);
    const md = await drift("markdown");
    expect(md.code).toBe(2);
    expect(md.stdout.startsWith("**Drift**: 1 item differs from the config.")).toBe(true);
    expect(md.stdout).toContain('project["gh/acme/api"].webhook["slack"]');
  });

  it("reports a context env var added and a setting changed by hand, as JSON", async () => {
    await suite.emulator.call("POST", `/api/v3/contexts/${CTX_PROD_ID}/env-vars/set`, {
      name: "SNEAKY",
      value: "hand-added-secret-value-X4242",
    });
    await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/update-settings`, {
      enable_auto_cancel_redundant_workflows: true,
    });
    const r = await drift("json");
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as DriftJson;
    expect(report.drift).toBe(true);
    const by = new Map(report.plan.changes.map((c) => [c.address, c]));
    expect(by.get('context["deploy-prod"].env["SNEAKY"]')?.action).toBe("delete");
    expect(by.get('project["gh/acme/api"].settings')?.fields.map((f) => f.path)).toContain(
      "enable_auto_cancel_redundant_workflows",
    );
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [
      ...ALL_SECRETS,
      "hand-added-secret-value-X4242",
      suite.emulator.token,
    ]);
  });

  it("lists ignored items and unmanaged collections as information, not drift", async () => {
    const unmanagedConfig = await suite.tmp.write(
      "unmanaged.yaml",
      matchingConfig.replace(/ {4}webhooks:\n(.|\n)*? {4}pipelines:/, "    pipelines:"),
    );
    const r = await runCli(["drift", "-c", unmanagedConfig, "--format", "json"], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as DriftJson;
    expect(report.drift).toBe(false);
    expect(report.unmanaged).toContainEqual({
      address: 'context["legacy-build"]',
      resource_type: "context",
      why: "ignored",
    });
    expect(report.unmanaged).toContainEqual({
      address: 'project["gh/acme/api"].webhook["slack"]',
      resource_type: "webhook",
      why: "unmanaged",
    });
    const text = await runCli(["drift", "-c", unmanagedConfig], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Unmanaged live items/);
    expect(text.stdout).toContain('project["gh/acme/api"].webhook["old-hook"]');
  });

  it("narrows the unmanaged list with --target", async () => {
    const r = await runCli(
      ["drift", "-c", suite.files.config, "--format", "json", "--target", 'context["legacy-*"]'],
      { baseUrl: suite.emulator.url, token: suite.emulator.token, env: matchingEnv },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as DriftJson;
    expect(report.unmanaged.map((u) => u.address)).toEqual(['context["legacy-build"]']);
  });

  it("narrows the unmanaged list with --exclude, as it narrows the plan", async () => {
    const unmanaged = async (args: readonly string[]) => {
      const r = await runCli(["drift", "-c", suite.files.config, "--format", "json", ...args], {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
        env: matchingEnv,
      });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as DriftJson).unmanaged.map((u) => u.address);
    };
    const all = await unmanaged([]);
    expect(all).toContain('context["legacy-build"]');
    const left = await unmanaged(["--exclude", 'context["legacy-*"]']);
    expect(left).toEqual(all.filter((a) => !a.startsWith('context["legacy-')));
    // A glob that matches nothing live leaves the list as it is.
    expect(await unmanaged(["--exclude", 'context["nowhere"]'])).toEqual(all);
    // With --target, what --exclude matches inside the target is left out too.
    expect(
      await unmanaged(["--target", 'context["legacy-*"]', "--exclude", 'context["legacy-build"]']),
    ).toEqual([]);
  });

  it("exits 1 on an invalid config without any request", async () => {
    const bad = await suite.tmp.write("bad.yaml", "org: gh/acme\nsettings: [\n");
    const r = await runCli(["drift", "-c", bad], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
    });
    expect(r.code).toBe(1);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("has a help text with every option and examples", async () => {
    const r = await runCli(["drift", "--help"]);
    expect(r.code).toBe(0);
    for (const opt of [
      "--config",
      "--base-url",
      "--token-file",
      "--format",
      "--target",
      "--verbose",
    ]) {
      expect(r.stdout).toContain(opt);
    }
    expect(r.stdout).toContain("Examples:");
  });
});
