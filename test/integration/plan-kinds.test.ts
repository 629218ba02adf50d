/**
 * For every kind, a seeded live state and a config produce the expected JSON plan
 * (issue 4 "Done when"), over loopback against the emulator, through the built CLI.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, type TempDir, writeTempConfig } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import {
  baseSeed,
  DESIRED_SECRETS,
  envRef,
  matchingConfig,
  matchingEnv,
  WEB_ID,
} from "./plan-fixture.js";

interface JsonChange {
  address: string;
  resource_type: string;
  action: string;
  fields: { path: string; before: unknown; after: unknown; forces_replacement?: boolean }[];
  destroys_secrets?: number | null;
}
interface JsonPlan {
  format_version: number;
  changes: JsonChange[];
  summary: Record<string, number>;
  unverified_secrets: number;
}

/** The changed config: one or more changes of every kind. */
const changedConfig = matchingConfig
  // org settings: update
  .replace("enable_private_orbs: false", "enable_private_orbs: true")
  // context env: AWS_REGION removed (delete), a new secret (create)
  .replace("      AWS_REGION: eu-west-1\n", "      NEW_KEY: " + envRef("NEW_SECRET") + "\n")
  // restrictions: all-members removed (delete), a project restriction added (create)
  .replace("      - group: all-members\n", "      - project: gh/acme/api\n")
  // context "stale" removed (delete, destroying 2 secrets); a new context (create)
  .replace(
    "  stale:\n    env:\n      ONE: " +
      envRef("STALE_ONE") +
      "\n      TWO: " +
      envRef("STALE_TWO") +
      "\n",
    "  deploy-staging:\n    env:\n      REGION: us-east-1\n",
  )
  // project settings: update
  .replace(
    "enable_auto_cancel_redundant_workflows: false",
    "enable_auto_cancel_redundant_workflows: true",
  )
  // project env: OLD_VAR removed (delete)
  .replace("      OLD_VAR: " + envRef("OLD_VAR") + "\n", "")
  // webhooks: slack url changed (update), old-hook removed (delete), teams added (create)
  .replace("https://hooks.example.com/services/T0", "https://hooks.example.com/services/T1")
  .replace(
    "      old-hook:\n        url: https://old.example.com/hook\n        events: [job-completed]\n",
    "      teams:\n        url: https://teams.example.com/hook\n        events: [job-completed, workflow-completed]\n",
  )
  // pipeline: file_path changed (update)
  .replace("file_path: .service/config.yml", "file_path: .service/build.yml")
  // trigger: cron changed (update), and a new schedule trigger (create)
  .replace(
    '              schedule: { cron_expression: "0 2 * * *", attribution_actor: system }\n            config: { ref: main }\n            checkout: { ref: main }\n            parameters: { deploy: false }\n',
    '              schedule: { cron_expression: "0 3 * * *", attribution_actor: system }\n            config: { ref: main }\n            checkout: { ref: main }\n            parameters: { deploy: false }\n          weekly:\n            event:\n              type: schedule\n              schedule: { cron_expression: "0 4 * * 0", attribution_actor: system }\n            config: { ref: main }\n            checkout: { ref: main }\n',
  );

const changedEnv = {
  ...matchingEnv,
  PROD_AWS_SECRET: DESIRED_SECRETS.PROD_AWS_SECRET,
  PROD_DEPLOY_TOKEN: DESIRED_SECRETS.PROD_DEPLOY_TOKEN,
  NPM_TOKEN: DESIRED_SECRETS.NPM_TOKEN,
  NEW_SECRET: DESIRED_SECRETS.NEW_SECRET,
};

describe("plan against a seeded emulator", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let matchingPath: string;
  let changedPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    const m = await writeTempConfig(matchingConfig);
    tmp = m.tmp;
    matchingPath = m.configPath;
    changedPath = await tmp.write("changed/waybill.yaml", changedConfig);
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const plan = async (configPath: string, env: Record<string, string>) => {
    const r = await runCli(["plan", "-c", configPath, "--format", "json"], {
      baseUrl: emulator.url,
      token: emulator.token,
      env,
    });
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as JsonPlan;
  };

  it("plans nothing when the config matches the live state, and probes the OAuth pipeline", async () => {
    const p = await plan(matchingPath, matchingEnv);
    expect(p.changes).toEqual([]);
    expect(p.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    // Same last four characters: left alone, counted as unverified.
    expect(p.unverified_secrets).toBeGreaterThanOrEqual(7);
    // gh/acme/api and gh/acme/web manage their pipelines: each project's synthetic OAuth
    // pipeline (every project has one, spec: Pipelines) would be a delete until the probe
    // (GET /pipelines/{id} without filter[project_id]) answered 404.
    const log = await emulator.requests();
    const probes = log.filter(
      (r) =>
        /^\/api\/v3\/pipelines\/[^/]+$/.test(r.path) && r.query["filter[project_id]"] === undefined,
    );
    expect(probes).toHaveLength(2);
    expect(probes.every((q) => q.status === 404)).toBe(true);
    const webPipelines = log.filter(
      (r) => r.path === "/api/v3/pipelines" && r.query["filter[project_id]"] === WEB_ID,
    );
    expect(webPipelines).toHaveLength(1);
  });

  it("plans every kind's create, update and delete", async () => {
    const p = await plan(changedPath, changedEnv);
    const by = new Map(p.changes.map((c) => [c.address, c]));
    const expectChange = (
      address: string,
      resourceType: string,
      action: string,
      fields: string[] = [],
    ) => {
      const c = by.get(address);
      expect(c, `${address} is planned`).toBeDefined();
      expect(c?.resource_type).toBe(resourceType);
      expect(c?.action).toBe(action);
      for (const f of fields) expect(c?.fields.map((x) => x.path)).toContain(f);
      return c;
    };

    expectChange("org_settings", "org_settings", "update", ["enable_private_orbs"]);
    expectChange('context["deploy-staging"]', "context", "create");
    expectChange('context["deploy-staging"].env["REGION"]', "context_env_var", "create");
    const stale = expectChange('context["stale"]', "context", "delete");
    expect(stale?.destroys_secrets).toBe(2);
    expectChange('context["deploy-prod"].env["AWS_REGION"]', "context_env_var", "delete");
    expectChange('context["deploy-prod"].env["NEW_KEY"]', "context_env_var", "create");
    // Different last four characters: the secret changed and is re-set.
    expectChange(
      'context["deploy-prod"].env["AWS_SECRET_ACCESS_KEY"]',
      "context_env_var",
      "update",
    );
    // Same last four: unverified, not planned.
    expect(by.has('context["deploy-prod"].env["DEPLOY_TOKEN"]')).toBe(false);
    expectChange(
      'context["deploy-prod"].restriction["group:all-members"]',
      "context_restriction",
      "delete",
    );
    expectChange(
      'context["deploy-prod"].restriction["project:gh/acme/api"]',
      "context_restriction",
      "create",
    );
    expectChange('project["gh/acme/api"].settings', "project_settings", "update", [
      "enable_auto_cancel_redundant_workflows",
    ]);
    expect(by.get('project["gh/acme/api"].env["NPM_TOKEN"]')?.action).toMatch(/^(update|replace)$/);
    expectChange('project["gh/acme/api"].env["OLD_VAR"]', "project_env_var", "delete");
    expectChange('project["gh/acme/api"].webhook["slack"]', "webhook", "update", ["url"]);
    expectChange('project["gh/acme/api"].webhook["old-hook"]', "webhook", "delete");
    expectChange('project["gh/acme/api"].webhook["teams"]', "webhook", "create");
    expectChange('project["gh/acme/api"].pipeline["build"]', "pipeline", "update", [
      "config.file_path",
    ]);
    const nightly = by.get('project["gh/acme/api"].pipeline["build"].trigger["nightly"]');
    expect(nightly?.action).toBe("update");
    expect(nightly?.fields.some((f) => f.path.startsWith("event.schedule"))).toBe(true);
    expectChange('project["gh/acme/api"].pipeline["build"].trigger["weekly"]', "trigger", "create");
    // The ignored context and the synthetic OAuth pipeline are never planned.
    expect(p.changes.some((c) => c.address.includes("legacy-build"))).toBe(false);
    expect(p.changes.some((c) => c.address.startsWith('project["gh/acme/web"]'))).toBe(false);
    // The summary counts what is listed.
    const count = (a: string) => p.changes.filter((c) => c.action === a).length;
    expect(p.summary).toEqual({
      create: count("create"),
      update: count("update"),
      replace: count("replace"),
      delete: count("delete"),
    });
  });

  it("plans a replacement, with its cause, where a field cannot change in place", async () => {
    const moved = await tmp.write(
      "moved/waybill.yaml",
      matchingConfig.replace(
        /vcs: \{ provider: github_app, repo_id: "123", repo_full_name: acme\/api \}/g,
        'vcs: { provider: github_app, repo_id: "456", repo_full_name: acme/api-v2 }',
      ),
    );
    // The live webhook has a scope the config cannot ask for in place (default `project`).
    const seed = baseSeed();
    const org = seed.orgs?.[0];
    const project = org?.projects?.[0];
    if (!org || !project) throw new Error("seed shape");
    await emulator.reset({
      ...seed,
      orgs: [
        {
          ...org,
          projects: [
            {
              ...project,
              webhooks: (project.webhooks ?? []).map((w) =>
                w.name === "old-hook" ? { ...w, scope: "org" } : w,
              ),
            },
            ...(org.projects ?? []).slice(1),
          ],
        },
      ],
    });
    const p = await plan(moved, matchingEnv);
    const by = new Map(p.changes.map((c) => [c.address, c]));
    const pipeline = by.get('project["gh/acme/api"].pipeline["build"]');
    expect(pipeline?.action).toBe("replace");
    expect(
      pipeline?.fields.some((f) => f.path.startsWith("config.vcs") && f.forces_replacement),
    ).toBe(true);
    // Replacing a pipeline replaces its triggers (issue 4).
    expect(by.get('project["gh/acme/api"].pipeline["build"].trigger["nightly"]')?.action).toBe(
      "replace",
    );
    const hook = by.get('project["gh/acme/api"].webhook["old-hook"]');
    expect(hook?.action).toBe("replace");
    expect(hook?.fields.find((f) => f.path === "scope")?.forces_replacement).toBe(true);
  });

  it("never issues a request other than GET", async () => {
    await plan(changedPath, changedEnv);
    const log = await emulator.requests();
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((r) => r.method !== "GET")).toEqual([]);
    // No read is repeated.
    const keys = log.map((r) => `${r.path}?${JSON.stringify(r.query)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
