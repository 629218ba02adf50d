/**
 * `waybill pull`'s core (src/pull/pull.ts) on config files in a temp folder: templates
 * (an override on the item, or `--into-template`), `--into`, `--prune`, secrets that cannot
 * be read back, and `ignore_fields` (plan and pull leave those fields alone).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { readConfigSchema } from "../../src/config/schema-check.js";
import { buildExport } from "../../src/export/build.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import type { LiveOrg, LiveProject, LiveState } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import { computePull, type PullOptions } from "../../src/pull/pull.js";
import { liveFromDesired } from "../helpers/live-from-desired.js";

const SLUG = "gh/acme/api";
const schema = readConfigSchema();
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-pull-core-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const load = async (files: Record<string, string>): Promise<DesiredConfig> => {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const r = await loadConfig(
    Object.keys(files).map((n) => join(dir, n)),
    { env: {}, resolveSecrets: false },
  );
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.config;
};

const editProject = (state: LiveState, edit: (p: LiveProject) => LiveProject): LiveState => {
  const org = state.orgs[0] as LiveOrg;
  const p = org.projects.get(SLUG) as LiveProject;
  return { orgs: [{ ...org, projects: new Map([...org.projects, [SLUG, edit(p)]]) }] };
};

/** Load, edit the live state, plan, pull; then plan the pulled files against the same live. */
const pullAfter = async (
  files: Record<string, string>,
  edit: (p: LiveProject) => LiveProject,
  options: Partial<PullOptions> = {},
) => {
  const desired = await load(files);
  const live = editProject(liveFromDesired(desired), edit);
  const plan = planChanges(desired, live, { skipSecrets: true });
  const org = live.orgs[0] as LiveOrg;
  const result = computePull({
    files: Object.entries(files).map(([n, text]) => ({ path: join(dir, n), text })),
    plan,
    exports: new Map([[org.slug, buildExport(org)]]),
    schema,
    ...options,
  });
  const after: Record<string, string> = { ...files };
  for (const f of result.files) after[f.path.slice(dir.length + 1)] = f.after;
  const again = planChanges(await load(after), live, { skipSecrets: true });
  return { plan, result, after, again };
};

const templated = `org: gh/acme
templates:
  projects:
    service:
      webhooks:
        slack: { url: https://hooks.example.com/T0, events: [workflow-completed] }
projects:
  ${SLUG}:
    extends: [service]   # the slack webhook comes from the template
    env: {}
`;

const moreEvents = (p: LiveProject): LiveProject => ({
  ...p,
  webhooks: (p.webhooks ?? []).map((w) => ({
    ...w,
    events: ["workflow-completed", "job-completed"] as const,
  })),
});

describe("pull", () => {
  it("writes a value a template gives as an override on the item", async () => {
    const { result, after, again } = await pullAfter({ "a.yaml": templated }, moreEvents);
    expect(again.changes).toEqual([]);
    expect(after["a.yaml"]).toContain(
      "    env: {}\n    webhooks:\n      slack:\n        events:\n          - workflow-completed\n          - job-completed\n",
    );
    // The template is untouched.
    expect(after["a.yaml"]).toContain(
      "slack: { url: https://hooks.example.com/T0, events: [workflow-completed] }",
    );
    expect(result.notes).toEqual([]);
  });

  it("with --into-template, writes it in the template and says which items that changes", async () => {
    const { result, after, again } = await pullAfter({ "a.yaml": templated }, moreEvents, {
      intoTemplate: true,
    });
    expect(again.changes).toEqual([]);
    expect(after["a.yaml"]).toBe(
      templated.replace(
        "events: [workflow-completed] }",
        "events: [workflow-completed, job-completed] }",
      ),
    );
    expect(result.notes).toEqual([
      `project["${SLUG}"].webhook["slack"]: events written in template "service", which also changes project["${SLUG}"]`,
    ]);
  });

  it("adds an undeclared live item to the file of its collection, or --into FILE", async () => {
    const files = {
      "a.yaml": `org: gh/acme\ncontexts: {}\nprojects:\n  ${SLUG}:\n    webhooks: {}\n`,
    };
    const desired = await load(files);
    const base = liveFromDesired(desired);
    const org0 = base.orgs[0] as LiveOrg;
    const p = org0.projects.get(SLUG) as LiveProject;
    const live: LiveState = {
      orgs: [
        {
          ...org0,
          contexts: [
            {
              id: "c1",
              name: "deploy",
              env: [{ name: "KEY", truncated_value: "abcd" }],
              restrictions: [],
            },
          ],
          projects: new Map([
            [
              SLUG,
              {
                ...p,
                webhooks: [
                  {
                    id: "wh:new",
                    name: "new",
                    scope: "project",
                    url: "https://n.example.com/h",
                    events: ["job-completed"],
                    should_verify_tls: true,
                    has_signing_secret: true,
                    is_enabled: true,
                  },
                ],
              },
            ],
          ]),
        },
      ],
    };
    const plan = planChanges(desired, live, { skipSecrets: true });
    const result = computePull({
      files: [{ path: join(dir, "a.yaml"), text: files["a.yaml"] }],
      plan,
      exports: new Map([[org0.slug, buildExport(live.orgs[0] as LiveOrg)]]),
      schema,
      into: join(dir, "b.yaml"),
    });
    const by = new Map(result.files.map((f) => [f.path.slice(dir.length + 1), f.after]));
    // The context goes to --into (a new file of the org); the webhook where webhooks are. Its
    // URL is a credential: a reference, like its signing secret.
    expect(by.get("b.yaml")).toBe(
      `org: gh/acme\ncontexts:\n  deploy:\n    env:\n      KEY: \${env:CTX_DEPLOY_KEY}\n    restrictions: []\n`,
    );
    expect(by.get("a.yaml")).toBe(
      `org: gh/acme\ncontexts: {}\nprojects:\n  ${SLUG}:\n    webhooks:\n      new:\n        url: \${env:WEBHOOK_API_NEW_URL}\n        events:\n          - job-completed\n        signing_secret: \${env:WEBHOOK_API_NEW_SIGNING_SECRET}\n`,
    );
    expect(result.notes.join("\n")).toMatch(/declares its collection/);
    expect(result.envVars.map((e) => e.name)).toEqual([
      "CTX_DEPLOY_KEY",
      "WEBHOOK_API_NEW_SIGNING_SECRET",
      "WEBHOOK_API_NEW_URL",
    ]);
    for (const [n, t] of by) await writeFile(join(dir, n), t);
    const r = await loadConfig([join(dir, "a.yaml"), join(dir, "b.yaml")], {
      env: {},
      resolveSecrets: false,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(planChanges(r.config, live, { skipSecrets: true }).changes).toEqual([]);
  });

  it("removes what the service no longer has only with --prune", async () => {
    const files = {
      "a.yaml": `org: gh/acme\nprojects:\n  ${SLUG}:\n    env:\n      KEEP: keep-value-1\n      GONE: gone-value-2 # gone from the service\n`,
    };
    const drop = (p: LiveProject): LiveProject => ({
      ...p,
      env: (p.env ?? []).filter((e) => e.name !== "GONE"),
    });
    const kept = await pullAfter(files, drop);
    expect(kept.result.files).toEqual([]);
    expect(kept.result.skipped[0]?.why).toMatch(/only with --prune/);
    const pruned = await pullAfter(files, drop, { prune: true });
    expect(pruned.after["a.yaml"]).toBe(
      `org: gh/acme\nprojects:\n  ${SLUG}:\n    env:\n      KEEP: keep-value-1\n`,
    );
    expect(pruned.again.changes).toEqual([]);
  });

  it("a field that forces a replacement brings its whole block (a trigger's event)", async () => {
    const files = {
      "a.yaml": `org: gh/acme
projects:
  ${SLUG}:
    pipelines:
      build:
        config: { type: vcs, file_path: .service/config.yml, vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api } }
        checkout: { vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api } }
        triggers:
          nightly: # runs at night
            event:
              type: schedule
              schedule: { cron_expression: "0 2 * * *", attribution_actor: system }
`,
    };
    const toWebhook = (p: LiveProject): LiveProject => ({
      ...p,
      triggers: (p.triggers ?? []).map((t) =>
        t.synthetic
          ? t
          : {
              ...t,
              event: { type: "webhook" as const, webhook: { name: "nightly", source: "bot" } },
            },
      ),
    });
    const { plan, result, after, again } = await pullAfter(files, toWebhook);
    expect(plan.changes.map((c) => c.action)).toEqual(["replace"]);
    expect(again.changes).toEqual([]);
    expect(after["a.yaml"]).toContain(
      "          nightly: # runs at night\n            event:\n              type: webhook\n              webhook:\n                source: bot\n",
    );
    expect(after["a.yaml"]).toContain(`secret: \${env:TRIGGER_API_BUILD_NIGHTLY_SECRET}\n`);
    expect(result.envVars.map((e) => e.name)).toEqual(["TRIGGER_API_BUILD_NIGHTLY_SECRET"]);
  });

  it("pulls only the chosen addresses", async () => {
    const both = (p: LiveProject): LiveProject => ({
      ...moreEvents(p),
      settings: { ...(p.settings ?? {}), is_build_prs_only: true },
    });
    const files = {
      "a.yaml": `org: gh/acme\nprojects:\n  ${SLUG}:\n    settings: { is_build_prs_only: false }\n    webhooks:\n      slack: { url: https://h.example.com/x, events: [workflow-completed] }\n`,
    };
    const { result, again } = await pullAfter(files, both, {
      select: (a) => a.endsWith(".settings"),
    });
    expect(result.pulled).toEqual([`project["${SLUG}"].settings`]);
    expect(again.changes.map((c) => c.address)).toEqual([`project["${SLUG}"].webhook["slack"]`]);
  });
});

describe("ignore_fields", () => {
  const files = {
    "a.yaml": `org: gh/acme
ignore_fields: ['project["*"].webhook["*"].is_enabled']
projects:
  ${SLUG}:
    webhooks:
      slack: { url: https://h.example.com/x, events: [workflow-completed], is_enabled: true }
`,
  };
  const disable = (p: LiveProject): LiveProject => ({
    ...p,
    webhooks: (p.webhooks ?? []).map((w) => ({ ...w, is_enabled: false })),
  });

  it("plan, drift and pull leave the field alone", async () => {
    const { plan, result } = await pullAfter(files, disable);
    expect(plan.changes).toEqual([]);
    expect(result.files).toEqual([]);
  });

  it("an update of another field does not send it", async () => {
    const both = (p: LiveProject): LiveProject => ({
      ...disable(p),
      webhooks: (disable(p).webhooks ?? []).map((w) => ({ ...w, url: "https://o.example.com/y" })),
    });
    const { plan } = await pullAfter(files, both);
    expect(plan.changes.map((c) => c.fields.map((f) => f.path))).toEqual([["url"]]);
    const calls = plan.changes.flatMap((c) => c.calls);
    expect(calls.map((c) => c.route)).toEqual(["/webhooks/{id}/update"]);
    expect(calls.flatMap((c) => c.body_fields ?? [])).toEqual(["url"]);
  });

  it("without it, the same edit is drift", async () => {
    const plain = { "a.yaml": (files["a.yaml"] ?? "").replace(/^ignore_fields.*\n/m, "") };
    const { plan } = await pullAfter(plain, disable);
    expect(plan.changes.map((c) => c.fields.map((f) => f.path))).toEqual([["is_enabled"]]);
  });

  it("refuses an entry without a field name", async () => {
    await writeFile(
      join(dir, "bad.yaml"),
      `org: gh/acme\nignore_fields: ['project["*"].webhook["*"]']\n`,
    );
    const r = await loadConfig(join(dir, "bad.yaml"), { env: {}, resolveSecrets: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics.map((d) => d.code)).toEqual(["invalid_ignore_fields_glob"]);
  });
});
