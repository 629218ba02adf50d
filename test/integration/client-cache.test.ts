import { afterEach, describe, expect, it } from "vitest";
import { baseSeed, type Harness, ORG_ID, startHarness } from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CTX_A = "aaaaaaaa-1111-4222-8333-444444444444";
const CTX_B = "bbbbbbbb-1111-4222-8333-444444444444";

describe("API client cache, deprecation and read-only view (against the emulator)", () => {
  it("sends If-None-Match and serves a 304 from its cache", async () => {
    h = await startHarness();
    type Org = { data: { id: string; attributes: { slug: string; name?: string } } };
    const first = await h.client.get<Org>("v3", `/orgs/${ORG_ID}`);
    // A caller mutating its result must not change what the cache serves next.
    (first.data.attributes as { slug: string }).slug = "mutated";
    const second = await h.client.get<Org>("v3", `/orgs/${ORG_ID}`);
    expect(second.data.id).toBe(ORG_ID);
    expect(second.data.attributes.slug).toBe("gh/acme");
    const reqs = (await h.requests()).filter((r) => r.path === `/api/v3/orgs/${ORG_ID}`);
    expect(reqs.map((r) => r.status)).toEqual([200, 304]);
    expect(h.log.map((e) => e.status)).toEqual([200, 304]);
  });

  it("revalidates after a write: a changed resource comes back fresh (200)", async () => {
    h = await startHarness(baseSeed({ settings: { enable_private_orbs: false } }));
    type Settings = { data: { attributes: Record<string, boolean> } };
    const before = await h.client.get<Settings>("v3", `/orgs/${ORG_ID}/settings`);
    expect(before.data.attributes.enable_private_orbs).toBe(false);
    await h.client.post("v3", `/orgs/${ORG_ID}/update-settings`, { enable_private_orbs: true });
    const after = await h.client.get<Settings>("v3", `/orgs/${ORG_ID}/settings`);
    expect(after.data.attributes.enable_private_orbs).toBe(true);
    const statuses = (await h.requests())
      .filter((r) => r.path === `/api/v3/orgs/${ORG_ID}/settings`)
      .map((r) => r.status);
    expect(statuses).toEqual([200, 200]);
  });

  it("caches per client: a new client does not reuse another's cache", async () => {
    h = await startHarness();
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    await h.newClient().get("v3", `/orgs/${ORG_ID}`);
    const reqs = (await h.requests()).filter((r) => r.path === `/api/v3/orgs/${ORG_ID}`);
    expect(reqs.map((r) => r.status)).toEqual([200, 200]);
  });

  it("warns once per deprecated route, with ids replaced", async () => {
    h = await startHarness(
      baseSeed({
        contexts: [
          { id: CTX_A, name: "a" },
          { id: CTX_B, name: "b" },
        ],
      }),
    );
    const deprecated = {
      deprecation: "true",
      sunset: "Sat, 01 Aug 2026 00:00:00 GMT",
      link: '<https://docs.example.com/migrate>; rel="deprecation"',
    };
    const body = (id: string) => ({ data: { id, attributes: { name: "x" } } });
    await h.script([
      { method: "GET", path: `/api/v3/contexts/${CTX_A}`, headers: deprecated, json: body(CTX_A) },
      { method: "GET", path: `/api/v3/contexts/${CTX_B}`, headers: deprecated, json: body(CTX_B) },
      { method: "GET", path: `/api/v3/contexts/${CTX_A}`, headers: deprecated, json: body(CTX_A) },
      { method: "DELETE", path: `/api/v3/contexts/${CTX_B}`, status: 204, headers: deprecated },
    ]);
    await h.client.get("v3", `/contexts/${CTX_A}`);
    await h.client.get("v3", `/contexts/${CTX_B}`);
    await h.client.get("v3", `/contexts/${CTX_A}`);
    await h.client.delete("v3", `/contexts/${CTX_B}`);
    expect(h.warnings).toEqual([
      "the API route GET /api/v3/contexts/{id} is deprecated: it will be removed on Sat, 01 Aug 2026 00:00:00 GMT; see https://docs.example.com/migrate",
      "the API route DELETE /api/v3/contexts/{id} is deprecated: it will be removed on Sat, 01 Aug 2026 00:00:00 GMT; see https://docs.example.com/migrate",
    ]);
  });

  it("gives a read-only view without write methods, sharing the cache", async () => {
    h = await startHarness();
    const ro = h.client.readOnly();
    expect(Object.keys(ro).sort()).toEqual(["get", "listV2", "listV3"]);
    for (const write of ["post", "put", "delete", "readOnly", "close"]) {
      expect(write in ro, write).toBe(false);
      expect((ro as unknown as Record<string, unknown>)[write]).toBeUndefined();
    }
    expect(Object.isFrozen(ro)).toBe(true);
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    const org = await ro.get<{ data: { id: string } }>("v3", `/orgs/${ORG_ID}`);
    expect(org.data.id).toBe(ORG_ID);
    const reqs = (await h.requests()).filter((r) => r.path === `/api/v3/orgs/${ORG_ID}`);
    expect(reqs.map((r) => r.status)).toEqual([200, 304]);
    expect((await h.requests()).every((r) => r.method === "GET")).toBe(true);
  });
});
