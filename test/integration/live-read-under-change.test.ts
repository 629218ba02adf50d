/**
 * Reading while others write (issue 42): a parent listed a moment ago may be gone when its
 * collections are read (another apply deleted a context, its lock claim, or a project). The
 * reader lists that collection once more and plans from what is there; a read that still
 * cannot settle names the item that changed, and apply exits 5 (the lock's code), not 1.
 * Each change is made by the emulator's script (`after`: another client's request right
 * after the listing is answered), so the race is the same on every run.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { claimName } from "../../src/lock/claim.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";

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
  const suite = useEmulatorSuite(seed, { config: { name: "waybill.yaml", content: config } });
  const apply = () => suite.run(["apply", "-c", suite.files.config, "--auto-approve", "--no-lock"]);
  /**
   * Apply while another party deletes context `id` right after the first contexts listing;
   * it exits 0. The request log, and its contexts listings.
   */
  const applyWhileDeleting = async (id: string) => {
    await suite.emulator.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        after: [{ method: "DELETE", path: `/api/v3/contexts/${id}` }],
      },
    ]);
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const log = await suite.emulator.requests();
    const listings = log.filter((x) => x.method === "GET" && x.path === "/api/v3/contexts");
    return { log, listings };
  };
  /**
   * The context `legacy` is still listed, but its env vars answer 404 on both reads (a
   * service in the middle of deleting it).
   */
  const legacyEnvVarsGone = () =>
    suite.emulator.script([
      {
        method: "GET",
        path: `/api/v3/contexts/${LEGACY}/env-vars`,
        status: 404,
        times: 2,
        json: { error: { type: "not_found", title: "Not found" } },
      },
    ]);
  const contextNames = async () =>
    ((await suite.emulator.state()).orgs?.[0]?.contexts ?? []).map((c) => c.name).sort();

  it("a context deleted between the listing and its reads: listed again, planned from what is there", async () => {
    const { log, listings } = await applyWhileDeleting(TEMP);
    // Read once, 404, listed again: the plan is made from the second listing (no delete of
    // `temp`, which is gone; the webhook's create).
    expect(listings.filter((x) => x.query["filter[name]"] === undefined)).toHaveLength(2);
    expect(log.some((x) => x.status === 404 && x.path.includes(TEMP))).toBe(true);
    expect(log.filter((x) => x.method === "DELETE")).toEqual([]);
    expect(await contextNames()).toEqual([claim, "legacy"].sort());
    const hooks = (await suite.emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
    expect(hooks.map((w) => w.name)).toEqual(["hook0"]);
  });

  it("a lock claim deleted between the listing and its content read is not there: no error, no re-list", async () => {
    const { listings } = await applyWhileDeleting(CLAIM);
    expect(listings).toHaveLength(1);
    // The plan deleted `temp` (authoritative contexts), never the claim it could not see.
    expect(await contextNames()).toEqual(["legacy"]);
  });

  it("a read that cannot settle names the context that changed, and apply exits 5 with no write", async () => {
    await legacyEnvVarsGone();
    const r = await apply();
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(
      /the contexts of org gh\/acme changed while they were read, twice in a row: context legacy \(0c420000-0000-4000-8000-0000000000a1\)/,
    );
    expect((await suite.emulator.requests()).filter((x) => x.method !== "GET")).toEqual([]);
  });

  it("plan keeps exit 1 for a read that cannot settle (its codes are 0, 1, 2)", async () => {
    await legacyEnvVarsGone();
    const r = await suite.run(["plan", "-c", suite.files.config]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("changed while they were read");
  });

  it("a project's collection answering 404 once: looked up and read again, planned as usual", async () => {
    await suite.emulator.script([
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
    const hooks = (await suite.emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
    expect(hooks.map((w) => w.name)).toEqual(["hook0"]);
  });
});
