/**
 * `waybill export` as users run it (the built CLI against the emulator over loopback):
 * stdout / file / folder output, the list of variables on stderr, no secret value anywhere,
 * errors for an unknown org or project, and the Done-when: `plan` on the export,
 * with the variables set to values whose last four characters match, shows no changes.
 */
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/index.js";
import { parseAddress } from "../../src/model/address.js";
import { expectNoSecrets, makeTempDir, REPO_ROOT, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

/** `  NAME  address` lines of the stderr list → name and address. */
const neededVariables = (stderr: string): { name: string; address: string }[] =>
  stderr
    .split("\n")
    .map((line) => /^ {2}([A-Z_][A-Z0-9_]*) +(\S.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1] ?? "", address: (m[2] ?? "").replace(/ \(.*\)$/, "") }));

/**
 * Values for the variables: env vars end with the live value's last four characters (from the
 * emulator's state dump); signing and trigger secrets are never returned by the service, so any
 * value plans as "unverified".
 */
const valuesFor = (
  needs: readonly { name: string; address: string }[],
  state: Seed,
): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const { name, address } of needs) {
    const seg = parseAddress(address) ?? [];
    const envName = seg[1]?.name === "env" ? seg[1].key : undefined;
    let live: string | undefined;
    for (const org of state.orgs ?? []) {
      if (seg[0]?.name === "context" && envName !== undefined) {
        live ??= org.contexts?.find((c) => c.name === seg[0]?.key)?.env?.[envName];
      }
      if (seg[0]?.name === "project" && envName !== undefined) {
        live ??= org.projects?.find((p) => p.slug === seg[0]?.key)?.env?.[envName];
      }
    }
    if (envName !== undefined && live === undefined)
      throw new Error(`no live value for ${address}`);
    // Issue 30: a webhook URL is exported as a variable; its value is the live URL.
    if (seg[1]?.name === "webhook" && name.endsWith("_URL")) {
      const org = state.orgs?.find((o) => o.projects?.some((p) => p.slug === seg[0]?.key));
      const url = org?.projects
        ?.find((p) => p.slug === seg[0]?.key)
        ?.webhooks?.find((w) => w.name === seg[1]?.key)?.url;
      if (url === undefined) throw new Error(`no live url for ${address}`);
      out[name] = url;
      continue;
    }
    out[name] =
      live === undefined
        ? "any-secret-value"
        : live.length >= 4
          ? `round-trip-${live.slice(-4)}`
          : live;
  }
  return out;
};

/** Every secret value in a state dump (env values, signing secrets, trigger secrets). */
const secretsOf = (state: Seed): string[] => {
  const out: string[] = [];
  for (const org of state.orgs ?? []) {
    for (const c of org.contexts ?? []) out.push(...Object.values(c.env ?? {}));
    for (const p of org.projects ?? []) {
      out.push(...Object.values(p.env ?? {}));
      for (const w of p.webhooks ?? []) if (w.signing_secret) out.push(w.signing_secret);
      for (const pl of p.pipelines ?? [])
        for (const t of pl.triggers ?? []) {
          const secret = (t.event.webhook as { secret?: unknown } | undefined)?.secret;
          if (typeof secret === "string") out.push(secret);
        }
    }
  }
  return out.filter((s) => s.length >= 8);
};

describe("waybill export", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let seed: Seed;

  beforeAll(async () => {
    seed = JSON.parse(await readFile("examples/demo/seed.json", "utf8")) as Seed;
    emulator = await startTestEmulator(seed);
    tmp = await makeTempDir("waybill-export-");
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator.reset(seed);
  });

  const run = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { baseUrl: emulator.url, token: emulator.token, env, cwd: tmp.dir });

  it("exports to stdout, and plan on it shows no changes (exit 0 with --detailed-exitcode)", async () => {
    const r = await run(["export", "--org", "gh/acme", "--all-projects"]);
    expect(r.stderr).toContain("environment variables");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# yaml-language-server: \$schema=/);
    expect(r.stdout).toMatch(/# Exported by `waybill export` at \d{4}-\d\d-\d\dT/);
    expect(r.stdout).toContain(`from ${emulator.url}, org gh/acme`);
    const needs = neededVariables(r.stderr);
    expect(needs.map((n) => n.name)).toContain("CTX_DEPLOY_PROD_AWS_SECRET_ACCESS_KEY");
    expect(needs).toContainEqual({
      name: "WEBHOOK_API_SLACK_SIGNING_SECRET",
      address: 'project["gh/acme/api"].webhook["slack"]',
    });
    const state = await emulator.state();
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, secretsOf(state));

    const file = await tmp.write("exported.yaml", r.stdout);
    const env = valuesFor(needs, state);
    const plan = await run(["plan", "-c", file, "--detailed-exitcode"], env);
    expect(plan.stdout + plan.stderr).toContain("No changes");
    expect(plan.code).toBe(0);
  });

  it("reads every collection of the registry's kinds", async () => {
    await emulator.clearRequests();
    const r = await run(["export", "--org", "gh/acme", "--all-projects"]);
    expect(r.code, r.stderr).toBe(0);
    const paths = (await emulator.requests()).map((q) => `${q.method} ${q.path}`);
    // One route per kind's listing (src/kinds/*.ts `list`), read through the registry walk.
    for (const route of [
      /^GET \/api\/v3\/orgs\/[^/]+\/settings$/,
      /^GET \/api\/v3\/contexts$/,
      /^GET \/api\/v3\/contexts\/[^/]+\/env-vars$/,
      /^GET \/api\/v3\/context-restrictions$/,
      /^GET \/api\/v3\/projects\/[^/]+\/settings$/,
      /^GET \/api\/v3\/projects\/[^/]+\/environment-variables$/,
      /^GET \/api\/v3\/webhooks$/,
      /^GET \/api\/v3\/pipelines$/,
      /^GET \/api\/v3\/triggers$/,
    ]) {
      expect(
        paths.some((x) => route.test(x)),
        `${route} in ${paths.join("\n")}`,
      ).toBe(true);
    }
  });

  it("plan on the export notices a later change in the live state (the test can fail)", async () => {
    const r = await run(["export", "--org", "gh/acme", "--project", "api"]);
    expect(r.code).toBe(0);
    const file = await tmp.write("before-change.yaml", r.stdout);
    const env = valuesFor(neededVariables(r.stderr), await emulator.state());
    const state = await emulator.state();
    const api = state.orgs?.[0]?.projects?.find((p) => p.slug === "gh/acme/api");
    const hook = api?.webhooks?.find((w) => w.name === "audit");
    const changed = await emulator.call("POST", `/api/v3/webhooks/${hook?.id}/set-enabled`, {
      is_enabled: true,
    });
    expect(changed.status).toBe(200);
    const plan = await run(["plan", "-c", file, "--detailed-exitcode"], env);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('project["gh/acme/api"].webhook["audit"]');
  });

  it("writes a folder: org.yaml and one file per project, mode 0600, that plans clean", async () => {
    const out = join(tmp.dir, "infra") + "/";
    const r = await run(["export", "--org", "gh/acme", "--all-projects", "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const names = ["org.yaml", "project-api.yaml", "project-legacy.yaml", "project-web.yaml"];
    expect(r.stderr).toContain(`Wrote ${names.join(", ")}`);
    const texts: Record<string, string> = {};
    for (const name of names) {
      const info = await stat(join(out, name));
      expect(info.mode & 0o777).toBe(0o600);
      texts[name] = await readFile(join(out, name), "utf8");
    }
    expect(texts["org.yaml"]).toContain("contexts:");
    expect(texts["org.yaml"]).not.toContain("projects:");
    expect(texts["project-api.yaml"]).toMatch(/^org: gh\/acme\nprojects:\n {2}gh\/acme\/api:/m);
    const state = await emulator.state();
    expectNoSecrets(texts, secretsOf(state));
    const plan = await run(
      ["plan", "-c", out, "--detailed-exitcode"],
      valuesFor(neededVariables(r.stderr), state),
    );
    expect(plan.code).toBe(0);
  });

  it("names its schema by a relative path and writes that file next to its own (-o DIR/ and -o FILE)", async () => {
    const schema = await readFile(join(REPO_ROOT, "schemas", "waybill.schema.json"), "utf8");
    const out = join(tmp.dir, "with-schema") + "/";
    const folder = await run(["export", "--org", "gh/acme", "--project", "gh/acme/api", "-o", out]);
    expect(folder.code, folder.stderr).toBe(0);
    for (const name of ["org.yaml", "project-api.yaml"]) {
      const text = await readFile(join(out, name), "utf8");
      expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=./waybill.schema.json");
    }
    expect(await readFile(join(out, "waybill.schema.json"), "utf8")).toBe(schema);
    expect(folder.stderr).toContain("waybill.schema.json to ");
    // The folder still validates: the schema file is not read as config.
    expect((await run(["validate", "-c", out, "--skip-secrets"])).code).toBe(0);

    const single = join(tmp.dir, "single", "one.yaml");
    await tmp.write("single/.keep", "");
    const file = await run(["export", "--org", "gh/acme", "-o", single]);
    expect(file.code, file.stderr).toBe(0);
    expect(await readFile(join(tmp.dir, "single", "waybill.schema.json"), "utf8")).toBe(schema);
    // On stdout, the header says how to write it.
    const stdout = await run(["export", "--org", "gh/acme"]);
    expect(stdout.stdout).toMatch(
      /^# yaml-language-server: \$schema=\.\/waybill\.schema\.json\n# \(the schema: `waybill schema > waybill\.schema\.json` next to this file/,
    );
  });

  it("refuses a folder that already holds files without --force (nothing read or written); --force writes into it", async () => {
    const out = join(tmp.dir, "edited");
    const edited = "org: gh/acme # edited by hand\ncontexts: {}\n";
    await tmp.write("edited/org.yaml", edited);
    await tmp.write("edited/.notes", "mine\n");
    await emulator.clearRequests();
    for (const target of [out, `${out}/`]) {
      const r = await run(["export", "--org", "gh/acme", "--all-projects", "-o", target]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `the output folder ${target} already holds files (.notes, org.yaml)`,
      );
      expect(r.stderr).toContain("pass --force");
      expect(r.stdout).toBe("");
    }
    expect((await readdir(out)).sort()).toEqual([".notes", "org.yaml"]);
    expect(await readFile(join(out, "org.yaml"), "utf8")).toBe(edited);
    expect(await emulator.requests()).toEqual([]);

    const forced = await run(["export", "--org", "gh/acme", "-o", out, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(out, "org.yaml"), "utf8")).toContain("org: gh/acme\n");
    expect(await readFile(join(out, "org.yaml"), "utf8")).not.toContain("edited by hand");
    expect(await readFile(join(out, ".notes"), "utf8")).toBe("mine\n");
    // An empty folder needs no --force.
    await mkdir(join(tmp.dir, "empty"));
    expect((await run(["export", "--org", "gh/acme", "-o", join(tmp.dir, "empty")])).code).toBe(0);
  });

  it("writes one file with -o FILE, mode 0600", async () => {
    const file = join(tmp.dir, "one.yaml");
    const r = await run(["export", "--org", "gh/acme", "-o", file]);
    expect(r.code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, "utf8");
    expect(text).toContain("org: gh/acme");
    expect(text).not.toContain("projects:");
    expect(r.stderr).toContain("no project was exported");
  });

  it("an unknown org is a clear error, exit 1, and nothing is written", async () => {
    const r = await run(["export", "--org", "gh/nope", "-o", join(tmp.dir, "nope.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("org gh/nope absent or not visible");
    expect(r.stdout).toBe("");
    await expect(stat(join(tmp.dir, "nope.yaml"))).rejects.toThrow();
  });

  it("writes a webhook URL as an env placeholder and lists it; --inline-urls writes it in clear", async () => {
    const url = "https://hooks.example.com/services/T0";
    const r = await run(["export", "--org", "gh/acme", "--project", "api"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain("/services/T0");
    expect(r.stdout).toContain(`url: $${"{"}env:WEBHOOK_API_SLACK_URL}`);
    expect(r.stderr).toMatch(
      /^ {2}WEBHOOK_API_SLACK_URL +project\["gh\/acme\/api"\]\.webhook\["slack"\] \(url\)$/m,
    );
    const inline = await run(["export", "--org", "gh/acme", "--project", "api", "--inline-urls"]);
    expect(inline.code, inline.stderr).toBe(0);
    expect(inline.stdout).toContain(`url: ${url}`);
    expect(inline.stderr).not.toContain("WEBHOOK_API_SLACK_URL");
  });

  it("--allowed-orgs (or WAYBILL_ALLOWED_ORGS) refuses another org before any request", async () => {
    await emulator.clearRequests();
    const r = await run(["export", "--org", "gh/acme", "--allowed-orgs", "gh/other"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"gh/acme" is not among the allowed orgs');
    const e = await run(["export", "--org", "gh/acme"], { WAYBILL_ALLOWED_ORGS: "gh/x, gh/y" });
    expect(e.code).toBe(1);
    expect(await emulator.requests()).toEqual([]);
    const ok = await run(["export", "--org", "gh/acme"], { WAYBILL_ALLOWED_ORGS: "gh/x,gh/acme" });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("an unknown project is an error naming it", async () => {
    const r = await run(["export", "--org", "gh/acme", "--project", "gh/acme/nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no project gh/acme/nope in org gh/acme");
  });

  it("refuses --project with --all-projects", async () => {
    const r = await run(["export", "--org", "gh/acme", "--project", "api", "--all-projects"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot be combined");
  });

  it("--help shows two examples", async () => {
    const r = await runCli(["export", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--org <slug>");
    expect(r.stdout.match(/\$ .*waybill export /g)).toHaveLength(2);
  });

  it("lists what the config format cannot express under ignore, and plan still shows no changes", async () => {
    const vcs = { provider: "github_app", repo_id: "9", repo_full_name: "odd/app" };
    const odd: Seed = {
      ...(seed.tokens ? { tokens: seed.tokens } : {}),
      orgs: [
        {
          slug: "gh/odd",
          contexts: [
            { name: "twin", env: { A: "value-one-1111" } },
            { name: "twin", env: { B: "value-two-2222" } },
            { name: "single", env: { C: "value-three-3333" } },
          ],
          projects: [
            {
              slug: "app",
              oauth: true,
              repo: vcs,
              webhooks: [
                { name: "dup", url: "https://a.example.com/1", events: ["job-completed"] },
                { name: "dup", url: "https://a.example.com/2", events: ["job-completed"] },
                {
                  name: "org-scope",
                  scope: "organization",
                  url: "https://a.example.com/3",
                  events: ["job-completed"],
                },
              ],
              pipelines: [
                {
                  name: "build",
                  config: { type: "vcs", file_path: ".service/config.yml", vcs },
                  checkout: { vcs },
                  triggers: [
                    { event: { type: "vcs", vcs, filter: { preset: "all-pushes" } } },
                    { event: { type: "vcs", vcs, filter: { preset: "all-pushes" } } },
                    { event: { type: "webhook", webhook: { name: "no-refs" } } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    await emulator.reset(odd);
    const r = await run(["export", "--org", "gh/odd", "--all-projects"]);
    expect(r.stderr).toContain("Warning");
    expect(r.code).toBe(0);
    for (const address of [
      'context["twin"]',
      'project["gh/odd/app"].webhook["dup"]',
      'project["gh/odd/app"].webhook["org-scope"]',
      'project["gh/odd/app"].pipeline["build"].trigger["vcs:odd/app"]',
    ]) {
      expect(r.stderr).toContain(`Warning: ${address} is not exported`);
      expect(r.stdout).toContain(`  - ${address}`);
    }
    // spec: api-v3.md Triggers: `config? {ref string?}, checkout? {ref string?}`: a trigger
    // without refs is exported like any other (it was left out before).
    expect(r.stderr).not.toContain('trigger["no-refs"] is not exported');
    expect(r.stdout).toContain("          no-refs:");
    // The synthetic OAuth pipeline is left out; the real one is exported.
    expect(r.stdout).toContain("      build:");
    const file = await tmp.write("odd.yaml", r.stdout);
    const plan = await run(
      ["plan", "-c", file, "--detailed-exitcode"],
      valuesFor(neededVariables(r.stderr), await emulator.state()),
    );
    expect(plan.stdout).toContain("No changes");
    expect(plan.code).toBe(0);
  });
});
