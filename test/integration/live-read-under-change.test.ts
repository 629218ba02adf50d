/**
 * Reading while others write (issue 42): a parent listed a moment ago may be gone when its
 * collections are read (another apply deleted a context, its lock claim, or a project). The
 * reader lists that collection once more and plans from what is there; a read that still
 * cannot settle names the item that changed, and apply exits 5 (the lock's code), not 1.
 * Each change is made by the emulator's script (`after`: another client's request right
 * after the listing is answered), so the race is the same on every run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { claimName } from "../../src/lock/claim.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG_ID = "0a420000-0000-4000-8000-0000000000aa";
const API_ID = "0b420000-0000-4000-8000-0000000000aa";
const LEGACY = "0c420000-0000-4000-8000-0000000000a1";
const TEMP = "0c420000-0000-4000-8000-0000000000a2";
const CLAIM = "0c420000-0000-4000-8000-0000000000a3";

const claim = claimName({
  run: "0a0a0a0a0a0a",
  takenAt: Date.UTC(2025, 0, 1),
  expiresAt: Date.UTC(2025, 0, 1) + 60_000,
  pid: 7,
  host: "ci",
  who: "other",
});

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      default_context_restriction: false,
      contexts: [
        { id: LEGACY, name: "legacy", env: { K: "legacy-value-1" } },
        { id: TEMP, name: "temp" },
        { id: CLAIM, name: claim, created_at: "2025-01-01T00:00:00.000Z" },
      ],
      projects: [{ id: API_ID, slug: "api" }],
    },
  ],
});

/** `contexts:` is authoritative: `temp` is planned for deletion while it is there. */
const config = [
  "org: gh/acme",
  "contexts:",
  "  legacy:",
  "    env:",
  "      K: legacy-value-1",
  "projects:",
  "  gh/acme/api:",
  "    webhooks:",
  "      hook0:",
  "        url: https://hooks.example.com/T42",
  "        events: [workflow-completed]",
  "",
].join("\n");

describe("the live reader while another party writes", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let path: string;
  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    path = await tmp.write("waybill.yaml", config);
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  beforeEach(async () => {
    await emulator.reset(seed());
    await emulator.clearRequests();
  });
  const run = (args: readonly string[]) =>
    runInProcess(args, {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: emulator.token,
      NO_COLOR: "1",
    });
  const apply = () => run(["apply", "-c", path, "--auto-approve", "--no-lock"]);
  const contextNames = async () =>
    ((await emulator.state()).orgs?.[0]?.contexts ?? []).map((c) => c.name).sort();

  it("a context deleted between the listing and its reads: listed again, planned from what is there", async () => {
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        after: [{ method: "DELETE", path: `/api/v3/contexts/${TEMP}` }],
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    // Read once, 404, listed again: the plan is made from the second listing (no delete of
    // `temp`, which is gone; the webhook's create).
    const log = await emulator.requests();
    const listings = log.filter((x) => x.method === "GET" && x.path === "/api/v3/contexts");
    expect(listings.filter((x) => x.query["filter[name]"] === undefined)).toHaveLength(2);
    expect(log.some((x) => x.status === 404 && x.path.includes(TEMP))).toBe(true);
    expect(log.filter((x) => x.method === "DELETE")).toEqual([]);
    expect(await contextNames()).toEqual([claim, "legacy"].sort());
    const hooks = (await emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
    expect(hooks.map((w) => w.name)).toEqual(["hook0"]);
  });

  it("a lock claim deleted between the listing and its content read is not there: no error, no re-list", async () => {
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        after: [{ method: "DELETE", path: `/api/v3/contexts/${CLAIM}` }],
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const log = await emulator.requests();
    const listings = log.filter((x) => x.method === "GET" && x.path === "/api/v3/contexts");
    expect(listings).toHaveLength(1);
    // The plan deleted `temp` (authoritative contexts), never the claim it could not see.
    expect(await contextNames()).toEqual(["legacy"]);
  });

  it("a read that cannot settle names the context that changed, and apply exits 5 with no write", async () => {
    // The context is still listed, but its env vars answer 404 on both reads (a service
    // in the middle of deleting it).
    await emulator.script([
      {
        method: "GET",
        path: `/api/v3/contexts/${LEGACY}/env-vars`,
        status: 404,
        times: 2,
        json: { error: { type: "not_found", title: "Not found" } },
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(
      /the contexts of org gh\/acme changed while they were read, twice in a row: context legacy \(0c420000-0000-4000-8000-0000000000a1\)/,
    );
    expect((await emulator.requests()).filter((x) => x.method !== "GET")).toEqual([]);
  });

  it("plan keeps exit 1 for a read that cannot settle (its codes are 0, 1, 2)", async () => {
    await emulator.script([
      {
        method: "GET",
        path: `/api/v3/contexts/${LEGACY}/env-vars`,
        status: 404,
        times: 2,
        json: { error: { type: "not_found", title: "Not found" } },
      },
    ]);
    const r = await run(["plan", "-c", path]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("changed while they were read");
  });

  it("a project's collection answering 404 once: looked up and read again, planned as usual", async () => {
    await emulator.script([
      {
        method: "GET",
        path: "/api/v3/webhooks",
        status: 404,
        times: 1,
        json: { error: { type: "not_found", title: "Not found" } },
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const hooks = (await emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
    expect(hooks.map((w) => w.name)).toEqual(["hook0"]);
  });
});
