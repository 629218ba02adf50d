// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs spell ${env:…} references
/**
 * One rule for every kind: apply reports an operation done only when a write of its own
 * (one of the plan's calls for that step: method, API and route) answered 2xx in the
 * emulator's request log. Walked over the kind registry: every kind must be created or
 * updated, and deleted where it has a delete call, by one of the scenarios below. Besides
 * the hand-made ones (updates, a project's create and delete), the examples, which declare
 * an item of every kind, are applied and then emptied deepest first: a kind added later is
 * covered by its item in the examples, with no scenario of its own.
 */
import { readFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { Seed } from "../../emulator/src/seed.js";
import { loadConfig } from "../../src/config/index.js";
import { KINDS } from "../../src/kinds/registry.js";
import { RISKY_RULES } from "../../src/model/policy.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { emptiedDeepestFirst } from "../helpers/every-kind.js";
import { exampleEnv, exampleSeed } from "../helpers/examples.js";
import { runInProcess } from "../helpers/in-process.js";
import { applyEnv, changeConfig, changeEnv, createConfig } from "./apply-fixture.js";
import { baseSeed } from "./plan-fixture.js";

interface PlanJson {
  changes: {
    org: string;
    address: string;
    resource_type: string;
    calls: { phase: string; method: string; api: "v3" | "v2"; route: string }[];
  }[];
}
interface ResultJson {
  operations: {
    org: string;
    address: string;
    resource_type: string;
    phase: string;
    status: string;
    verb?: string;
  }[];
}
interface Logged {
  method: string;
  path: string;
  status: number;
}

/** The request paths a planned call may be sent to (placeholders are filled at apply). */
const routeRegex = (api: string, route: string): RegExp =>
  new RegExp(
    `^/api/${api}${route
      .split(/(\{[a-z_]+\})/)
      .map((part) =>
        // A filled placeholder may hold a `/` once decoded (a slug, a sha256 fingerprint).
        part.startsWith("{") ? ".+" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"),
      )
      .join("")}$`,
  );

/** Kind and phase of every operation reported done: each with its own 2xx write. */
const covered = new Set<string>();
/** The same, of the steps made from the examples alone. */
const coveredByExamples = new Set<string>();

const checkDoneMeans2xx = (
  plan: PlanJson,
  result: ResultJson,
  log: readonly Logged[],
  also?: Set<string>,
): void => {
  const writes = log.filter((q) => q.method !== "GET");
  for (const op of result.operations) {
    if (op.status !== "done") continue;
    const change = plan.changes.find((c) => c.org === op.org && c.address === op.address);
    expect(change, `${op.address}: not in the plan`).toBeDefined();
    const calls = change?.calls.filter((c) => c.phase === op.phase) ?? [];
    const answered = writes.filter((q) =>
      calls.some(
        (c) =>
          c.method === q.method &&
          routeRegex(c.api, c.route).test(decodeURIComponent(q.path)) &&
          q.status >= 200 &&
          q.status < 300,
      ),
    );
    expect(
      answered.length,
      `${op.address} (${op.phase}) reported "${op.verb}" with no 2xx write of its own`,
    ).toBeGreaterThan(0);
    covered.add(`${op.resource_type}:${op.phase}`);
    also?.add(`${op.resource_type}:${op.phase}`);
  }
};

const STANDALONE = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const OLD_GROUP = "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a";

const accessSeed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      slug: STANDALONE,
      groups: [{ id: OLD_GROUP, name: "old-team" }],
      sso_group_mappings: [{ idp_group_name: "okta-old", group: "old-team" }],
      otel_exporters: [{ endpoint: "old.example.com:4317", protocol: "grpc", headers: {} }],
    },
    { slug: "gh/acme", projects: [{ slug: "gh/acme/keep" }] },
  ],
});

const accessCreate = `org: ${STANDALONE}
groups:
  old-team: {}
  platform: { description: Platform engineers }
sso_group_mappings:
  - idp_group_name: okta-platform
    group: platform
otel_exporters:
  - endpoint: old.example.com:4317
    protocol: grpc
  - endpoint: api.honeycomb.io:443
    protocol: grpc
    headers:
      x-honeycomb-team: \${env:NEW_SECRET}
`;

const accessDelete = `org: ${STANDALONE}
groups:
  platform: { description: Platform engineers }
sso_group_mappings: []
otel_exporters: []
`;

const projectCreate = `org: gh/acme
projects:
  gh/acme/new-service:
    create: true
    settings:
      enable_dynamic_config: true
    checkout_keys: [deploy-key]
`;
const projectKeysGone = `org: gh/acme
projects:
  gh/acme/new-service:
    checkout_keys: []
`;
const projectDelete = `org: gh/acme
projects:
  gh/acme/new-service:
    delete: true
`;

/** The examples that declare an item of every kind between them. */
const EXAMPLES = ["examples/full.yaml", "examples/access.yaml"];
/** Deleting whole collections is what the emptied examples ask: every guard allows it. */
const ALLOW_EVERY_DELETE = [
  "--allow-mass-delete",
  ...RISKY_RULES.flatMap((r) => ["--allow-risky", r]),
];

describe("apply reports done only what a 2xx write did, for every kind", () => {
  const main = useEmulatorSuite(baseSeed, {
    create: { name: "create.yaml", content: createConfig },
    change: { name: "change.yaml", content: changeConfig },
  });
  const access = useEmulatorSuite(accessSeed, {
    accessCreate: { name: "access-create.yaml", content: accessCreate },
    accessDelete: { name: "access-delete.yaml", content: accessDelete },
    projectCreate: { name: "project-create.yaml", content: projectCreate },
    projectKeysGone: { name: "project-keys.yaml", content: projectKeysGone },
    projectDelete: { name: "project-delete.yaml", content: projectDelete },
  });

  const examples = useEmulatorSuite(() => ({}), {});

  const step = async (
    suite: typeof main | typeof access | typeof examples,
    file: string,
    env: Readonly<Record<string, string>>,
    flags: readonly string[] = [],
  ): Promise<void> => {
    const e = { ...env, SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token };
    const planned = await runInProcess(["plan", "-c", file, "--format", "json"], e);
    expect(planned.code, planned.stderr).toBe(0);
    await suite.emulator.clearRequests();
    const r = await runInProcess(
      ["apply", "-c", file, "--auto-approve", "--format", "json", "--no-lock", ...flags],
      e,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const log = (await suite.emulator.requests()) as Logged[];
    checkDoneMeans2xx(
      JSON.parse(planned.stdout) as PlanJson,
      JSON.parse(r.stdout) as ResultJson,
      log,
      suite === examples ? coveredByExamples : undefined,
    );
  };

  it("every done operation of every scenario has its own 2xx write", async () => {
    await step(main, main.files.create, applyEnv);
    await step(main, main.files.change, changeEnv);
    const env = { NEW_SECRET: "a-new-secret-9e2f" };
    await step(access, access.files.accessCreate, env);
    // Issue 45: emptying the SSO mappings is a risky transition: allowed for this run.
    await step(access, access.files.accessDelete, env, [
      "--allow-mass-delete",
      "--allow-risky",
      "sso-mappings-emptied",
    ]);
    await step(access, access.files.projectCreate, env);
    await step(access, access.files.projectKeysGone, env, ["--allow-mass-delete"]);
    await step(access, access.files.projectDelete, env, ["--allow-project-delete"]);

    // Every kind the examples declare (examples/full.yaml and access.yaml hold an item of
    // every kind: kind-contract.test.ts): created from the example, then deleted collection
    // by collection, deepest first (test/helpers/every-kind.ts), so a kind added later is
    // written and deleted here by its own item in the examples, without a scenario of its own.
    const copied = examples.tmp.path("examples");
    await cp(join(REPO_ROOT, "examples", "secrets"), join(copied, "secrets"), { recursive: true });
    for (const example of EXAMPLES) {
      const exampleVars = exampleEnv(example);
      const loaded = await loadConfig(join(REPO_ROOT, example), { env: exampleVars });
      if (!loaded.ok) throw new Error(`${example} loads`);
      await examples.emulator.reset(exampleSeed(loaded.config));
      const doc = parse(readFileSync(join(REPO_ROOT, example), "utf8")) as Record<string, unknown>;
      const docs = [doc, ...emptiedDeepestFirst(doc)];
      expect(docs.length, example).toBeGreaterThan(1);
      for (const [i, d] of docs.entries()) {
        const file = await examples.tmp.write(`examples/${i}-${basename(example)}`, stringify(d));
        await step(examples, file, exampleVars, ALLOW_EVERY_DELETE);
      }
    }

    // Walk the registry: each kind was written (created or updated) and, where it has a
    // delete call, deleted, and each such step was checked above.
    const missing: string[] = [];
    for (const [type, kind] of Object.entries(KINDS)) {
      if (!covered.has(`${type}:create`) && !covered.has(`${type}:update`)) {
        missing.push(`${type}: create or update`);
      }
      if (kind.deleteCalls().length > 0 && !covered.has(`${type}:delete`)) {
        missing.push(`${type}: delete`);
      }
    }
    expect(missing, "kinds no scenario writes").toEqual([]);

    // The examples alone create and delete every kind the generic walk builds (all but the
    // project, whose create and delete are flags of its own, above): a new kind needs only
    // its item in examples/full.yaml (or access.yaml), which kind-contract.test.ts asks for.
    const notByExamples = Object.values(KINDS)
      .filter((k) => !k.config.builtByLoader)
      .flatMap((k) => [
        ...(coveredByExamples.has(`${k.type}:create`) || coveredByExamples.has(`${k.type}:update`)
          ? []
          : [`${k.type}: create or update`]),
        ...(k.deleteCalls().length === 0 || coveredByExamples.has(`${k.type}:delete`)
          ? []
          : [`${k.type}: delete`]),
      ]);
    expect(notByExamples, "kinds the examples do not create and delete").toEqual([]);
  });
});
