// biome-ignore-all lint/suspicious/noTemplateCurlyInString: inputs spell ${env:…} references
/**
 * The loader's output model (src/model/desired.ts): secrets, ownership (absent vs empty),
 * interpolation and escapes, file references byte for byte, unresolved mode, folder merge,
 * the default size bound, and configDigest.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ConfigError,
  configDigest,
  DEFAULT_MAX_FILE_BYTES,
  formatDiagnostic,
  formatSummary,
  type LoadResult,
  loadConfig,
  loadConfigOrThrow,
  summarizeConfig,
} from "../../src/config/index.js";
import { isSecret } from "../../src/core/secret.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { firstSteps } from "../helpers/every-kind.js";

/** The variables examples/full.yaml references (in its values, not its comments). */
const FULL_VARS = [
  ...new Set(
    [
      ...JSON.stringify(parse(readFileSync("examples/full.yaml", "utf8"))).matchAll(
        /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g,
      ),
    ].map((m) => m[1] as string),
  ),
];
/** A value for each (a kind added later may reference one more), the ones asserted by hand. */
const FULL_ENV = {
  ...Object.fromEntries(FULL_VARS.map((name) => [name, `${name.toLowerCase()}-value-6666`])),
  PROD_AWS_SECRET: "prod-aws-secret-1111",
  NPM_TOKEN: "npm-token-2222",
  SLACK_SIGNING_SECRET: "slack-signing-3333",
  RELEASE_HOOK_SECRET: "release-hook-4444",
  HONEYCOMB_KEY: "honeycomb-key-5555",
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = async (name: string, text: string | Buffer): Promise<string> => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

const ok = (r: LoadResult): DesiredConfig => {
  if (!r.ok) throw new Error(r.diagnostics.map(formatDiagnostic).join("\n"));
  return r.config;
};

describe("loadConfig: examples/full.yaml into the model", () => {
  it("keeps every field, with env values and secrets as Secret", async () => {
    const config = ok(await loadConfig("examples/full.yaml", { env: FULL_ENV }));
    expect(config.files).toEqual(["examples/full.yaml"]);
    const [org] = config.orgs;
    expect(org?.slug).toBe("gh/acme");
    expect(org?.source).toEqual({ file: "examples/full.yaml", line: 18, col: 1 });
    expect(org?.settings?.enable_private_orbs).toBe(true);
    expect(org?.settings?.enable_uncertified_public_orbs).toBe(false);

    const prod = org?.contexts?.get("deploy-prod");
    const env = prod?.env;
    expect([...(env?.keys() ?? [])]).toEqual([
      "AWS_REGION",
      "AWS_SECRET_ACCESS_KEY",
      "DEPLOY_KEY",
      "GREETING",
    ]);
    const region = env?.get("AWS_REGION")?.value;
    expect(isSecret(region)).toBe(true);
    expect(region?.reveal()).toBe("eu-west-1");
    expect(region?.origin).toBe("literal");
    expect(env?.get("AWS_SECRET_ACCESS_KEY")?.value.reveal()).toBe("prod-aws-secret-1111");
    expect(env?.get("AWS_SECRET_ACCESS_KEY")?.value.origin).toBe("env:PROD_AWS_SECRET");
    // ${file:} is relative to the YAML file and used byte for byte (trailing newline kept).
    const pem = await readFile("examples/secrets/deploy.pem", "utf8");
    expect(env?.get("DEPLOY_KEY")?.value.reveal()).toBe(pem);
    expect(pem.endsWith("\n")).toBe(true);
    expect(env?.get("GREETING")?.value.reveal()).toBe("price: ${HOME} is literal");
    expect(prod?.restrictions?.map((r) => ({ ...r, source: undefined }))).toEqual([
      { type: "project", project: "gh/acme/api", source: undefined },
      { type: "expression", expression: 'pipeline.git.branch == "main"', source: undefined },
      { type: "group", group: "all-members", source: undefined },
    ]);

    // Ownership: `env: {}` is an empty, authoritative map; no `restrictions` key is unmanaged.
    const staging = org?.contexts?.get("deploy-staging");
    expect(staging?.env?.size).toBe(0);
    expect(staging?.restrictions).toBeUndefined();

    const api = org?.projects.get("gh/acme/api");
    expect(api?.settings?.pr_only_branch_overrides).toEqual(["main", "release"]);
    const slack = api?.webhooks?.get("slack");
    expect(slack?.url).toBe("https://hooks.example.com/services/T0");
    expect(slack?.events).toEqual(["workflow-completed", "job-completed"]);
    expect(slack?.signing_secret?.reveal()).toBe("slack-signing-3333");
    expect(api?.webhooks?.get("audit")?.is_enabled).toBe(false);
    expect(api?.webhooks?.get("audit")?.should_verify_tls).toBeUndefined();

    const build = api?.pipelines?.get("build");
    expect(build?.config.vcs).toEqual({
      provider: "github_app",
      repo_id: "123",
      repo_full_name: "acme/api",
    });
    expect([...(build?.triggers?.keys() ?? [])]).toEqual([
      "pushes",
      "tags",
      "nightly",
      "release-hook",
    ]);
    const nightly = build?.triggers?.get("nightly");
    expect(nightly?.event.schedule).toEqual({
      cron_expression: "0 2 * * 1-5",
      attribution_actor: "system",
    });
    expect(nightly?.parameters).toEqual({ deploy: false, region: "eu-west-1" });
    expect(nightly?.config).toEqual({ ref: "main" });
    const hook = build?.triggers?.get("release-hook");
    expect(hook?.event.webhook?.source).toBe("release-bot");
    expect(hook?.event.webhook?.secret?.reveal()).toBe("release-hook-4444");
    expect(build?.triggers?.get("tags")?.event.filter?.rules).toEqual([
      { event_type: "push", rule: "tag =~ ^v", event_ref: "refs/tags" },
    ]);
    expect(org?.projects.get("gh/acme/docs")?.pipelines?.get("site")?.config.hosted).toEqual({
      provider: "service",
    });
    expect(org?.ignore).toEqual([
      'context["legacy-*"]',
      'project["gh/acme/api"].webhook["tmp-*"]',
      'project["gh/acme/api"].env["LEGACY_?"]',
    ]);
  });

  it("never shows a secret value when the model is serialised", async () => {
    const config = ok(await loadConfig("examples/full.yaml", { env: FULL_ENV }));
    const json = JSON.stringify(config.orgs, (_k, v: unknown) =>
      v instanceof Map ? Object.fromEntries(v) : v,
    );
    for (const value of Object.values(FULL_ENV)) expect(json).not.toContain(value);
    expect(json).not.toContain("not a real key");
    expect(json).toContain("(sensitive)");
  });
});

describe("loadConfig: references", () => {
  it("makes an interpolated string one Secret, with the template as its origin", async () => {
    const path = await write(
      "interp.yaml",
      [
        "org: gh/acme",
        "projects:",
        "  gh/acme/api:",
        "    webhooks:",
        "      hook:",
        "        url: https://hooks.example.com/${env:HOOK_PATH}?x=$${literal}",
        "        events: [job-completed]",
      ].join("\n"),
    );
    const config = ok(await loadConfig(path, { env: { HOOK_PATH: "T0/B1" } }));
    const url = config.orgs[0]?.projects.get("gh/acme/api")?.webhooks?.get("hook")?.url;
    expect(isSecret(url)).toBe(true);
    if (!isSecret(url)) return;
    expect(url.reveal()).toBe("https://hooks.example.com/T0/B1?x=${literal}");
    expect(url.origin).toBe("https://hooks.example.com/${env:HOOK_PATH}?x=$${literal}");
    expect(String(url)).toBe("(sensitive)");
  });

  it("with resolveSecrets: false, leaves references unresolved and missing ones are fine", async () => {
    const config = ok(await loadConfig("examples/full.yaml", { env: {}, resolveSecrets: false }));
    const env = config.orgs[0]?.contexts?.get("deploy-prod")?.env;
    const secret = env?.get("AWS_SECRET_ACCESS_KEY")?.value;
    expect(secret?.isResolved).toBe(false);
    expect(secret?.origin).toBe("env:PROD_AWS_SECRET");
    expect(env?.get("DEPLOY_KEY")?.value.isResolved).toBe(false);
    expect(env?.get("DEPLOY_KEY")?.value.origin).toBe("file:secrets/deploy.pem");
    // Literals are still known.
    expect(env?.get("AWS_REGION")?.value.reveal()).toBe("eu-west-1");
  });

  it("reports every missing variable in one run", async () => {
    const r = await loadConfig("examples/full.yaml", { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(FULL_VARS).toEqual(
      expect.arrayContaining([
        "PROD_AWS_SECRET",
        "HONEYCOMB_KEY",
        "NPM_TOKEN",
        "SLACK_SIGNING_SECRET",
        "RELEASE_HOOK_SECRET",
      ]),
    );
    expect(r.diagnostics.map((d) => d.message.split(" ")[2]).sort()).toEqual([...FULL_VARS].sort());
    expect(new Set(r.diagnostics.map((d) => d.code))).toEqual(new Set(["env_missing"]));
  });
});

describe("loadConfig: files and folders", () => {
  it("merges a folder per org, files sorted, collections unioned", async () => {
    const config = ok(
      await loadConfig("examples/large-org", {
        env: new Proxy({}, { get: (_t, name) => `value-of-${String(name)}` }),
      }),
    );
    expect(config.files.map((f) => f.split("/").pop())).toEqual([
      "00-org.yaml",
      "01-templates.yaml",
      "contexts.yaml",
      "project-api.yaml",
      "project-mobile.yml",
      "project-web.yaml",
      "zz-other-org.yaml",
    ]);
    expect(config.orgs.map((o) => o.slug)).toEqual(["gh/acme", "gh/acme-labs"]);
    const acme = config.orgs[0]!;
    expect(acme.settings?.enable_private_orbs).toBe(true);
    expect([...(acme.contexts?.keys() ?? [])]).toEqual(["deploy-prod", "deploy-staging", "npm"]);
    expect([...acme.projects.keys()]).toEqual(["gh/acme/api", "gh/acme/mobile", "gh/acme/web"]);
    expect(acme.ignore).toEqual(['context["legacy-*"]']);
    expect(acme.projects.get("gh/acme/web")?.webhooks?.size).toBe(0);
    expect(acme.projects.get("gh/acme/mobile")?.webhooks).toBeUndefined();
    expect(acme.contexts?.get("npm")?.source.file).toMatch(/contexts\.yaml$/);
    expect(formatSummary(summarizeConfig(config))).toBe(
      "7 files, 2 orgs (gh/acme, gh/acme-labs): 4 contexts, 6 restrictions, 4 projects, 7 env vars, 1 webhook, 3 pipelines, 4 triggers",
    );
  });

  it("leaves contexts unmanaged when no file declares them", async () => {
    const path = await write("no-contexts.yaml", "org: gh/acme\n");
    const config = ok(await loadConfig(path, { env: {} }));
    expect(config.orgs[0]?.contexts).toBeUndefined();
    expect(config.orgs[0]?.projects.size).toBe(0);
    expect(config.orgs[0]?.ignore).toEqual([]);
  });

  it("refuses a file over the default 1 MiB bound", async () => {
    const big = `org: gh/acme\n${"#".repeat(DEFAULT_MAX_FILE_BYTES)}\n`;
    const path = await write("big.yaml", big);
    const r = await loadConfig(path, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]?.code).toBe("file_too_large");
    expect(r.diagnostics[0]?.message).toContain("over the 1 MiB limit per file");
  });

  it("accepts a UTF-8 byte order mark", async () => {
    const path = await write("bom.yaml", Buffer.from("\uFEFForg: gh/acme\n", "utf8"));
    expect(ok(await loadConfig(path, { env: {} })).orgs[0]?.slug).toBe("gh/acme");
  });

  it.skipIf(process.platform === "win32")(
    "reads only regular files (a device would never end)",
    async () => {
      const path = await write(
        "device.yaml",
        "org: gh/acme\ncontexts:\n  c:\n    env:\n      A: ${file:/dev/zero}\n",
      );
      const r = await loadConfig(path, { env: {} });
      // Issue 43: as a ${file:} target it is refused before it is opened (an absolute path
      // is outside the config folder).
      expect(r.ok ? [] : r.diagnostics.map((d) => d.code)).toEqual(["secret_file_outside"]);
      const direct = await loadConfig("/dev/zero", { env: {} });
      expect(direct.ok ? [] : direct.diagnostics.map((d) => d.code)).toEqual(["file_unreadable"]);
    },
  );

  it("says when the config is not there", async () => {
    const r = await loadConfig(join(dir, "nope.yaml"), { env: {} });
    expect(r.ok ? [] : r.diagnostics.map((d) => d.code)).toEqual(["config_not_found"]);
  });

  it("loadConfigOrThrow throws a ConfigError listing every problem", async () => {
    const path = await write("two-problems.yaml", "org: gh/acme\ncontxts: {}\nignore: [x]\n");
    const err = await loadConfigOrThrow(path, { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as ConfigError).message.split("\n");
    expect(lines).toEqual([
      `${path}:2:1: contxts: unknown key "contxts"; did you mean "contexts"?`,
      // Every org-level kind's step, from the registry (test/helpers/every-kind.ts).
      `${path}:3:10: ignore.0: "x": "x" cannot appear first; expected ${firstSteps().join(", ")} (e.g. context["legacy-*"] or project["gh/acme/api"].webhook["*"])`,
    ]);
    expect((err as ConfigError).code).toBe("config_invalid");
  });
});

describe("configDigest", () => {
  /** One org, one context secret, one pipeline with trigger `t`'s `event`. */
  const withTrigger = (event: string, comment = "") =>
    [
      `${comment}org: gh/acme`,
      "contexts:",
      "  c:",
      "    env: { K: '${env:K}' }",
      "projects:",
      "  gh/acme/api:",
      "    pipelines:",
      "      p:",
      "        config: { type: hosted, file_path: f.yml, hosted: { provider: service } }",
      "        checkout: { vcs: { provider: github_app, repo_id: '1', repo_full_name: acme/api } }",
      "        triggers:",
      `          t: { event: ${event}, config: { ref: main }, checkout: { ref: main } }`,
    ].join("\n");
  const doc = (cron: string, comment = "") =>
    withTrigger(`{ type: schedule, schedule: { cron_expression: "${cron}" } }`, comment);

  it("is stable across locations, ignores secret values, and changes with the config", async () => {
    const a = ok(await loadConfig(await write("d1.yaml", doc("0 2 * * *")), { env: { K: "one" } }));
    const moved = ok(
      await loadConfig(await write("d2.yaml", doc("0 2 * * *", "# moved\n\n")), {
        env: { K: "two" },
      }),
    );
    const changed = ok(
      await loadConfig(await write("d3.yaml", doc("0 3 * * *")), { env: { K: "one" } }),
    );
    expect(configDigest(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(configDigest(moved)).toBe(configDigest(a));
    expect(configDigest(changed)).not.toBe(configDigest(a));
  });

  it("changes with a trigger's webhook source (a field named like an item's location)", async () => {
    const hook = (source: string) =>
      withTrigger(`{ type: webhook, webhook: { source: ${source}, secret: "\${env:K}" } }`);
    const a = ok(
      await loadConfig(await write("h1.yaml", hook("release-bot")), { env: { K: "k" } }),
    );
    const b = ok(await loadConfig(await write("h2.yaml", hook("deploy-bot")), { env: { K: "k" } }));
    expect(configDigest(b)).not.toBe(configDigest(a));
  });
});

describe("group ids compare the way the service stores them", () => {
  it("lower-cases group UUIDs under sso_group_mappings on load, as it does restrictions'", async () => {
    const upper = "0D1E2F3A-4B5C-4D6E-8F7A-9B0C1D2E3F4A";
    const path = await write(
      "sso-upper.yaml",
      `org: circleci/org\nsso_group_mappings:\n  - { idp_group_name: admins, group: ${upper} }\n  - { idp_group_name: devs, group: Platform }\ncontexts:\n  deploy:\n    restrictions:\n      - group: ${upper}\n`,
    );
    const org = ok(await loadConfig(path, { env: {} })).orgs[0];
    expect(org?.sso_group_mappings?.mappings.map((m) => m.group)).toEqual([
      upper.toLowerCase(),
      "Platform", // a group name is kept as written
    ]);
    expect(org?.contexts?.get("deploy")?.restrictions).toMatchObject([
      { type: "group", group: upper.toLowerCase() },
    ]);
  });
});
