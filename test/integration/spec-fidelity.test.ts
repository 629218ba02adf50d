/**
 * Issue 14: exact on the real service. Each case is written from the spec's words (cited),
 * drives the CLI (in process) against the emulator, and fails on the code before issue 14.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { expectNoSecrets } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
// Apply takes the org lock (issue 15), a context it creates and deletes: these tests count
// the config's own writes.
import { configWrites, contextNames } from "./apply-fixture.js";

const ORG_ID = "0a000000-0000-4000-8000-000000000001";
const API_ID = "0a000000-0000-4000-8000-0000000000a1";
const WEB_ID = "0a000000-0000-4000-8000-0000000000a2";
const CTX_ID = "0a000000-0000-4000-8000-0000000000c1";
const PIPE_ID = "0a000000-0000-4000-8000-0000000000b1";
const HOOK_ID = "0a000000-0000-4000-8000-0000000000d1";
/** `${env:NAME}`, spelled so that no string literal looks like a template slip. */
const envRef = (name: string): string => ["$", "{env:", name, "}"].join("");
const REPO = { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" };
const REPO_YAML = '{ provider: github_app, repo_id: "123", repo_full_name: acme/api }';
const OLD_NPM = "live-npm-token-value-OLD1";
const NEW_NPM = "desired-npm-token-value-NEW2";
const HOOK_SECRET = "trigger-hook-secret-value-H3";

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      contexts: [
        {
          id: CTX_ID,
          name: "deploy",
          restrictions: [{ restriction_type: "project", match_pattern: API_ID }],
        },
      ],
      projects: [
        {
          id: API_ID,
          slug: "api",
          repo: REPO,
          env: { NPM_TOKEN: OLD_NPM },
          webhooks: [
            {
              id: HOOK_ID,
              name: "slack",
              url: "https://hooks.example.com/a",
              events: ["workflow-completed"],
              is_enabled: false,
              auto_disabled_at: "2026-11-20T03:04:05.000Z",
            },
          ],
          pipelines: [
            {
              id: PIPE_ID,
              name: "build",
              config: { type: "vcs", file_path: ".service/config.yml", vcs: REPO },
              checkout: { vcs: REPO },
              triggers: [
                {
                  event: {
                    type: "vcs",
                    vcs: REPO,
                    filter: {
                      preset: "all-pushes",
                      rules: [{ event_type: "push", rule: "tag =~ ^v", event_ref: "refs/tags" }],
                    },
                  },
                },
                {
                  config: { ref: "main" },
                  checkout: { ref: "main" },
                  event: {
                    type: "schedule",
                    schedule: { name: "nightly", cron_expression: "0 2 * * *" },
                  },
                  parameters: { deploy: true },
                },
              ],
            },
          ],
        },
        { id: WEB_ID, slug: "web" },
      ],
    },
  ],
});

/** The whole api project as the seed has it, so a plan of it alone is empty. */
const apiProject = (over: {
  readonly env?: string;
  readonly webhook?: string;
  readonly filter?: string;
  readonly nightly?: string;
}) => `
  gh/acme/api:
    env:
      NPM_TOKEN: ${over.env ?? envRef("OLD_NPM")}
    webhooks:
      slack:
        url: https://hooks.example.com/a
        events: [workflow-completed]
${over.webhook ?? "        is_enabled: false"}
    pipelines:
      build:
        config: { type: vcs, file_path: .service/config.yml, vcs: ${REPO_YAML} }
        checkout: { vcs: ${REPO_YAML} }
        triggers:
          pushes:
            event:
              type: vcs
              vcs: ${REPO_YAML}
              filter: ${over.filter ?? '{ preset: all-pushes, rules: [{ event_type: push, rule: "tag =~ ^v", event_ref: refs/tags }] }'}
          nightly:
            event: { type: schedule, schedule: { cron_expression: "0 2 * * *" } }
            config: { ref: main }
            checkout: { ref: main }
${over.nightly ?? "            parameters: { deploy: true }"}
`;

const SECRETS = { OLD_NPM, NEW_NPM, HOOK_SECRET };

describe("issue 14: exact on the real service", () => {
  const suite = useEmulatorSuite(seed, {});
  const outputs: { stdout: string; stderr: string }[] = [];
  const run = async (args: readonly string[]) => {
    const r = await runInProcess(args, {
      SERVICE_BASE_URL: suite.emulator.url,
      SERVICE_TOKEN: suite.emulator.token,
      NO_COLOR: "1",
      ...SECRETS,
    });
    outputs.push({ stdout: r.stdout, stderr: r.stderr });
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, Object.values(SECRETS));
    return r;
  };
  const write = (name: string, body: string) => suite.tmp.write(name, `org: gh/acme\n${body}`);
  const project = (s: Seed, slug: string) =>
    s.orgs?.[0]?.projects?.find((p) => p.slug === slug || p.slug === `gh/acme/${slug}`);
  const planJson = async (c: string) => {
    const r = await run(["plan", "-c", c, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      changes: {
        address: string;
        action: string;
        reason: string;
        notes?: string[];
        calls: { method: string; route: string }[];
      }[];
    };
  };

  it("the fixture's api project plans empty as it is", async () => {
    const c = await write("same.yaml", `projects:${apiProject({})}`);
    const r = await run(["plan", "-c", c, "--detailed-exitcode"]);
    expect(r.stdout, r.stderr).toContain("No changes");
    expect(r.code).toBe(0);
  });

  // spec: api-v3.md Pipelines: POST /pipelines `checkout { vcs {provider, repo_id,
  // repo_full_name} }` (no `?`).
  it("validate refuses a hosted pipeline without checkout, at file:line:col; with it, apply creates it", async () => {
    const hosted = (checkout: string) =>
      write(
        "hosted.yaml",
        `projects:
  gh/acme/web:
    pipelines:
      site:
        config: { type: hosted, file_path: config.yml, hosted: { provider: service } }
${checkout}`,
      );
    const bad = await hosted("");
    const v = await run(["validate", "-c", bad]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(
      /hosted\.yaml:5:7: projects\.gh\/acme\/web\.pipelines\.site: a pipeline needs checkout\.vcs/,
    );
    const p = await run(["plan", "-c", bad]);
    expect(p.code).toBe(1);
    expect(await suite.emulator.requests()).toEqual([]);

    const good = await hosted(`        checkout: { vcs: ${REPO_YAML} }`);
    const a = await run(["apply", "-c", good, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const site = project(await suite.emulator.state(), "web")?.pipelines?.find(
      (x) => x.name === "site",
    );
    expect(site?.checkout).toEqual({ vcs: REPO });
  });

  // spec: api-v3.md Contexts, Context restrictions, Pipelines, Triggers: the POST routes list
  // "201, 400"; Errors rule 2: invalid input is 400. A create naming an unknown parent is 400.
  it("the emulator answers 400 (not 404) to a create whose parent is unknown", async () => {
    const ghost = "0a000000-0000-4000-8000-00000000dead";
    const cases: [string, unknown][] = [
      [
        "/api/v3/contexts",
        { data: { attributes: { name: "x" }, references: { org: { id: ghost } } } },
      ],
      [
        "/api/v3/context-restrictions",
        {
          data: {
            attributes: { restriction_type: "expression", match_pattern: "true" },
            references: { context: { id: ghost } },
          },
        },
      ],
      [
        "/api/v3/pipelines",
        {
          data: {
            attributes: {
              name: "p",
              config: { type: "vcs", file_path: "f.yml", vcs: REPO },
              checkout: { vcs: REPO },
            },
            references: { project: { id: ghost } },
          },
        },
      ],
      [
        "/api/v3/triggers",
        {
          data: {
            attributes: { event: { type: "vcs", vcs: REPO } },
            references: { pipeline: { id: ghost } },
          },
        },
      ],
    ];
    for (const [path, body] of cases) {
      const r = await suite.emulator.call<{ error: { type: string; source: { pointer: string } } }>(
        "POST",
        path,
        body,
      );
      expect([path, r.status]).toEqual([path, 400]);
      expect(r.body.error.type).toBe("unknown_reference");
      expect(r.body.error.source.pointer).toMatch(/^\/data\/references\/\w+\/id$/);
    }
  });

  // spec: api-v3.md Projects: POST /projects/:id/environment-variables `{name, value}` →
  // 201, 404 (nothing for "the name exists": it sets the variable). Errors rule 1: branch on
  // the status and error.type.
  it("a project env var update is one POST that overwrites the value; nothing is deleted", async () => {
    const c = await write("env.yaml", `projects:${apiProject({ env: envRef("NEW_NPM") })}`);
    const plan = await planJson(c);
    const change = plan.changes.find((x) => x.address.endsWith('env["NPM_TOKEN"]'));
    expect(change?.action).toBe("update");
    expect(change?.calls.map((x) => `${x.method} ${x.route}`)).toEqual([
      "POST /projects/{project_id}/environment-variables",
    ]);
    await suite.emulator.clearRequests();
    const a = await run(["apply", "-c", c, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const writes = configWrites(await suite.emulator.requests());
    expect(writes.map((q) => `${q.method} ${q.status}`)).toEqual(["POST 201"]);
    expect(project(await suite.emulator.state(), "api")?.env?.NPM_TOKEN).toBe(NEW_NPM);
  });

  it("a service that refuses to overwrite (400 already_exists): the variable is kept, never deleted", async () => {
    await suite.emulator.setFaults({ refuse_existing_project_env_var: true });
    try {
      const c = await write("env.yaml", `projects:${apiProject({ env: envRef("NEW_NPM") })}`);
      const a = await run(["apply", "-c", c, "--auto-approve"]);
      expect(a.code).toBe(1);
      expect(a.stderr + a.stdout).toContain("nothing was deleted");
      expect(a.stderr + a.stdout).toContain("already_exists");
      const log = await suite.emulator.requests();
      expect(configWrites(log).filter((q) => q.method === "DELETE")).toEqual([]);
      expect(project(await suite.emulator.state(), "api")?.env?.NPM_TOKEN).toBe(OLD_NPM);
    } finally {
      await suite.emulator.setFaults({});
    }
  });

  it("any other 400 on the POST leaves the live variable alone", async () => {
    await suite.emulator.script([
      {
        method: "POST",
        path: "/api/v3/projects/*/environment-variables",
        status: 400,
        json: { error: { type: "invalid_value", title: "Bad value" } },
      },
    ]);
    const c = await write("env.yaml", `projects:${apiProject({ env: envRef("NEW_NPM") })}`);
    const a = await run(["apply", "-c", c, "--auto-approve"]);
    expect(a.code).toBe(1);
    expect(
      configWrites(await suite.emulator.requests()).filter((q) => q.method === "DELETE"),
    ).toEqual([]);
    expect(project(await suite.emulator.state(), "api")?.env?.NPM_TOKEN).toBe(OLD_NPM);
  });

  // spec: api-v3.md Triggers: POST /triggers/:id/update `event? {webhook?, schedule?,
  // filter?}`; update routes change only what they are sent ("only present fields change").
  it("removing filter rules sends an explicit empty list, and the emulator merges nested objects", async () => {
    // The emulator: `filter: {preset}` alone keeps the live rules (the less forgiving reading).
    const trig = project(await suite.emulator.state(), "api")?.pipelines?.[0]?.triggers?.[0];
    const merged = await suite.emulator.call<{
      data: { attributes: { event: { filter: unknown } } };
    }>("POST", `/api/v3/triggers/${trig?.id}/update`, {
      event: { filter: { preset: "only-tags" } },
    });
    expect(merged.body.data.attributes.event.filter).toEqual({
      preset: "only-tags",
      rules: [{ event_type: "push", rule: "tag =~ ^v", event_ref: "refs/tags" }],
    });
    await suite.emulator.reset(seed());

    const c = await write(
      "filter.yaml",
      `projects:${apiProject({ filter: "{ preset: all-pushes }" })}`,
    );
    const a = await run(["apply", "-c", c, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const after = project(await suite.emulator.state(), "api")?.pipelines?.[0]?.triggers?.[0];
    expect(after?.event).toMatchObject({ filter: { preset: "all-pushes", rules: [] } });
    const again = await run(["plan", "-c", c, "--detailed-exitcode"]);
    expect(again.stdout, again.stderr + again.stdout).toContain("No changes");
  });

  it("a filter that drops the live preset replaces the trigger (no update can remove it)", async () => {
    const c = await write(
      "preset.yaml",
      `projects:${apiProject({ filter: '{ rules: [{ event_type: push, rule: "tag =~ ^v", event_ref: refs/tags }] }' })}`,
    );
    const plan = await planJson(c);
    expect(plan.changes.map((x) => [x.address, x.action])).toEqual([
      ['project["gh/acme/api"].pipeline["build"].trigger["pushes"]', "replace"],
    ]);
    const a = await run(["apply", "-c", c, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const again = await run(["plan", "-c", c, "--detailed-exitcode"]);
    expect(again.stdout, again.stderr + again.stdout).toContain("No changes");
  });

  // spec: api-v3.md Envelopes rule 1: "Ids are UUIDs"; a UUID is the same id in any case.
  it("an upper-case project id in a restriction matches the live one: no create, no delete", async () => {
    const c = await write(
      "uuid.yaml",
      `contexts:
  deploy:
    restrictions:
      - project: ${API_ID.toUpperCase()}
`,
    );
    const r = await run(["plan", "-c", c, "--detailed-exitcode"]);
    expect(r.stdout, r.stderr + r.stdout).toContain("No changes");
    expect(r.code).toBe(0);
  });

  // spec: api-v3.md Trigger: "The create response includes the webhook secret once."
  it("validate refuses a webhook trigger without a secret and says why", async () => {
    const c = await write(
      "hook.yaml",
      `projects:
  gh/acme/api:
    pipelines:
      build:
        config: { type: vcs, file_path: .service/config.yml, vcs: ${REPO_YAML} }
        triggers:
          release:
            event: { type: webhook, webhook: { source: bot } }
`,
    );
    const v = await run(["validate", "-c", c]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(
      /hook\.yaml:9:\d+: .*event\.webhook: a webhook trigger needs event\.webhook\.secret/,
    );
    expect(v.stderr).toContain("returns it only once");
  });

  // spec: api-v3.md Triggers: POST /triggers `config? {ref string?}, checkout? {ref string?}`.
  it("a webhook trigger without refs validates, applies and then plans empty", async () => {
    const c = await write(
      "norefs.yaml",
      `projects:
  gh/acme/api:
    pipelines:
      build:
        config: { type: vcs, file_path: .service/config.yml, vcs: ${REPO_YAML} }
        triggers:
          release:
            event: { type: webhook, webhook: { source: bot, secret: "${envRef("HOOK_SECRET")}" } }
`,
    );
    expect((await run(["validate", "-c", c])).code).toBe(0);
    const a = await run(["apply", "-c", c, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const release = project(await suite.emulator.state(), "api")?.pipelines?.[0]?.triggers?.find(
      (t) => (t.event as { type: string }).type === "webhook",
    );
    expect(release?.config).toBeUndefined();
    expect(release?.checkout).toBeUndefined();
    const again = await run(["plan", "-c", c, "--detailed-exitcode"]);
    expect(again.stdout, again.stderr + again.stdout).toContain("No changes");
  });

  // spec: api-v3.md Events: "`auto_disabled_at` records when the service itself disabled a
  // webhook"; Webhook: `auto_disabled_at` (set only by the service).
  it("plan and drift say the service disabled a webhook itself, and when", async () => {
    const c = await write("hook.yaml", `projects:${apiProject({ webhook: "" })}`);
    const plan = await run(["plan", "-c", c]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      "the service disabled this webhook itself at 2026-11-20T03:04:05.000Z (auto_disabled_at)",
    );
    const json = await planJson(c);
    expect(json.changes.map((x) => x.notes)).toEqual([
      [
        "the service disabled this webhook itself at 2026-11-20T03:04:05.000Z (auto_disabled_at); the config re-enables it",
      ],
    ]);
    const drift = await run(["drift", "-c", c]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain("2026-11-20T03:04:05.000Z (auto_disabled_at)");
  });

  // spec: api-v3.md Pipelines: GET /pipelines "includes the synthetic OAuth pipeline";
  // Triggers: "Includes the synthetic OAuth trigger"; Pipeline: "cannot be updated".
  it("drift does not list the synthetic OAuth pipeline or trigger as unmanaged", async () => {
    const c = await write(
      "web.yaml",
      `projects:
  gh/acme/web:
    env: {}
`,
    );
    const listed = await suite.emulator.call<{ data: { attributes: { name: string } }[] }>(
      "GET",
      `/api/v3/pipelines?filter[project_id]=${WEB_ID}`,
    );
    // The emulator has the synthetic pipeline for every project by default.
    expect(listed.body.data.map((p) => p.attributes.name)).toEqual(["OAuth"]);
    const drift = await run(["drift", "-c", c, "--format", "json"]);
    expect(drift.code, drift.stderr).toBe(0);
    const body = JSON.parse(drift.stdout) as { unmanaged: { address: string }[] };
    expect(body.unmanaged.filter((u) => u.address.includes("gh/acme/web"))).toEqual([]);
  });

  // spec: api-v3.md Org settings: `is_context_group_restriction_required`.
  it("with is_context_group_restriction_required, a new context without a group restriction is refused", async () => {
    await suite.emulator.call("POST", `/api/v3/orgs/${ORG_ID}/update-settings`, {
      is_context_group_restriction_required: true,
    });
    const ctx = (restriction: string) =>
      write(
        "ctx.yaml",
        `contexts:\n  deploy: {}\n  fresh:\n    restrictions:\n      - ${restriction}\n`,
      );
    const bad = await ctx('expression: pipeline.git.branch == "main"');
    await suite.emulator.clearRequests();
    for (const cmd of ["plan", "apply"]) {
      const r = await run([cmd, "-c", bad, ...(cmd === "apply" ? ["--auto-approve"] : [])]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("is_context_group_restriction_required");
      expect(r.stderr).toContain('context["fresh"]');
    }
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    expect(contextNames(await suite.emulator.state())).not.toContain("fresh");
    const good = await ctx("group: all-members");
    const a = await run(["apply", "-c", good, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
  });

  it("the setting declared in the same config counts too", async () => {
    const c = await write(
      "ctx.yaml",
      "settings:\n  is_context_group_restriction_required: true\ncontexts:\n  deploy: {}\n  fresh: {}\n",
    );
    const r = await run(["plan", "-c", c]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is_context_group_restriction_required");
  });

  // spec: api-v3.md Triggers: `parameters` "replaces wholesale (omitted keeps, empty object
  // clears)".
  it("trigger parameters: left out keeps the live ones; {} clears them and then plans empty", async () => {
    const kept = await write("params.yaml", `projects:${apiProject({ nightly: "" })}`);
    const r = await run(["plan", "-c", kept, "--detailed-exitcode"]);
    expect(r.stdout, r.stderr + r.stdout).toContain("No changes");

    const cleared = await write(
      "params.yaml",
      `projects:${apiProject({ nightly: "            parameters: {}" })}`,
    );
    const a = await run(["apply", "-c", cleared, "--auto-approve"]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const nightly = project(await suite.emulator.state(), "api")?.pipelines?.[0]?.triggers?.[1];
    expect(nightly?.parameters).toBeUndefined();
    const again = await run(["plan", "-c", cleared, "--detailed-exitcode"]);
    expect(again.stdout, again.stderr + again.stdout).toContain("No changes");
    expect(again.code).toBe(0);
  });
});
