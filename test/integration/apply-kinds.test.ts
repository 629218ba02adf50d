/**
 * `waybill apply` end to end against the emulator over loopback (issue 5 "Done when"):
 * every kind created, then updated, replaced and deleted, checked on the emulator's state
 * dump; a plan right after each apply is empty; no secret in any output; the request log
 * holds only the plan's operations.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, changeConfig, changeEnv, createConfig } from "./apply-fixture.js";
import {
  ALL_SECRETS,
  API_ID,
  baseSeed,
  DESIRED_SECRETS,
  ORG_ID,
  PIPELINE_BUILD_ID,
  TRIGGER_NIGHTLY_ID,
  WEBHOOK_OLD_ID,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

interface PlanJson {
  changes: {
    resource_type: string;
    action: string;
    calls: { method: string; when: string }[];
  }[];
}

type SeedOrg = NonNullable<Seed["orgs"]>[number];
type SeedProject = NonNullable<SeedOrg["projects"]>[number];

const org = (s: Seed): SeedOrg => s.orgs?.find((o) => o.slug === "gh/acme") as SeedOrg;
const api = (s: Seed): SeedProject =>
  org(s).projects?.find((p) => p.slug === "gh/acme/api") as SeedProject;
const ctx = (s: Seed, name: string) => org(s).contexts?.find((c) => c.name === name);

describe("waybill apply: every kind", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
    changePath: { name: "change.yaml", content: changeConfig },
  });

  const run = (args: string[], env: Readonly<Record<string, string>>) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env });

  it("creates one item of every kind, then a plan is empty", async () => {
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(r.stderr + r.stdout, r.stderr).toContain("Apply complete");
    expect(r.code).toBe(0);
    // One line per operation off a TTY, with its duration.
    expect(r.stderr).toMatch(/webhook\["deploys"\]: created in \d+\.\d\ds/);

    const s = await suite.emulator.state();
    const newCtx = ctx(s, "new-ctx");
    expect(newCtx?.env).toEqual({ NEW_KEY: DESIRED_SECRETS.NEW_SECRET });
    // The all-members restriction the service added was removed in the same apply.
    expect(newCtx?.restrictions?.map((x) => [x.restriction_type, x.match_pattern])).toEqual([
      ["expression", 'pipeline.git.branch == "dev"'],
    ]);
    expect(api(s).env?.NEW_VAR).toBe(DESIRED_SECRETS.NEW_SECRET);
    const deploys = api(s).webhooks?.filter((w) => w.name === "deploys") ?? [];
    expect(deploys).toHaveLength(1);
    expect(deploys[0]?.signing_secret).toBe(DESIRED_SECRETS.NEW_SECRET);
    expect([...(deploys[0]?.events ?? [])].sort()).toEqual(["job-completed", "workflow-completed"]);
    const deploy = api(s).pipelines?.find((p) => p.name === "deploy");
    expect(deploy?.checkout).toEqual({ vcs: deploy?.config.vcs });
    expect(deploy?.triggers).toHaveLength(3);

    const again = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(again.stdout).toContain("No changes");
    expect(again.code).toBe(0);
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, ALL_SECRETS);
  });

  it("updates, replaces and deletes every kind, then a plan is empty", async () => {
    expect(
      (await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv)).code,
    ).toBe(0);
    const planned = await run(
      ["plan", "-c", suite.files.changePath, "--format", "json"],
      changeEnv,
    );
    const plan = JSON.parse(planned.stdout) as PlanJson;
    await suite.emulator.clearRequests();
    const r = await run(
      // --no-lock: the write counts below are the plan's calls alone, without the org
      // lock's (tested in reliability-lock.test.ts), whose renewals depend on timing.
      ["apply", "-c", suite.files.changePath, "--auto-approve", "--format", "json", "--no-lock"],
      changeEnv,
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const result = JSON.parse(r.stdout) as {
      status: string;
      summary: { failed: number; skipped: number; done: number };
      operations: { address: string; status: string; verb?: string; action: string }[];
    };
    expect(result.status).toBe("applied");
    expect(result.summary.failed).toBe(0);
    const actions = new Set(result.operations.map((o) => o.action));
    expect(actions).toEqual(new Set(["create", "update", "replace", "delete"]));

    const s = await suite.emulator.state();
    expect(org(s).settings?.enable_private_orbs).toBe(true);
    expect(ctx(s, "stale")).toBeUndefined();
    const prod = ctx(s, "deploy-prod");
    expect(prod?.env?.AWS_REGION).toBeUndefined();
    expect(prod?.env?.AWS_SECRET_ACCESS_KEY).toBe(DESIRED_SECRETS.PROD_AWS_SECRET);
    expect(prod?.restrictions?.map((x) => [x.restriction_type, x.match_pattern]).sort()).toEqual(
      [
        ["expression", 'pipeline.git.branch == "main"'],
        ["project", API_ID],
      ].sort(),
    );
    expect(api(s).settings?.enable_auto_cancel_redundant_workflows).toBe(true);
    expect(api(s).env?.NPM_TOKEN).toBe(DESIRED_SECRETS.NPM_TOKEN);
    expect(api(s).env?.OLD_VAR).toBeUndefined();
    const hooks = api(s).webhooks ?? [];
    expect(hooks.map((w) => w.name).sort()).toEqual(["old-hook", "slack"]);
    const slack = hooks.find((w) => w.name === "slack");
    expect(slack?.url).toBe("https://hooks.example.com/services/T1");
    expect(slack?.id).not.toBe(WEBHOOK_SLACK_ID);
    expect(slack?.signing_secret).toBeUndefined();
    const oldHook = hooks.find((w) => w.name === "old-hook");
    expect(oldHook?.events).toEqual(["workflow-completed"]);
    expect(oldHook?.is_enabled).toBe(false);
    expect(oldHook?.id).toBe(WEBHOOK_OLD_ID);
    const build = api(s).pipelines?.find((p) => p.name === "build");
    expect(build?.id).not.toBe(PIPELINE_BUILD_ID);
    expect(build?.config.vcs).toMatchObject({ repo_id: "456" });
    expect(build?.triggers?.map((t) => t.id)).not.toContain(TRIGGER_NIGHTLY_ID);
    expect(build?.triggers).toHaveLength(1);
    const deploy = api(s).pipelines?.find((p) => p.name === "deploy");
    expect(deploy?.description).toBe("deploys to prod");
    expect(deploy?.triggers).toHaveLength(2);

    // Every write is one of the plan's calls: no re-list, nothing extra. A project env var
    // update's POST is refused (the name exists), so its DELETE and re-POST run too.
    const expected = new Map<string, number>();
    for (const c of plan.changes) {
      for (const call of c.calls) {
        const refusedFallback = c.resource_type === "project_env_var" && c.action === "update";
        if (call.when === "always" || refusedFallback) {
          expected.set(call.method, (expected.get(call.method) ?? 0) + 1);
        }
      }
    }
    const log = await suite.emulator.requests();
    const writes = new Map<string, number>();
    for (const q of log)
      if (q.method !== "GET") writes.set(q.method, (writes.get(q.method) ?? 0) + 1);
    expect(Object.fromEntries(writes)).toEqual(Object.fromEntries(expected));

    const again = await run(
      ["plan", "-c", suite.files.changePath, "--detailed-exitcode"],
      changeEnv,
    );
    expect(again.code, again.stdout).toBe(0);
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, ALL_SECRETS);
    expect(ORG_ID).toBeTruthy();
  });
});
