/**
 * The shapes the real service sends (docs/spec-notes.md "Reading the real service"): each is
 * answered, as the vendor's clients record it, in place of the emulator's own answer, and
 * `plan` must read it — or, where reading it would not be safe, refuse it as before. Runs
 * the CLI in-process against the emulator over loopback.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ScriptEntry } from "../../emulator/src/script.js";
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
