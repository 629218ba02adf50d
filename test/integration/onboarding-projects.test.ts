// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs spell ${env:…} references
/**
 * Issue 18: projects created and deleted from the config, against the emulator over loopback.
 * - `create: true` creates a project the org does not have (V2 POST
 *   /organization/{org}/project), before everything inside it, in the same apply; its
 *   children take its id (V3 routes) and its slug (V2 routes) at apply;
 * - a key without `/` is the project's name (a standalone org, whose slugs hold ids);
 * - `delete: true` deletes it, only with --allow-project-delete (exit 4 otherwise, nothing
 *   changed); leaving a project out never deletes it;
 * - an uncertain create is re-listed by name and adopted, never duplicated.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG = "gh/acme";
const STANDALONE = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const SECRET = "new-service-secret-7f3a";

const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    { slug: ORG, projects: [{ slug: `${ORG}/old-repo`, env: { KEEP: "x-value-1234" } }] },
    { slug: STANDALONE },
  ],
});

const newService = `org: ${ORG}
projects:
  ${ORG}/new-service:
    create: true
    checkout_keys: [deploy-key]
    env:
      TOKEN: \${env:NEW_SECRET}
    webhooks:
      notify:
        url: https://hooks.example.com/new
        events: [workflow-completed]
    pipelines:
      build:
        config:
          type: vcs
          file_path: .service/config.yml
          vcs: { provider: github_app, repo_id: "42", repo_full_name: acme/new-service }
        triggers:
          nightly:
            event:
              type: schedule
              schedule: { cron_expression: "0 3 * * *" }
`;

const byName = `org: ${STANDALONE}
projects:
  api:
    create: true
    env:
      TOKEN: \${env:NEW_SECRET}
`;

describe("projects created and deleted from the config", () => {
  const suite = useEmulatorSuite(seed, {
    create: { name: "create.yaml", content: newService },
    byName: { name: "by-name.yaml", content: byName },
    missing: { name: "missing.yaml", content: `org: ${STANDALONE}\nprojects:\n  api: {}\n` },
    remove: {
      name: "remove.yaml",
      content: `org: ${ORG}\nprojects:\n  ${ORG}/old-repo:\n    delete: true\n`,
    },
    removeAndMore: {
      name: "bad.yaml",
      content: `org: ${ORG}\nprojects:\n  ${ORG}/old-repo:\n    delete: true\n    env: {}\n`,
    },
  });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
    NEW_SECRET: SECRET,
  });
  const projects = async (slug = ORG) =>
    (await suite.emulator.state()).orgs?.find((o) => o.slug === slug)?.projects ?? [];

  it("creates a project by slug, and everything in it, in one apply; the next plan is empty", async () => {
    const plan = await runInProcess(["plan", "-c", suite.files.create, "--format", "json"], env());
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: { address: string; resource_type: string; action: string; depends_on: string[] }[];
      }
    ).changes;
    const project = `project["${ORG}/new-service"]`;
    expect(changes.find((c) => c.address === project)).toMatchObject({
      resource_type: "project",
      action: "create",
    });
    // Everything else is created, after the project.
    const inside = changes.filter((c) => c.address !== project);
    expect(inside.map((c) => c.resource_type).sort()).toEqual([
      "checkout_key",
      "pipeline",
      "project_env_var",
      "trigger",
      "webhook",
    ]);
    for (const c of inside) expect(c.action).toBe("create");

    const r = await runInProcess(["apply", "-c", suite.files.create, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    const made = (await projects()).find((p) => p.slug === `${ORG}/new-service`);
    expect(made).toBeDefined();
    expect(made?.env).toEqual({ TOKEN: SECRET });
    expect(made?.webhooks?.map((w) => w.name)).toEqual(["notify"]);
    expect(made?.pipelines?.map((p) => [p.name, p.triggers?.length])).toEqual([["build", 1]]);
    expect(made?.checkout_keys?.map((k) => k.type)).toEqual(["deploy-key"]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.create, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("a key without / is a project name: created in a standalone org, found by name after", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.byName, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const made = await projects(STANDALONE);
    expect(made.map((p) => p.name)).toEqual(["api"]);
    // A standalone org's project slug holds the project id, unknown before the create.
    expect(made[0]?.slug).toMatch(new RegExp(`^${STANDALONE}/[0-9a-f-]{36}$`));
    expect(made[0]?.env).toEqual({ TOKEN: SECRET });
    const again = await runInProcess(
      ["plan", "-c", suite.files.byName, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("without create: true, a missing project is an error naming it, and nothing is written", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.missing, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/missing\.yaml:3:\d+: projects\.api: no project "api"/);
    expect(await projects(STANDALONE)).toEqual([]);
  });

  it("delete: true deletes the project only with --allow-project-delete", async () => {
    const plan = await runInProcess(["plan", "-c", suite.files.remove, "--format", "json"], env());
    const changes = (
      JSON.parse(plan.stdout) as { changes: { address: string; action: string; reason: string }[] }
    ).changes;
    expect(changes.map((c) => [c.address, c.action])).toEqual([
      [`project["${ORG}/old-repo"]`, "delete"],
    ]);
    expect(changes[0]?.reason).toMatch(/--allow-project-delete/);
    const refused = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve"],
      env(),
    );
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toMatch(/--allow-project-delete/);
    expect((await projects()).map((p) => p.slug)).toEqual([`${ORG}/old-repo`]);
    const done = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve", "--allow-project-delete"],
      env(),
    );
    expect(done.code, done.stderr + done.stdout).toBe(0);
    expect(await projects()).toEqual([]);
    // Gone: nothing more to do.
    const again = await runInProcess(
      ["plan", "-c", suite.files.remove, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it("delete: true with anything else in the project is a config error", async () => {
    const r = await runInProcess(["validate", "-c", suite.files.removeAndMore], env());
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(
      /bad\.yaml:5:\d+: projects\.gh\/acme\/old-repo\.env: .*delete: true/,
    );
  });

  it("an uncertain project create is re-listed and adopted, never duplicated", async () => {
    // Every create lands and then loses its answer (a 500 or a dropped connection).
    await suite.emulator.setFaults({ seed: 11, rate_commit_then_fail: 1, methods: ["POST"] });
    for (let run = 0; run < 8; run++) {
      const r = await runInProcess(["apply", "-c", suite.files.create, "--auto-approve"], env());
      if (r.code === 0) break;
    }
    await suite.emulator.setFaults({});
    const failed = (await suite.emulator.requests()).filter(
      (q) =>
        q.method === "POST" &&
        (q.status >= 500 || q.status === 0) &&
        q.path.includes("/organization/"),
    );
    expect(failed.length).toBeGreaterThan(0);
    const again = await runInProcess(
      ["plan", "-c", suite.files.create, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((await projects()).map((p) => p.slug).sort()).toEqual([
      `${ORG}/new-service`,
      `${ORG}/old-repo`,
    ]);
  });
});
