/**
 * The pure core of `waybill export`: a snapshot → config documents. Checks the config format
 * (defaults left out, placeholders, ignore entries), then that the YAML validates against
 * schemas/waybill.schema.json (ajv 2020) and loads with the real loader into the model the
 * planner compares.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { isSecret } from "../../src/core/secret.js";
import { buildExport, escapeText, renderFolder, renderSingle } from "../../src/export/index.js";
import type { LiveTrigger } from "../../src/model/live.js";
import { type NestedSnapshot, snapshotOf } from "../helpers/export-snapshot.js";

const ORG_ID = "00000000-0000-4000-8000-000000000001";
const GROUP_ID = "00000000-0000-4000-8000-0000000000aa";
const PID = "00000000-0000-4000-8000-000000000100";
const UNKNOWN_PID = "00000000-0000-4000-8000-000000000999";

const trigger = (over: Partial<LiveTrigger> & Pick<LiveTrigger, "id" | "event">): LiveTrigger => ({
  is_disabled: false,
  pipeline_id: "p-build",
  synthetic: false,
  ...over,
});

const vcs = { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" };

const snapshot = (): NestedSnapshot => ({
  org: { id: ORG_ID, slug: "gh/acme" },
  settings: { enable_private_orbs: true, is_running_disabled: false, not_in_the_spec: true },
  contexts: [
    {
      id: "c2",
      name: "deploy-prod",
      env: ["AWS_REGION", "DEPLOY_KEY"],
      restrictions: [
        { id: "r3", type: "group", match_pattern: ORG_ID, value: "all-members" },
        { id: "r1", type: "project", match_pattern: PID, value: "gh/acme/api" },
        { id: "r4", type: "project", match_pattern: UNKNOWN_PID, value: UNKNOWN_PID },
        { id: "r2", type: "expression", match_pattern: EXPR, value: EXPR },
        { id: "r5", type: "group", match_pattern: GROUP_ID, value: GROUP_ID },
      ],
    },
    { id: "c1", name: "empty", env: [], restrictions: [] },
    { id: "c3", name: "twice", env: ["A"], restrictions: [] },
    { id: "c4", name: "twice", env: ["B"], restrictions: [] },
  ],
  projects: [
    {
      id: PID,
      slug: "gh/acme/api",
      settings: { enable_dynamic_config: true, pr_only_branch_overrides: ["main", "release"] },
      env: ["NPM_TOKEN"],
      webhooks: [
        {
          id: "w1",
          name: "slack",
          scope: "project",
          url: "https://hooks.example.com/T0",
          events: ["workflow-completed"],
          should_verify_tls: true,
          has_signing_secret: true,
          is_enabled: true,
        },
        {
          id: "w2",
          name: "audit",
          scope: "project",
          url: "https://audit.example.com/x",
          events: ["workflow-completed", "job-completed"],
          should_verify_tls: false,
          has_signing_secret: false,
          is_enabled: false,
        },
        {
          id: "w3",
          name: "org-wide",
          scope: "organization",
          url: "https://org.example.com/x",
          events: ["job-completed"],
          should_verify_tls: true,
          has_signing_secret: false,
          is_enabled: true,
        },
      ],
      pipelines: [
        {
          id: "p-build",
          name: "build",
          description: "",
          config: { type: "vcs", file_path: ".service/config.yml", vcs },
          checkout: { vcs },
          synthetic: false,
        },
        {
          id: "p-oauth",
          name: "oauth",
          config: { type: "vcs", file_path: ".service/config.yml", vcs },
          synthetic: true,
        },
      ],
      triggers: [
        trigger({
          id: "t1",
          event: { type: "vcs", vcs, filter: { preset: "all-pushes" } },
        }),
        trigger({
          id: "t2",
          event: { type: "vcs", vcs, filter: { preset: "only-tags" } },
          is_disabled: true,
        }),
        trigger({
          id: "t3",
          config: { ref: "main" },
          checkout: { ref: "main" },
          event: {
            type: "schedule",
            schedule: {
              name: "nightly",
              cron_expression: "0  2 * * *",
              attribution_actor: "system",
            },
          },
          parameters: { deploy: false, n: 2, s: "x" },
        }),
        trigger({
          id: "t4",
          config: { ref: "main" },
          checkout: { ref: "main" },
          event: { type: "webhook", webhook: { name: "release", source: "bot" } },
        }),
        trigger({
          id: "t5",
          event: { type: "webhook", webhook: { name: "no-refs" } },
        }),
        trigger({
          id: "t6",
          pipeline_id: "p-oauth",
          synthetic: true,
          event: { type: "vcs", vcs },
        }),
      ],
    },
  ],
});

/** The value at a path of nested maps (the tests only index into documents). */
const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], v);
const keysOf = (v: unknown): string[] => Object.keys(v as object);

/** `${env:NAME}` / `${y}` text, built so no string literal looks like a template slip. */
const envRef = (name: string): string => ["$", "{env:", name, "}"].join("");
const EXPR = ['x == "', "$", '{y}"'].join("");

const NOW = new Date("2026-11-22T05:00:00.000Z");
const header = { exportedAt: NOW, baseUrl: "https://user:pw@service.example.com/" };

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

describe("buildExport", () => {
  const result = buildExport(snapshotOf(snapshot()));
  const org = result.org.body;
  const project = at(result.projects[0]?.body, "projects", "gh/acme/api");

  it("writes org settings the config format knows, and every context", () => {
    expect(at(org, "org")).toBe("gh/acme");
    expect(at(org, "settings")).toEqual({ enable_private_orbs: true, is_running_disabled: false });
    expect(keysOf(at(org, "contexts"))).toEqual(["deploy-prod", "empty"]);
    expect(at(org, "contexts", "empty")).toEqual({ env: {}, restrictions: [] });
  });

  it("writes env vars as env placeholders named CTX_<CONTEXT>_<VAR>", () => {
    expect(at(org, "contexts", "deploy-prod", "env")).toEqual({
      AWS_REGION: envRef("CTX_DEPLOY_PROD_AWS_REGION"),
      DEPLOY_KEY: envRef("CTX_DEPLOY_PROD_DEPLOY_KEY"),
    });
    expect(at(project, "env")).toEqual({ NPM_TOKEN: envRef("PROJECT_API_NPM_TOKEN") });
  });

  it("writes restrictions with project slugs (or the id), escaped expressions, all-members", () => {
    expect(at(org, "contexts", "deploy-prod", "restrictions")).toEqual([
      { project: UNKNOWN_PID },
      { project: "gh/acme/api" },
      { expression: ['x == "', "$$", '{y}"'].join("") },
      { group: GROUP_ID },
      { group: "all-members" },
    ]);
  });

  it("leaves defaults out and gives a signing secret placeholder only where one is stored", () => {
    expect(at(project, "webhooks", "slack")).toEqual({
      url: envRef("WEBHOOK_API_SLACK_URL"),
      events: ["workflow-completed"],
      signing_secret: envRef("WEBHOOK_API_SLACK_SIGNING_SECRET"),
    });
    expect(at(project, "webhooks", "audit")).toEqual({
      url: envRef("WEBHOOK_API_AUDIT_URL"),
      events: ["job-completed", "workflow-completed"],
      should_verify_tls: false,
      is_enabled: false,
    });
  });

  it("leaves the synthetic OAuth pipeline and its trigger out", () => {
    expect(keysOf(at(project, "pipelines"))).toEqual(["build"]);
    expect(JSON.stringify(project)).not.toContain("p-oauth");
  });

  it("keys vcs triggers by repo, named triggers by name; only non-defaults", () => {
    const triggers = at(project, "pipelines", "build", "triggers");
    expect(keysOf(triggers)).toEqual([
      "nightly",
      "no-refs",
      "release",
      "vcs:acme/api",
      "vcs:acme/api (2)",
    ]);
    // spec: api-v3.md Triggers: `config? {ref string?}, checkout? {ref string?}`: a trigger
    // without refs is exported as it lives, without them.
    expect(at(triggers, "no-refs")).toEqual({
      event: { type: "webhook", webhook: { secret: envRef("TRIGGER_API_BUILD_NO_REFS_SECRET") } },
    });
    expect(at(triggers, "vcs:acme/api")).toEqual({
      event: { type: "vcs", vcs, filter: { preset: "all-pushes" } },
    });
    expect(at(triggers, "vcs:acme/api (2)", "is_disabled")).toBe(true);
    expect(at(triggers, "nightly")).toEqual({
      config: { ref: "main" },
      checkout: { ref: "main" },
      event: {
        type: "schedule",
        schedule: { cron_expression: "0 2 * * *", attribution_actor: "system" },
      },
      parameters: { deploy: false, n: 2, s: "x" },
    });
    expect(at(triggers, "release", "event", "webhook")).toEqual({
      source: "bot",
      secret: envRef("TRIGGER_API_BUILD_RELEASE_SECRET"),
    });
    // An empty description is not managed.
    expect(at(project, "pipelines", "build", "description")).toBeUndefined();
  });

  it("puts what the config format cannot express under ignore, with a warning", () => {
    expect(result.org.ignore.filter((i) => i.commentOnly !== true).map((i) => i.glob)).toEqual([
      'context["twice"]',
    ]);
    // A setting the service returns and the schema lacks: a comment, never config (issue 40).
    expect(result.org.ignore.filter((i) => i.commentOnly === true).map((i) => i.glob)).toEqual([
      "org_settings.not_in_the_spec",
    ]);
    expect(result.projects[0]?.ignore.map((i) => i.glob)).toEqual([
      'project["gh/acme/api"].webhook["org-wide"]',
    ]);
    expect(result.warnings).toHaveLength(3);
    expect(result.warnings.some((w) => w.includes("c3, c4"))).toBe(true);
    expect(result.warnings.some((w) => w.includes("org_settings.not_in_the_spec"))).toBe(true);
  });

  it("lists every variable with the address it feeds, sorted by address", () => {
    expect(result.envVars.map((n) => `${n.name} ${n.address}`)).toEqual([
      'CTX_DEPLOY_PROD_AWS_REGION context["deploy-prod"].env["AWS_REGION"]',
      'CTX_DEPLOY_PROD_DEPLOY_KEY context["deploy-prod"].env["DEPLOY_KEY"]',
      'PROJECT_API_NPM_TOKEN project["gh/acme/api"].env["NPM_TOKEN"]',
      'TRIGGER_API_BUILD_NO_REFS_SECRET project["gh/acme/api"].pipeline["build"].trigger["no-refs"]',
      'TRIGGER_API_BUILD_RELEASE_SECRET project["gh/acme/api"].pipeline["build"].trigger["release"]',
      'WEBHOOK_API_AUDIT_URL project["gh/acme/api"].webhook["audit"]',
      'WEBHOOK_API_SLACK_SIGNING_SECRET project["gh/acme/api"].webhook["slack"]',
      'WEBHOOK_API_SLACK_URL project["gh/acme/api"].webhook["slack"]',
    ]);
  });

  it("writes a webhook URL (a credential) as an env placeholder, or in clear with inlineUrls", () => {
    expect(JSON.stringify(result)).not.toContain("hooks.example.com/T0");
    expect(result.envVars.filter((n) => n.what === "url").map((n) => n.name)).toEqual([
      "WEBHOOK_API_AUDIT_URL",
      "WEBHOOK_API_SLACK_URL",
    ]);
    const inline = buildExport(snapshotOf(snapshot()), { inlineUrls: true });
    const p = at(inline.projects[0]?.body, "projects", "gh/acme/api");
    expect(at(p, "webhooks", "slack", "url")).toBe("https://hooks.example.com/T0");
    expect(inline.envVars.some((n) => n.what === "url")).toBe(false);
  });

  it("is deterministic whatever order the service listed things in", () => {
    const s = snapshot();
    const shuffled: NestedSnapshot = {
      ...s,
      contexts: [...s.contexts].reverse().map((c) => ({
        ...c,
        env: [...c.env].reverse(),
        restrictions: [...c.restrictions].reverse(),
      })),
      projects: s.projects.map((p) => ({
        ...p,
        webhooks: [...p.webhooks].reverse(),
        triggers: [...p.triggers].reverse(),
      })),
    };
    expect(renderSingle(buildExport(snapshotOf(shuffled)), header)).toBe(
      renderSingle(result, header),
    );
  });
});

describe("escapeText", () => {
  it("doubles the dollar of every reference opener so the loader reads the same text back", () => {
    const open = ["$", "{"].join("");
    expect(escapeText(`a ${open}env:X} $${open}b}`)).toBe(`a $${open}env:X} $$${open}b}`);
  });
});

describe("rendered export", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "waybill-export-unit-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const result = buildExport(snapshotOf(snapshot()));
  const single = renderSingle(result, header);

  it("starts with a header saying when and from where, without URL credentials", () => {
    const head = single.split("\n").slice(0, 5).join("\n");
    expect(head).toContain("2026-11-22T05:00:00.000Z");
    expect(head).toContain("https://service.example.com");
    expect(head).toContain("org gh/acme");
    expect(single).not.toContain("user:pw");
  });

  it("validates against schemas/waybill.schema.json (ajv 2020)", async () => {
    const schema = JSON.parse(await readFile("schemas/waybill.schema.json", "utf8"));
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    const docs = [single, ...renderFolder(result, header).map((f) => f.content)];
    for (const text of docs) {
      const ok = validate(parse(text));
      expect(validate.errors ?? [], text).toEqual([]);
      expect(ok).toBe(true);
    }
  });

  it("loads with the real loader, one file or a folder, into the same model", async () => {
    const env = Object.fromEntries(
      result.envVars.map((n) => [
        n.name,
        n.what === "url" ? `https://hooks.example.com/${n.name}` : `value-of-${n.name}`,
      ]),
    );
    const file = join(dir, "one.yaml");
    await writeFile(file, single);
    const folder = join(dir, "folder");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    const files = renderFolder(result, header);
    expect(files.map((f) => f.name)).toEqual(["org.yaml", "project-api.yaml"]);
    for (const f of files) await writeFile(join(folder, f.name), f.content);

    for (const path of [file, folder]) {
      const loaded = await loadConfig(path, { env, resolveSecrets: true });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics, null, 2));
      const [org] = loaded.config.orgs;
      expect(org?.slug).toBe("gh/acme");
      const ctx = org?.contexts?.get("deploy-prod");
      const value = ctx?.env?.get("AWS_REGION")?.value;
      expect(isSecret(value) && value.reveal()).toBe("value-of-CTX_DEPLOY_PROD_AWS_REGION");
      const expr = ctx?.restrictions?.find((r) => r.type === "expression");
      expect(expr?.type === "expression" && expr.expression).toBe(EXPR);
      const build = org?.projects.get("gh/acme/api")?.pipelines?.get("build");
      expect([...(build?.triggers?.keys() ?? [])]).toHaveLength(5);
      expect(org?.ignore).toHaveLength(2);
    }
  });
});
