/**
 * Issue 6, Done-when: for random org states, `export` then `plan` on the result (with the
 * variables set to values whose last four characters match the live ones) shows no changes.
 * In-process (`main` with injected streams) against one emulator over loopback, reset per run.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeedContext } from "../../emulator/src/families/contexts.js";
import type { SeedPipeline } from "../../emulator/src/families/pipelines.js";
import type { SeedProject } from "../../emulator/src/families/projects.js";
import type { SeedTrigger } from "../../emulator/src/families/triggers.js";
import type { Seed } from "../../emulator/src/index.js";
import { parseAddress } from "../../src/model/address.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";
import { propertyRuns } from "../helpers/property-runs.js";

const ORG = "gh/prop";
/** A literal `${` (live values may hold one; the export must escape it). */
const OPEN = ["$", "{"].join("");

// ---------------------------------------------------------------------------------------
// A small arbitrary of org states (emulator seeds)
// ---------------------------------------------------------------------------------------

/** Names chosen so that placeholder names collide (a-b, a_b, A.B all give A_B). */
const contextName = fc.constantFrom(
  "deploy-prod",
  "deploy_prod",
  "Deploy.Prod",
  "npm",
  `ci ${OPEN}x}`,
);
const envName = fc.constantFrom("AWS_REGION", "TOKEN", "aws_region", "KEY_1");
const secretValue = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== "");
const envMap = fc.dictionary(envName, secretValue, { maxKeys: 3 });
const expression = fc.constantFrom(
  'pipeline.git.branch == "main"',
  'pipeline.git.tag starts-with "v"',
  `literal ${OPEN}env:NOT_A_REFERENCE}`,
);

const repo = (n: number) => ({
  provider: "github_app",
  repo_id: String(100 + n),
  repo_full_name: `prop/repo-${n}`,
});

const restrictions = (projectSlugs: readonly string[]) =>
  fc.uniqueArray(
    fc.oneof(
      fc.constantFrom(...projectSlugs).map((p) => ({
        restriction_type: "project" as const,
        match_pattern: p,
      })),
      expression.map((e) => ({ restriction_type: "expression" as const, match_pattern: e })),
      fc.constantFrom(ORG, "platform").map((g) => ({
        restriction_type: "group" as const,
        match_pattern: g,
      })),
    ),
    { selector: (r) => `${r.restriction_type}:${r.match_pattern}`, maxLength: 3 },
  );

const triggers = (n: number): fc.Arbitrary<SeedTrigger[]> =>
  fc
    .record({
      vcs: fc.subarray(["all-pushes", "only-tags", "only-open-prs"] as const, { maxLength: 2 }),
      schedules: fc.uniqueArray(
        fc.record({
          name: fc.constantFrom("nightly", "weekly"),
          cron: fc.constantFrom("0 2 * * *", "30 4 * * 1"),
          disabled: fc.boolean(),
          params: fc.option(
            fc.dictionary(
              fc.constantFrom("deploy", "n"),
              fc.oneof(
                fc.boolean(),
                fc.integer({ min: 0, max: 9 }),
                fc.constantFrom("x", `${OPEN}y}`),
              ),
            ),
            { nil: undefined },
          ),
        }),
        { selector: (s) => s.name, maxLength: 2 },
      ),
      hooks: fc.uniqueArray(
        fc.record({
          name: fc.constantFrom("release", "deploy-hook"),
          source: fc.option(fc.constantFrom("bot", "ci"), { nil: undefined }),
        }),
        { selector: (h) => h.name, maxLength: 1 },
      ),
    })
    .map(({ vcs, schedules, hooks }) => [
      ...vcs.map(
        (preset): SeedTrigger => ({ event: { type: "vcs", vcs: repo(n), filter: { preset } } }),
      ),
      ...schedules.map(
        (s): SeedTrigger => ({
          is_disabled: s.disabled,
          config: { ref: "main" },
          checkout: { ref: "main" },
          event: {
            type: "schedule",
            schedule: { name: s.name, cron_expression: s.cron, attribution_actor: "system" },
          },
          ...(s.params !== undefined ? { parameters: s.params } : {}),
        }),
      ),
      ...hooks.map(
        (h): SeedTrigger => ({
          config: { ref: "main" },
          checkout: { ref: "release" },
          event: {
            type: "webhook",
            webhook: { name: h.name, ...(h.source !== undefined ? { source: h.source } : {}) },
          },
        }),
      ),
    ]);

const pipelines = (n: number): fc.Arbitrary<SeedPipeline[]> =>
  fc
    .uniqueArray(
      fc.record({
        name: fc.constantFrom("build", "deploy"),
        description: fc.option(fc.constantFrom("Build and test", `uses ${OPEN}{ matrix }}`), {
          nil: undefined,
        }),
        triggers: triggers(n),
      }),
      { selector: (p) => p.name, maxLength: 2 },
    )
    .map((list) =>
      list.map(
        (p, i): SeedPipeline => ({
          name: p.name,
          ...(p.description !== undefined ? { description: p.description } : {}),
          config: { type: "vcs", file_path: `.service/${p.name}.yml`, vcs: repo(n * 10 + i) },
          checkout: { vcs: repo(n * 10 + i) },
          // vcs triggers fire on the pipeline's own repo.
          triggers: p.triggers.map((t) =>
            t.event.type === "vcs" ? { ...t, event: { ...t.event, vcs: repo(n * 10 + i) } } : t,
          ),
        }),
      ),
    );

const project = (n: number): fc.Arbitrary<SeedProject> =>
  fc
    .record({
      oauth: fc.boolean(),
      settings: fc.record(
        {
          enable_dynamic_config: fc.boolean(),
          is_oss: fc.boolean(),
          pr_only_branch_overrides: fc.subarray(["main", "release/*", "dev"]),
        },
        { requiredKeys: [] },
      ),
      env: envMap,
      webhooks: fc.uniqueArray(
        fc.record({
          name: fc.constantFrom("slack", "audit", "Audit"),
          url: fc.constantFrom(
            "https://hooks.example.com/a",
            `https://x.example.com/p?q=${OPEN}v}`,
          ),
          events: fc.subarray(["workflow-completed", "job-completed"], { minLength: 1 }),
          should_verify_tls: fc.boolean(),
          is_enabled: fc.boolean(),
          signing_secret: fc.option(fc.constant("signing-secret-value-1"), { nil: undefined }),
        }),
        { selector: (w) => w.name, maxLength: 2 },
      ),
      pipelines: pipelines(n),
      // Issue 18: checkout keys, one per type (two of one type would go under `ignore`).
      checkout_keys: fc.subarray(["deploy-key", "user-key"] as const),
    })
    .map((p) => ({
      slug: `${ORG}/p${n}`,
      oauth: p.oauth,
      repo: repo(n),
      settings: p.settings,
      env: p.env,
      webhooks: p.webhooks.map((w) =>
        w.signing_secret === undefined ? (({ signing_secret: _s, ...rest }) => rest)(w) : w,
      ),
      pipelines: p.pipelines,
      checkout_keys: p.checkout_keys.map((type) => ({ type })),
    }));

/** Issue 18: OTLP exporters (at most 5), one per protocol and endpoint. */
const exporters = fc.uniqueArray(
  fc.record({
    endpoint: fc.constantFrom("api.honeycomb.io:443", "otel.example.com:4318"),
    protocol: fc.constantFrom("grpc" as const, "http" as const),
    insecure: fc.boolean(),
    headers: fc.dictionary(fc.constantFrom("x-api-key", "Authorization"), secretValue, {
      maxKeys: 2,
    }),
  }),
  { maxLength: 3, selector: (e) => `${e.protocol}:${e.endpoint}` },
);

const orgSeed: fc.Arbitrary<Seed> = fc
  .record({
    settings: fc.record(
      { enable_private_orbs: fc.boolean(), is_running_disabled: fc.boolean() },
      { requiredKeys: [] },
    ),
    projects: fc.tuple(project(1), project(2)).chain(([a, b]) => fc.constantFrom([a], [a, b])),
    otel_exporters: exporters,
  })
  .chain(({ settings, projects, otel_exporters }) =>
    fc
      .uniqueArray(
        fc.record({
          name: contextName,
          env: envMap,
          restrictions: restrictions(projects.map((p) => p.slug)),
        }),
        { selector: (c) => c.name, maxLength: 3 },
      )
      .map(
        (contexts): Seed => ({
          orgs: [
            {
              slug: ORG,
              settings,
              groups: [{ name: "platform" }],
              contexts: contexts as SeedContext[],
              projects,
              otel_exporters,
            },
          ],
        }),
      ),
  );

// ---------------------------------------------------------------------------------------

/** Values for the placeholders: env vars end with the live value's last four characters. */
const valuesFor = (stderr: string, state: Seed): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const line of stderr.split("\n")) {
    const m = /^ {2}([A-Z_][A-Z0-9_]*) +(\S.*)$/.exec(line);
    if (!m) continue;
    const address = (m[2] ?? "").replace(/ \(.*\)$/, "");
    const seg = parseAddress(address) ?? [];
    const envName = seg[1]?.name === "env" ? seg[1].key : undefined;
    const org = state.orgs?.[0];
    const live =
      envName === undefined
        ? undefined
        : seg[0]?.name === "context"
          ? org?.contexts?.find((c) => c.name === seg[0]?.key)?.env?.[envName]
          : org?.projects?.find((p) => p.slug === seg[0]?.key)?.env?.[envName];
    if (envName !== undefined && live === undefined)
      throw new Error(`no live value for ${address}`);
    // Issue 30: a webhook URL is exported as a variable; its value is the live URL.
    if (seg[1]?.name === "webhook" && / \(url\)$/.test(m[2] ?? "")) {
      const url = org?.projects
        ?.find((p) => p.slug === seg[0]?.key)
        ?.webhooks?.find((w) => w.name === seg[1]?.key)?.url;
      if (url === undefined) throw new Error(`no live url for ${address}`);
      out[m[1] ?? ""] = url;
      continue;
    }
    out[m[1] ?? ""] =
      live === undefined ? "never-returned" : live.length >= 4 ? `rt-${live.slice(-4)}` : live;
  }
  return out;
};

describe("export → plan round trip (property)", () => {
  let emulator: TestEmulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startTestEmulator({ orgs: [] });
    dir = await mkdtemp(join(tmpdir(), "waybill-export-prop-"));
  });
  afterAll(async () => {
    await emulator?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("plan on a fresh export shows no changes, for random org states", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(orgSeed, async (seed) => {
        await emulator.reset(seed);
        const base = { SERVICE_BASE_URL: emulator.url, SERVICE_TOKEN: emulator.token };
        const exported = await runInProcess(["export", "--org", ORG, "--all-projects"], base);
        expect(exported.stderr).not.toContain("Error");
        expect(exported.code).toBe(0);
        // Everything in these states is expressible: nothing is left to `ignore`.
        expect(exported.stderr).not.toContain("Warning");
        n += 1;
        const file = join(dir, `export-${n}.yaml`);
        await writeFile(file, exported.stdout);
        const env = { ...base, ...valuesFor(exported.stderr, await emulator.state()) };
        const plan = await runInProcess(["plan", "-c", file, "--detailed-exitcode"], env);
        expect(plan.stderr + plan.stdout, exported.stdout).toContain("No changes");
        expect(plan.code).toBe(0);
      }),
      { numRuns: propertyRuns(6) },
    );
  }, 60_000);
});
