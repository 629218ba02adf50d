/**
 * Issue 15, "Pages that move under the reader": a listing of several pages is consistent or
 * the command fails. Someone else deletes or inserts an item between two page reads (the
 * emulator's script `after`, docs/emulator.md "Script"); a page without its `page` member
 * is an error, never the whole list. Runs the CLI in-process against the emulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { expectNoSecrets, makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG_ID = "0a150000-0000-4000-8000-000000000001";
const API_ID = "0b150000-0000-4000-8000-000000000001";
const hookId = (n: number): string => `0d150000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const ctxId = (n: number): string => `0c150000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const name = (n: number): string => `w${String(n).padStart(2, "0")}`;
const URL_ = "https://hooks.example.com/services/T0";
/** More than the emulator's default page (20): the listing takes two pages. */
const COUNT = 22;

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      contexts: Array.from({ length: COUNT }, (_, i) => ({
        id: ctxId(i + 1),
        name: `c${name(i + 1)}`,
      })),
      projects: [
        {
          id: API_ID,
          slug: "api",
          webhooks: Array.from({ length: COUNT }, (_, i) => ({
            id: hookId(i + 1),
            name: name(i + 1),
            scope: "project",
            url: URL_,
            events: ["workflow-completed"],
          })),
        },
      ],
    },
  ],
});

/** A config owning the webhooks `from..COUNT` (and, with `contexts`, every seeded context). */
const config = (from: number, contexts: readonly string[] = []): string =>
  [
    "org: gh/acme",
    ...(contexts.length > 0 ? ["contexts:", ...contexts.map((c) => `  ${c}: {}`)] : []),
    "projects:",
    "  gh/acme/api:",
    "    webhooks:",
    ...Array.from({ length: COUNT - from + 1 }, (_, i) => [
      `      ${name(from + i)}:`,
      `        url: ${URL_}`,
      "        events: [workflow-completed]",
    ]).flat(),
    "",
  ].join("\n");

describe("paged reads that move under the reader (issue 15)", () => {
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
  beforeEach(async () => {
    await emulator.reset(seed());
    await emulator.clearRequests();
  });

  const run = async (args: readonly string[]) => {
    const r = await runInProcess(args, {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      NO_COLOR: "1",
    });
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [emulator.token]);
    return r;
  };
  const webhookPages = async () =>
    (await emulator.requests()).filter((r) => r.method === "GET" && r.path === "/api/v3/webhooks");

  it("an item deleted between two page reads does not make a later item look missing", async () => {
    // w01 is deleted by someone after page 1 is read: w21 moves onto page 1, and a reader
    // that trusted its two pages would plan `create w21` (a duplicate) and `delete w01`.
    const file = await tmp.write("deleted.yaml", config(2));
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/webhooks",
        after: [{ method: "DELETE", path: `/api/v3/webhooks/${hookId(1)}` }],
      },
    ]);
    const r = await run(["plan", "-c", file, "--detailed-exitcode"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("No changes");
    // Read once with the deletion in between, then twice more until two reads agree.
    expect((await webhookPages()).length).toBe(6);
  });

  it("an item inserted between two page reads is neither counted twice nor missed", async () => {
    // `c00` is created (listed first) after page 1 of the contexts is read: cw20 moves onto
    // page 2 and would be listed twice, while c00 itself is on no page read.
    const all = Array.from({ length: COUNT }, (_, i) => `c${name(i + 1)}`);
    const file = await tmp.write("inserted.yaml", config(1, all));
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        after: [
          {
            method: "POST",
            path: "/api/v3/contexts",
            json: { data: { attributes: { name: "c00" }, references: { org: { id: ORG_ID } } } },
            to_front: true,
          },
        ],
      },
    ]);
    const r = await run(["plan", "-c", file, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { address: string; action: string }[] };
    // The config owns the contexts: the new one is deleted, nothing else changes.
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual(['delete context["c00"]']);
  });

  it("a listing that changes on every read fails instead of planning from it", async () => {
    const file = await tmp.write("churn.yaml", config(1));
    // Every page read (two per read, four reads) is followed by someone replacing a webhook
    // with a new one listed first: no two reads of the listing agree.
    await emulator.script(
      Array.from({ length: 8 }, (_, i) => ({
        method: "GET",
        path: "/api/v3/webhooks",
        after: [
          { method: "DELETE", path: `/api/v3/webhooks/${hookId(i + 1)}` },
          {
            method: "POST",
            path: "/api/v3/webhooks",
            json: {
              data: {
                attributes: {
                  name: `new${i}`,
                  scope: "project",
                  url: URL_,
                  events: ["job-completed"],
                },
                references: { project: { id: API_ID } },
              },
            },
            to_front: true,
          },
        ],
      })),
    );
    const r = await run(["plan", "-c", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /GET \/api\/v3\/webhooks\?filter\[project_id\]=.*changed while its pages were read, 4 times in a row/,
    );
  });

  it("a page without its `page` member is an error, not the whole list", async () => {
    const file = await tmp.write("nopage.yaml", config(1));
    const page = await emulator.call<{ data: unknown[] }>(
      "GET",
      `/api/v3/webhooks?filter[project_id]=${API_ID}`,
    );
    await emulator.script([
      { method: "GET", path: "/api/v3/webhooks", json: { data: page.body.data } },
    ]);
    const r = await run(["plan", "-c", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/GET \/api\/v3\/webhooks.*no `page` member/);
    expect(r.stdout).not.toMatch(/will be created/);
  });
});
