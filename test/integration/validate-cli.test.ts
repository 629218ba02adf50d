// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the corpus is searched for ${ references
/**
 * `waybill validate` as users run it: the built CLI in a child process (npm test builds
 * dist/ first). Checks exit codes, text and JSON output, the default path, --help, that
 * every corpus case fails with its diagnostics and leaks no secret, and that validate
 * never talks to the service even when a base URL and token are set.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubAnnotation } from "../../src/cli/validate.js";
import type { ConfigDiagnostic } from "../../src/config/index.js";
import { formatDiagnostic, loadConfig } from "../../src/config/index.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { expectNoSecrets, makeTempDir, runCli, writeTempConfig } from "../helpers/cli.js";
import { readGolden, summaryKeys } from "../helpers/every-kind.js";
import { exampleEnv } from "../helpers/examples.js";

const INVALID = "test/fixtures/invalid";
const ENV = {
  PROD_SECRET: "S3CR3T-prod-4f9a1c",
  NPM_TOKEN: "S3CR3T-npm-77c1d0",
  SLACK_SECRET: "S3CR3T-slack-0b2e55",
  HTTP_HOOK_URL: "http://S3CR3T-hook.example.com/x",
  EMPTY_VAR: "",
};
const SECRETS = [
  ENV.PROD_SECRET,
  ENV.NPM_TOKEN,
  ENV.SLACK_SECRET,
  ENV.HTTP_HOOK_URL,
  "FILESECRET-9d2c7e",
];

interface Expected {
  readonly config: string;
  readonly options?: Readonly<Record<string, unknown>>;
  readonly diagnostics: readonly ConfigDiagnostic[];
}
const expectedFor = (name: string): Expected =>
  readGolden<Expected>(join(INVALID, `${name}.expected.json`));
/** The corpus stores file names relative to the corpus folder; the CLI prints them as given. */
const asGiven = (d: ConfigDiagnostic): ConfigDiagnostic => ({ ...d, file: join(INVALID, d.file) });

describe("waybill validate", () => {
  it("prints a one-line summary and exits 0 for a valid config", async () => {
    const r = await runCli(["validate", "-c", "examples/small.yaml"], {
      env: { PROD_AWS_SECRET: "prod-aws-secret-5678" },
    });
    expect(r).toEqual({
      code: 0,
      stdout:
        "OK: 1 file, 1 org (gh/acme): 1 context, 1 restriction, 1 project, 2 env vars, 1 webhook, 0 pipelines, 0 triggers\n",
      stderr: "",
    });
  });

  it("reads ./waybill.yaml by default, and a folder with -c", async () => {
    const { tmp } = await writeTempConfig("org: gh/acme\ncontexts: {}\n");
    try {
      const r = await runCli(["validate"], { cwd: tmp.dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^OK: 1 file, 1 org \(gh\/acme\): 0 contexts/);
    } finally {
      await tmp.remove();
    }
    const folder = await runCli(["validate", "-c", "examples/large-org", "--skip-secrets"]);
    expect(folder.code).toBe(0);
    expect(folder.stdout).toMatch(/^OK: 7 files, 2 orgs \(gh\/acme, gh\/acme-labs\)/);
  });

  it("prints every problem as FILE:LINE:COL: PATH: message and exits 1", async () => {
    const expected = expectedFor("many-errors-one-file");
    const r = await runCli(["validate", "-c", join(INVALID, expected.config)], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        ...expected.diagnostics.map((d) => formatDiagnostic(asGiven(d))),
        `${expected.diagnostics.length} problems found; the config is invalid`,
        "",
      ].join("\n"),
    );
    expect(expected.diagnostics.length).toBeGreaterThan(3);
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, SECRETS);
  });

  it("--format json prints one document on stdout, valid or not", async () => {
    const expected = expectedFor("missing-env-vars");
    const bad = await runCli(
      ["validate", "-c", join(INVALID, expected.config), "--format", "json"],
      { env: ENV },
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      format_version: 1,
      valid: false,
      diagnostics: expected.diagnostics.map(asGiven),
    });
    expectNoSecrets({ stdout: bad.stdout, stderr: bad.stderr }, SECRETS);

    // A value for every variable the example references (a kind added later may add one).
    const fullEnv = exampleEnv("examples/full.yaml");
    const good = await runCli(["validate", "-c", "examples/full.yaml", "--format", "json"], {
      env: fullEnv,
    });
    expect(good.code).toBe(0);
    const doc = JSON.parse(good.stdout) as { valid: boolean; summary: Record<string, unknown> };
    expect(doc.valid).toBe(true);
    // Issue 17: every kind with a count is in the JSON, 0 when none are declared, and
    // nothing else: the keys come from the kinds (test/helpers/every-kind.ts), so a new kind
    // (whose item examples/full.yaml must declare) needs no line here.
    expect(Object.keys(doc.summary).sort()).toEqual([...summaryKeys()].sort());
    expect(doc.summary).toMatchObject({
      files: 1,
      orgs: ["gh/acme"],
      contexts: 2,
      restrictions: 3,
      projects: 3,
      env_vars: 5,
      webhooks: 2,
      pipelines: 2,
      triggers: 4,
      otel_exporters: 1,
      checkout_keys: 2,
      groups: 0,
    });
    // And each count is the number of items the kinds walk in the file, a later kind's too.
    const loaded = await loadConfig("examples/full.yaml", { env: {}, resolveSecrets: false });
    if (!loaded.ok) throw new Error("examples/full.yaml loads");
    const walked: Record<string, number> = { projects: loaded.config.orgs[0]!.projects.size };
    for (const kind of ALL_KINDS) {
      const key = kind.config.summary?.key;
      if (key === undefined) continue;
      walked[key] = (walked[key] ?? 0) + [...kind.desiredItems(loaded.config.orgs[0]!)].length;
    }
    expect(doc.summary).toMatchObject(walked);
    expectNoSecrets({ stdout: good.stdout }, Object.values(fullEnv));
  });

  it("--format github prints one workflow annotation per problem on stdout, escaped", async () => {
    const expected = expectedFor("missing-env-vars");
    const bad = await runCli(
      ["validate", "-c", join(INVALID, expected.config), "--format", "github"],
      { env: ENV },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("");
    const lines = bad.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(expected.diagnostics.length);
    for (const [i, d] of expected.diagnostics.map(asGiven).entries()) {
      expect(lines[i]).toBe(
        `::error file=${d.file},line=${d.line},col=${d.col},title=waybill validate%3A ${d.path}::${d.message}`,
      );
    }
    expectNoSecrets({ stdout: bad.stdout, stderr: bad.stderr }, SECRETS);
    const good = await runCli(["validate", "-c", "examples/small.yaml", "--format", "github"], {
      env: { PROD_AWS_SECRET: "prod-aws-secret-5678" },
    });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^OK: 1 file, 1 org \(gh\/acme\)/);
  });

  it("github annotations escape what would end a property or the message (actions/toolkit rules)", () => {
    expect(
      githubAnnotation({
        file: "a,b:c.yaml",
        line: 3,
        col: 7,
        path: "contexts.x",
        code: "invalid_value",
        message: "50% done\r\nnext: line, here",
      }),
    ).toBe(
      "::error file=a%2Cb%3Ac.yaml,line=3,col=7,title=waybill validate%3A contexts.x::50%25 done%0D%0Anext: line, here",
    );
  });

  it("refuses an unknown --format", async () => {
    const r = await runCli(["validate", "-c", "examples/small.yaml", "--format", "yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Allowed choices are text, json, github");
  });

  it("--help shows two examples", async () => {
    const r = await runCli(["validate", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout.match(/\$ waybill validate/g)).toHaveLength(2);
    expect(r.stdout).toContain("-c, --config <path>");
    expect(r.stdout).toContain("--format <format>");
  });

  it("fails every corpus case that references secrets, leaking none of them", async () => {
    // The whole corpus runs in-process (test/unit/config-invalid-corpus.test.ts); here the
    // cases that reference secrets go through the real CLI, four at a time.
    const cases = readdirSync(INVALID)
      .filter((f) => f.endsWith(".expected.json"))
      .map((f) => expectedFor(f.replace(/\.expected\.json$/, "")))
      .filter((e) => {
        const path = join(INVALID, e.config);
        return !e.options && statSync(path).isFile() && readFileSync(path, "utf8").includes("${");
      });
    expect(cases.length).toBeGreaterThanOrEqual(10);
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(
        cases.slice(i, i + 4).map(async (expected) => {
          const r = await runCli(["validate", "-c", join(INVALID, expected.config)], { env: ENV });
          expect(r.code, expected.config).toBe(1);
          for (const d of expected.diagnostics)
            expect(r.stderr, expected.config).toContain(formatDiagnostic(asGiven(d)));
          expectNoSecrets({ [`${expected.config} output`]: r.stdout + r.stderr }, SECRETS);
        }),
      );
    }
  }, 60_000);
});

describe("waybill validate makes no network call", () => {
  let server: Server;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("even with a base URL and a token set, valid or invalid", async () => {
    const { port } = server.address() as AddressInfo;
    const options = { baseUrl: `http://127.0.0.1:${port}`, token: "service-token-abcdef12" };
    const good = await runCli(["validate", "-c", "examples/large-org", "--skip-secrets"], options);
    const bad = await runCli(["validate", "-c", join(INVALID, "webhook-http-url.yaml")], options);
    expect([good.code, bad.code]).toEqual([0, 1]);
    expect(requests).toEqual([]);
    expectNoSecrets({ good: good.stdout + good.stderr, bad: bad.stdout + bad.stderr }, [
      "service-token-abcdef12",
    ]);
  });
});

describe("validate with several -c (issue 19)", () => {
  it("merges them like the files of one folder", async () => {
    const tmp = await makeTempDir();
    try {
      const a = await tmp.write("a.yaml", "org: gh/acme\ncontexts:\n  one: {}\n");
      const b = await tmp.write("b.yaml", "org: gh/acme\nprojects:\n  gh/acme/api: {}\n");
      const r = await runCli(["validate", "-c", a, "-c", b]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^OK: 2 files, 1 org \(gh\/acme\): 1 context, .*1 project,/);
    } finally {
      await tmp.remove();
    }
  });
});

describe("config errors escape control characters (issue 41)", () => {
  // A key holding a bidi override (U+202E) and a C1 control (U+009B, a one-character CSI on
  // some terminals), written with YAML escapes: the file is ASCII, the key is not.
  const HOSTILE = 'org: gh/acme\ncontexts:\n  "evil\\u202Ename\\x9bx":\n    bogus: 1\n';
  const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

  it("in validate's text, JSON and GitHub output and in plan's refusal", async () => {
    const { tmp, configPath } = await writeTempConfig(HOSTILE);
    try {
      const text = await runCli(["validate", "-c", configPath]);
      const json = await runCli(["validate", "-c", configPath, "--format", "json"]);
      const github = await runCli(["validate", "-c", configPath, "--format", "github"]);
      // plan refuses before any request: no base URL is needed to see its diagnostics.
      const plan = await runCli(["plan", "-c", configPath], {
        baseUrl: "http://127.0.0.1:9",
        token: "service-token-abcdef12",
      });
      for (const r of [text, json, github, plan]) {
        expect(r.code).toBe(1);
        expect(RAW.test(r.stdout + r.stderr), r.stdout + r.stderr).toBe(false);
      }
      expect(text.stderr).toContain("contexts.evil\\u202ename\\u009bx.bogus");
      expect(plan.stderr).toContain("contexts.evil\\u202ename\\u009bx.bogus");
      expect(github.stdout).toContain("evil\\u202ename\\u009bx");
      const doc = JSON.parse(json.stdout) as { diagnostics: { path: string }[] };
      expect(doc.diagnostics.map((d) => d.path)).toContain(
        "contexts.evil\\u202ename\\u009bx.bogus",
      );
    } finally {
      await tmp.remove();
    }
  });

  it("in a file's name and in warnings", async () => {
    const tmp = await makeTempDir();
    try {
      const dir = await tmp.write("cfg\u202e\u0085/waybill.yaml", "org: gh/acme\nbogus: 1\n");
      const bad = await runCli(["validate", "-c", dir]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("cfg\\u202e\\u0085/waybill.yaml:2:1");
      expect(RAW.test(bad.stderr), bad.stderr).toBe(false);
      // A warning (a value like a shell variable) names the file too.
      const warned = await tmp.write(
        "w\u202e/waybill.yaml",
        "org: gh/acme\ncontexts:\n  c:\n    env:\n      K: $HOME\n",
      );
      const ok = await runCli(["validate", "-c", warned]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stderr).toContain("w\\u202e/waybill.yaml:");
      expect(RAW.test(ok.stderr), ok.stderr).toBe(false);
    } finally {
      await tmp.remove();
    }
  });
});
