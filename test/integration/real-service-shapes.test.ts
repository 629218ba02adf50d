/**
 * The shapes the real service sends (docs/spec-notes.md "Reading the real service"): each is
 * answered, as the vendor's clients record it, in place of the emulator's own answer, and
 * `plan` must read it — or, where reading it would not be safe, refuse it as before. Runs
 * the CLI in-process against the emulator over loopback.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ScriptEntry } from "../../emulator/src/script.js";
import type { Seed } from "../../emulator/src/seed.js";
import { expectNoSecrets, makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";
import {
  ALL_SECRETS,
  API_ID,
  baseSeed,
  CTX_PROD_ID,
  matchingConfig,
  matchingEnv,
  ORG_ID,
} from "./plan-fixture.js";

describe("reading the real service's shapes", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let file: string;
  beforeAll(async () => {
    emulator = await startTestEmulator(baseSeed());
    tmp = await makeTempDir();
    file = await tmp.write("waybill.yaml", matchingConfig);
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  beforeEach(async () => {
    await emulator.reset(baseSeed());
    await emulator.clearRequests();
  });

  const plan = async () => {
    const r = await runInProcess(["plan", "-c", file], {
      ...matchingEnv,
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      NO_COLOR: "1",
    });
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [emulator.token, ...ALL_SECRETS]);
    return r;
  };
  /** The emulator's own answer to a GET, for a script to answer reshaped. */
  const answer = async (path: string): Promise<Record<string, unknown>> =>
    (await emulator.call<Record<string, unknown>>("GET", path)).body;
  const without = (body: Record<string, unknown>, member: string): Record<string, unknown> => {
    const { [member]: _dropped, ...rest } = body;
    return rest;
  };
  const planWith = async (entries: readonly ScriptEntry[]) => {
    await emulator.script(entries);
    return plan();
  };
  const noChanges = (r: { code: number; stdout: string; stderr: string }) => {
    expect(r.stderr).not.toMatch(/error|unusable/i);
    expect(r.stdout).toMatch(/No changes/);
    expect(r.code).toBe(0);
  };

  it("the org look-up answers an item { id } without attributes and without page", async () => {
    noChanges(
      await planWith([{ method: "GET", path: "/api/v3/orgs", json: { data: [{ id: ORG_ID }] } }]),
    );
  });

  it("a context's env vars and restrictions, and an empty list, come without page", async () => {
    const env = await answer(`/api/v3/contexts/${CTX_PROD_ID}/env-vars`);
    const restrictions = await answer(
      `/api/v3/context-restrictions?filter[context_id]=${CTX_PROD_ID}`,
    );
    await emulator.clearRequests();
    noChanges(
      await planWith([
        {
          method: "GET",
          path: `/api/v3/contexts/${CTX_PROD_ID}/env-vars`,
          json: without(env, "page"),
        },
        {
          method: "GET",
          path: "/api/v3/context-restrictions",
          json: without(restrictions, "page"),
        },
      ]),
    );
    const log = await emulator.requests();
    expect(log.filter((q) => q.fault === undefined && q.path.endsWith("/env-vars")).length).toBe(1);
  });

  it("meta.total_count instead of page ends a list it counts, and refuses one it does not", async () => {
    const hooks = await answer(`/api/v3/webhooks?filter[project_id]=${API_ID}`);
    const data = hooks.data as unknown[];
    noChanges(
      await planWith([
        {
          method: "GET",
          path: "/api/v3/webhooks",
          json: { data, meta: { total_count: data.length } },
        },
      ]),
    );
    const partial = await planWith([
      {
        method: "GET",
        path: "/api/v3/webhooks",
        json: { data, meta: { total_count: data.length + 1 } },
      },
    ]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/GET \/api\/v3\/webhooks.*meta\.total_count.* is 3 but 2 items/);
    expect(partial.stdout).not.toMatch(/will be created/);
  });

  it('an empty cursor ends a list: page.next "" (V3) and next_page_token "" (V2)', async () => {
    const hooks = await answer(`/api/v3/webhooks?filter[project_id]=${API_ID}`);
    const envV2 = await answer("/api/v2/project/gh/acme/api/envvar");
    noChanges(
      await planWith([
        {
          method: "GET",
          path: "/api/v3/webhooks",
          json: { ...hooks, page: { next: "", prev: "" } },
        },
        {
          method: "GET",
          path: "/api/v2/project/*/envvar",
          json: { ...envV2, next_page_token: "" },
        },
      ]),
    );
    const log = await emulator.requests();
    // The empty cursor is never sent back.
    expect(log.some((q) => q.query["page[cursor]"] === "" || q.query["page-token"] === "")).toBe(
      false,
    );
  });

  it("a full page of a paged route without page stays refused (issue 15)", async () => {
    const hooks = await answer(`/api/v3/webhooks?filter[project_id]=${API_ID}`);
    const r = await planWith([
      { method: "GET", path: "/api/v3/webhooks", json: without(hooks, "page") },
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/GET \/api\/v3\/webhooks.*no `page` member/);
  });

  // The bodies below are the vendor's clients' recorded ones, member for member
  // (docs/spec-notes.md "Reading the real service" cites each file); only the ids are ours.
  it("the project look-up by slug answers { id, references } with no attributes and no page", async () => {
    // CircleCI-Public/circleci-jetbrains-plugin CircleCIApiServiceTest.kt
    // testProjectNamedAfterItsSlugWhereUnnamed.
    noChanges(
      await planWith([
        {
          method: "GET",
          path: "/api/v3/projects",
          json: { data: [{ id: API_ID, references: { org: { id: ORG_ID } } }] },
        },
      ]),
    );
  });

  it("export --all-projects over a project listed without attributes says so, never crashes", async () => {
    // testProjectNamedAfterItsSlugWhereUnnamed's item, in an org-wide listing of a VCS org:
    // no name, so no slug can be built (spec: api-v2-v1.md "Conventions of V2").
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/projects",
        json: { data: [{ id: API_ID, references: { org: { id: ORG_ID } } }] },
      },
    ]);
    const r = await runInProcess(["export", "--org", "gh/acme", "--all-projects"], {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      NO_COLOR: "1",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/TypeError|internal error|undefined/i);
    // Not exported, and said so: listed under ignore with why; none of its V2 routes is read.
    expect(r.stdout).toMatch(new RegExp(`^ {2}- project\\["${API_ID}"\\]`, "m"));
    expect(r.stdout).toContain("without a slug or a name");
    const v2 = (await emulator.requests()).filter((q) => q.path.startsWith("/api/v2/project/"));
    expect(v2).toEqual([]);
  });

  it("a context's env vars as the plugin records them: no id, no references, no page", async () => {
    // CircleCIApiServiceTest.kt testContextEnvVarsWithTheirDates: each item is attributes only.
    const env = await answer(`/api/v3/contexts/${CTX_PROD_ID}/env-vars`);
    const data = (env.data as { attributes: Record<string, unknown> }[]).map((e) => ({
      attributes: e.attributes,
    }));
    noChanges(
      await planWith([
        { method: "GET", path: `/api/v3/contexts/${CTX_PROD_ID}/env-vars`, json: { data } },
      ]),
    );
  });

  it("the pipelines and triggers lists answer meta.total_count without page (the sparse default)", async () => {
    // CircleCI-Public/circleci-cli internal/testing/fakes/circleci.go renderV3Collection.
    const pipelines = await answer(`/api/v3/pipelines?filter[project_id]=${API_ID}`);
    expect(pipelines.page).toBeUndefined();
    expect(pipelines.meta).toEqual({ total_count: (pipelines.data as unknown[]).length });
    const triggers = await answer(`/api/v3/triggers?filter[project_id]=${API_ID}`);
    expect(triggers.page).toBeUndefined();
    expect(triggers.meta).toEqual({ total_count: (triggers.data as unknown[]).length });
    noChanges(await plan());
  });

  it("a 403 on one collection of a found project names the collection", async () => {
    const r = await planWith([
      {
        method: "GET",
        path: "/api/v3/webhooks",
        status: 403,
        json: { message: "Permission denied" },
      },
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /project\["gh\/acme\/api"\]: the project was found, but its webhook collection could not be read .*403: Permission denied/,
    );
    expect(r.stderr).not.toMatch(/absent or not visible/);
  });
});

/**
 * design.md §5 "Reading the real service", end to end on the sparse emulator: `export
 * --all-projects` → `plan` (no change) → `drift` for a VCS org (projects keyed by slug) and
 * a standalone org of the service's own provider (projects keyed by name), with a context
 * restriction of a type Waybill does not know; the unknown restriction is listed and
 * survives an apply.
 */
describe("export → plan → drift → apply on the sparse shapes", () => {
  const VCS_ORG = "0a400000-0000-4000-8000-000000000001";
  const OWN_ORG = "0a400000-0000-4000-8000-000000000002";
  const OWN = `circleci/${OWN_ORG}`;
  const CORE_ID = "0b400000-0000-4000-8000-000000000002";
  const CTX = "0c400000-0000-4000-8000-000000000001";
  const seed = (): Seed => ({
    orgs: [
      {
        id: VCS_ORG,
        slug: "gh/acme",
        name: "acme",
        // A setting the real service returns and the config schema lacks (issue 40).
        settings: { is_bitbucket_workspace_member_org_member: true },
        contexts: [
          {
            id: CTX,
            name: "deploy",
            restrictions: [
              { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
              { restriction_type: "someday", match_pattern: "a-future-kind-of-rule" },
            ],
          },
        ],
        projects: [
          {
            id: "0b400000-0000-4000-8000-000000000001",
            slug: "api",
            webhooks: [
              {
                id: "0d400000-0000-4000-8000-000000000001",
                name: "slack",
                url: "https://hooks.example.com/a",
                events: ["workflow-completed"],
              },
            ],
          },
        ],
      },
      {
        id: OWN_ORG,
        slug: OWN,
        projects: [
          { id: CORE_ID, slug: "core", name: "core", checkout_keys: [{ type: "deploy-key" }] },
        ],
      },
    ],
  });
  let emulator: TestEmulator;
  let tmp: TempDir;
  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  const run = async (args: readonly string[]) => {
    const r = await runInProcess(args, {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      WEBHOOK_API_SLACK_URL: "https://hooks.example.com/a",
      NO_COLOR: "1",
    });
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [emulator.token]);
    return r;
  };
  const unknownAddress = 'context["deploy"].restriction["someday:a-future-kind-of-rule"]';
  const unknownSetting = "org_settings.is_bitbucket_workspace_member_org_member";

  it("a VCS org: exported by slug, the unknown restriction a comment; plan clean, drift lists it", async () => {
    const exported = await run(["export", "--org", "gh/acme", "--all-projects"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^ {2}gh\/acme\/api:$/m);
    expect(exported.stdout).toContain(`#   ${unknownAddress}: a restriction of type "someday"`);
    // With its live id, which a delete_unknown entry names beside the address.
    expect(exported.stdout).toMatch(/someday.*\(id [0-9a-f-]{36}\)$/m);
    expect(exported.stdout).toContain(`#   ${unknownSetting}: a setting the service returns`);
    expect(exported.stdout).not.toMatch(/^\s*is_bitbucket_workspace_member_org_member:/m);
    expect(exported.stdout).not.toMatch(/^\s*- someday:/m);
    expect(exported.stdout).not.toMatch(/^ignore:/m);
    const file = await tmp.write("acme.yaml", exported.stdout);
    const plan = await run(["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`Unknown (left alone): ${unknownAddress}`);
    const json = await run(["plan", "-c", file, "--format", "json"]);
    expect(JSON.parse(json.stdout).unknown).toEqual([
      {
        address: unknownAddress,
        resource_type: "context_restriction",
        reason: expect.stringMatching(/never updated or deleted/),
        id: expect.any(String),
      },
      {
        address: unknownSetting,
        resource_type: "org_settings",
        reason: expect.stringMatching(/schema lacks: read, never written/),
      },
    ]);
    const drift = await run(["drift", "-c", file]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(drift.stdout).toContain(`${unknownAddress} (unknown to Waybill, never changed`);
    expect(drift.stdout).toContain(`${unknownSetting} (unknown to Waybill, never changed`);

    // A restriction added by hand is deleted by apply; the unknown one is never touched.
    await emulator.call("POST", "/api/v3/context-restrictions", {
      data: {
        attributes: { restriction_type: "expression", match_pattern: "true" },
        references: { context: { id: CTX } },
      },
    });
    await emulator.clearRequests();
    const apply = await run(["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const deletes = (await emulator.requests()).filter(
      (q) => q.method === "DELETE" && q.path.startsWith("/api/v3/context-restrictions/"),
    );
    expect(deletes).toHaveLength(1);
    const left = (await emulator.state()).orgs?.[0]?.contexts?.[0]?.restrictions ?? [];
    expect(left.map((r) => r.restriction_type).sort()).toEqual(["expression", "someday"]);
  });

  it("an org of the service's own provider: projects keyed by name, V2 routes by the org's ids", async () => {
    const exported = await run(["export", "--org", OWN, "--all-projects"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^ {2}core:$/m);
    expect(exported.stdout).toMatch(/checkout_keys:\n\s+- deploy-key/);
    const file = await tmp.write("own.yaml", exported.stdout);
    await emulator.clearRequests();
    const plan = await run(["plan", "-c", file, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const drift = await run(["drift", "-c", file]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    const v2 = (await emulator.requests()).filter((q) => q.path.startsWith("/api/v2/project/"));
    expect(v2.length).toBeGreaterThan(0);
    for (const q of v2) {
      expect(decodeURIComponent(q.path)).toContain(
        `/api/v2/project/circleci/${OWN_ORG}/${CORE_ID}/`,
      );
      expect(q.status).toBe(200);
    }
  });
});
