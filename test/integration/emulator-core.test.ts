/**
 * The emulator's cross-cutting rules over real HTTP: auth, ETags, paging, envelopes, 400/404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import {
  CTX_PROD,
  collectAll,
  errorOf,
  list,
  MISSING,
  ORG,
  one,
  pageOf,
  RO_TOKEN,
  startTestEmu,
  type TestEmu,
  TOKEN,
} from "./emulator-harness.js";

const MANY_ORG = "00000000-0000-4000-8000-00000000aaaa";

/** 45 contexts (a few named SPECIAL-* near the end) and 60 projects in one org. */
const manySeed = (): Seed => ({
  tokens: [{ token: TOKEN }],
  orgs: [
    {
      id: MANY_ORG,
      slug: "gh/many",
      contexts: Array.from({ length: 45 }, (_, i) => ({
        name: i >= 40 ? `special-${i}` : `ctx-${String(i).padStart(3, "0")}`,
      })),
      projects: Array.from({ length: 60 }, (_, i) => ({ slug: `p${String(i).padStart(2, "0")}` })),
    },
    ...Array.from({ length: 3 }, (_, i) => ({ slug: `gh/extra-${i}` })),
  ],
});

describe("auth (spec: Authentication)", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu();
  });
  afterAll(() => t.close());

  it("401 with the error envelope when no token is sent", async () => {
    const r = await t.get("/api/v3/orgs", { token: null });
    expect(r.status).toBe(401);
    expect(errorOf(r)).toMatchObject({ type: "unauthorized", title: expect.any(String) });
    expect(errorOf(r).id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("401 for an unknown token, and the token is never echoed", async () => {
    const r = await t.get("/api/v3/orgs", { token: "not-a-real-token-123" });
    expect(r.status).toBe(401);
    expect(r.text).not.toContain("not-a-real-token-123");
  });

  it("401 for a non-Bearer Authorization header", async () => {
    const r = await t.get("/api/v3/orgs", {
      token: null,
      headers: { Authorization: `Basic ${TOKEN}` },
    });
    expect(r.status).toBe(401);
  });

  it("401 when a token appears in the query string, even with a valid header (rule 1)", async () => {
    const byValue = await t.get(`/api/v3/orgs?x=${TOKEN}`);
    expect(byValue.status).toBe(401);
    const byName = await t.get("/api/v3/orgs?circle-token=whatever");
    expect(byName.status).toBe(401);
    expect(byValue.text).not.toContain(TOKEN);
    // The request log redacts it too.
    const log = (await t.admin("GET", "requests")).body as {
      requests: { query: Record<string, string> }[];
    };
    expect(JSON.stringify(log)).not.toContain(TOKEN);
  });

  it("a read-only token reads (200) but gets 403 on any write", async () => {
    expect((await t.get("/api/v3/orgs", { token: RO_TOKEN })).status).toBe(200);
    const w = await t.post(
      `/api/v3/orgs/${ORG}/update-settings`,
      { enable_ai_agents: true },
      { token: RO_TOKEN },
    );
    expect(w.status).toBe(403);
    expect(errorOf(w).type).toBe("forbidden");
    const d = await t.del(`/api/v3/contexts/${CTX_PROD}`, { token: RO_TOKEN });
    expect(d.status).toBe(403);
    // Nothing changed.
    expect((await t.get(`/api/v3/contexts/${CTX_PROD}`)).status).toBe(200);
  });

  it("V2 takes Service-Token (and Basic with the token as user name), errors are {message}", async () => {
    const ok = await t.get(`/api/v2/organizations/${ORG}/groups`);
    expect(ok.status).toBe(200);
    const basic = await t.get(`/api/v2/organizations/${ORG}/groups`, {
      token: null,
      headers: { Authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString("base64")}` },
    });
    expect(basic.status).toBe(200);
    const bearer = await t.get(`/api/v2/organizations/${ORG}/groups`, {
      token: null,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(401);
    expect(bearer.body).toEqual({ message: expect.any(String) });
  });
});

describe("ETags (spec: Limits, Caching)", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu();
  });
  afterAll(() => t.close());

  it("every 200 GET carries a strong ETag and Cache-Control; a match is 304 with no body", async () => {
    const r = await t.get(`/api/v3/contexts/${CTX_PROD}`);
    const etag = r.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(r.headers.get("cache-control")).toBe("private, no-cache");
    const again = await t.get(`/api/v3/contexts/${CTX_PROD}`, {
      headers: { "If-None-Match": etag! },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    const list = await t.get(`/api/v3/contexts?filter[org_id]=${ORG}`);
    expect(list.headers.get("etag")).toMatch(/^"/);
  });

  it("a change gives a new ETag, and the old one no longer matches", async () => {
    const before = await t.get(`/api/v3/orgs/${ORG}/settings`);
    const etag = before.headers.get("etag")!;
    expect(
      (await t.post(`/api/v3/orgs/${ORG}/update-settings`, { enable_ai_agents: true })).status,
    ).toBe(200);
    const after = await t.get(`/api/v3/orgs/${ORG}/settings`, {
      headers: { "If-None-Match": etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
  });

  it("errors carry no ETag", async () => {
    const r = await t.get(`/api/v3/contexts/${MISSING}`);
    expect(r.status).toBe(404);
    expect(r.headers.get("etag")).toBeNull();
  });
});

describe("paging (spec: Envelopes, Errors rule 3, Limits)", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu(manySeed());
  });
  afterAll(() => t.close());

  it("pages with the default size of 20 and ends at page.next null; cursors round-trip", async () => {
    const first = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}`);
    expect(list(first)).toHaveLength(20);
    expect(pageOf(first).prev).toBeNull();
    expect(typeof pageOf(first).next).toBe("string");
    const all = await collectAll(t, `/api/v3/contexts?filter[org_id]=${MANY_ORG}`);
    expect(all.pages).toBe(3);
    expect(new Set(all.items.map((i) => i.id)).size).toBe(45);
  });

  it("page.prev leads back to the previous page", async () => {
    const base = `/api/v3/contexts?filter[org_id]=${MANY_ORG}`;
    const p1 = await t.get(base);
    const p2 = await t.get(`${base}&page[cursor]=${encodeURIComponent(pageOf(p1).next!)}`);
    const back = await t.get(`${base}&page[cursor]=${encodeURIComponent(pageOf(p2).prev!)}`);
    expect(list(back).map((i) => i.id)).toEqual(list(p1).map((i) => i.id));
  });

  it("accepts the documented maximum and rejects one more (projects 50, orgs 50)", async () => {
    const p = await t.get(`/api/v3/projects?filter[org_id]=${MANY_ORG}&page[limit]=50`);
    expect(list(p)).toHaveLength(50);
    const all = await collectAll(t, `/api/v3/projects?filter[org_id]=${MANY_ORG}`, 50);
    expect(all.pages).toBe(2);
    expect(all.items).toHaveLength(60);
    const over = await t.get(`/api/v3/projects?filter[org_id]=${MANY_ORG}&page[limit]=51`);
    expect(over.status).toBe(400);
    expect(errorOf(over).type).toBe("invalid_page_limit");
    expect((await t.get("/api/v3/orgs?page[limit]=50")).status).toBe(200);
    expect((await t.get("/api/v3/orgs?page[limit]=51")).status).toBe(400);
  });

  it("collections without a documented maximum accept 1..100", async () => {
    expect(
      (await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[limit]=100`)).status,
    ).toBe(200);
    expect(
      (await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[limit]=101`)).status,
    ).toBe(400);
    const one = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[limit]=1`);
    expect(list(one)).toHaveLength(1);
  });

  it.each(["0", "-1", "abc", "2.5", ""])("page[limit]=%s is 400, not clamped", async (v) => {
    const r = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[limit]=${v}`);
    expect(r.status).toBe(400);
  });

  it("a forged or edited cursor is 400", async () => {
    const r = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}`);
    const cursor = pageOf(r).next!;
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    const forged = Buffer.from(JSON.stringify({ ...decoded, o: 0 })).toString("base64url");
    const bad = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[cursor]=${forged}`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad).type).toBe("invalid_cursor");
    expect(
      (await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}&page[cursor]=garbage`)).status,
    ).toBe(400);
  });

  it("a cursor used with different filters is 400", async () => {
    const r = await t.get(`/api/v3/contexts?filter[org_id]=${MANY_ORG}`);
    const cursor = encodeURIComponent(pageOf(r).next!);
    const other = await t.get(
      `/api/v3/contexts?filter[org_id]=${MANY_ORG}&filter[name]=ctx&page[cursor]=${cursor}`,
    );
    expect(other.status).toBe(400);
  });

  it("filter[name] is applied before paging (case-insensitive substring)", async () => {
    const r = await t.get(
      `/api/v3/contexts?filter[org_id]=${MANY_ORG}&filter[name]=SPECIAL&page[limit]=2`,
    );
    expect(list(r).map((i) => i.attributes.name)).toEqual(["special-40", "special-41"]);
    const all = await collectAll(
      t,
      `/api/v3/contexts?filter[org_id]=${MANY_ORG}&filter[name]=SPECIAL`,
      2,
    );
    expect(all.items).toHaveLength(5);
    expect(all.pages).toBe(3);
  });
});

describe("bodies, routes and ids", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu();
  });
  afterAll(() => t.close());

  it("malformed JSON is 400 invalid_json", async () => {
    const r = await t.call("POST", "/api/v3/contexts", { raw: "{not json" });
    expect(r.status).toBe(400);
    expect(errorOf(r).type).toBe("invalid_json");
  });

  it("a create without a body is 400", async () => {
    const r = await t.post("/api/v3/contexts");
    expect(r.status).toBe(400);
  });

  it("a create rejects unknown members with a source.pointer", async () => {
    const r = await t.post("/api/v3/contexts", {
      data: { attributes: { name: "x", foo: 1 }, references: { org: { id: ORG } } },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatchObject({
      type: "unknown_member",
      source: { pointer: "/data/attributes/foo" },
    });
  });

  it("a create with a missing required member names it", async () => {
    const r = await t.post("/api/v3/contexts", {
      data: { attributes: {}, references: { org: { id: ORG } } },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).source?.pointer).toBe("/data/attributes/name");
  });

  it("an update rejects unknown members too (flat pointer)", async () => {
    const r = await t.post(`/api/v3/orgs/${ORG}/update-settings`, { enable_nonsense: true });
    expect(r.status).toBe(400);
    expect(errorOf(r).source?.pointer).toBe("/enable_nonsense");
  });

  it("unknown ids and unknown routes are 404 with the envelope", async () => {
    const r = await t.get(`/api/v3/contexts/${MISSING}`);
    expect(r.status).toBe(404);
    expect(errorOf(r).type).toBe("not_found");
    expect((await t.get("/api/v3/nothing-here")).status).toBe(404);
    expect((await t.get("/api/v3/contexts/not-a-uuid")).status).toBe(404);
  });

  it("a malformed uuid filter is 400, an unknown filter is 400", async () => {
    expect((await t.get("/api/v3/contexts?filter[org_id]=nope")).status).toBe(400);
    const r = await t.get(`/api/v3/contexts?filter[org_id]=${ORG}&filter[orgId]=x`);
    expect(r.status).toBe(400);
    expect(errorOf(r).type).toBe("invalid_filter");
  });

  it("single resources use {data:{id,attributes,references}}", async () => {
    const r = one(await t.get(`/api/v3/contexts/${CTX_PROD}`));
    expect(r).toMatchObject({
      id: CTX_PROD,
      attributes: { name: "deploy-prod" },
      references: { org: { id: ORG } },
    });
  });
});
