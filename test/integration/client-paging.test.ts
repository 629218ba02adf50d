import { afterEach, describe, expect, it } from "vitest";
import { ResponseFormatError } from "../../src/api/errors.js";
import {
  baseSeed,
  type Harness,
  ORG_ID,
  rejectionOf,
  startHarness,
} from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const projects = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ slug: `p${String(i).padStart(3, "0")}` }));
const contexts = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `ctx-${String(i).padStart(2, "0")}` }));

describe("API client pagination (against the emulator)", () => {
  it("reads every page of a collection with the documented maximum page[limit]", async () => {
    h = await startHarness(baseSeed({ projects: projects(120) }));
    const items = await h.client.listV3<{ name: string }>("/projects", {
      "filter[org_id]": ORG_ID,
    });
    expect(items).toHaveLength(120);
    expect(new Set(items.map((p) => p.id)).size).toBe(120);
    expect(new Set(items.map((p) => p.attributes.name)).size).toBe(120);

    const reqs = (await h.requests()).filter((r) => r.path === "/api/v3/projects");
    expect(reqs).toHaveLength(3);
    // spec: api-v3.md Limits: projects max 50; sent on every page (not a cursor-encodes-limit
    // collection), with the cursor from the previous page.
    expect(reqs.map((r) => r.query["page[limit]"])).toEqual(["50", "50", "50"]);
    expect(reqs[0]?.query["page[cursor]"]).toBeUndefined();
    expect(reqs[1]?.query["page[cursor]"]).toBeTruthy();
    expect(reqs[2]?.query["page[cursor]"]).toBeTruthy();
    expect(reqs[1]?.query["page[cursor]"]).not.toBe(reqs[2]?.query["page[cursor]"]);
    expect(reqs.every((r) => r.status === 200)).toBe(true);
  });

  it("hands each page's items to onPage as it arrives, in order", async () => {
    h = await startHarness(baseSeed({ projects: projects(120) }));
    const pages: string[][] = [];
    const items = await h.client.listV3<{ slug: string }>(
      "/projects",
      { "filter[org_id]": ORG_ID },
      { onPage: (page) => pages.push(page.map((p) => String(p.id))) },
    );
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    expect(pages.flat()).toEqual(items.map((p) => p.id));
  });

  it("sends no page[limit] where no maximum is documented, and still reads every page", async () => {
    h = await startHarness(baseSeed({ contexts: contexts(45) }));
    const items = await h.client.listV3<{ name: string }>("/contexts", {
      "filter[org_id]": ORG_ID,
    });
    expect(items.map((c) => c.attributes.name).sort()).toEqual(contexts(45).map((c) => c.name));
    const reqs = (await h.requests()).filter((r) => r.path === "/api/v3/contexts");
    expect(reqs.length).toBeGreaterThan(1);
    expect(reqs.every((r) => r.query["page[limit]"] === undefined)).toBe(true);
  });

  it("never sends page[limit] with a cursor where the cursor encodes the limit", async () => {
    h = await startHarness();
    const path = "/api/v3/provider/branches";
    await h.script([
      {
        method: "GET",
        path,
        json: { data: [{ id: "b1", attributes: {} }], page: { next: "c-1" } },
      },
      { method: "GET", path, json: { data: [{ id: "b2", attributes: {} }], page: { next: null } } },
    ]);
    const items = await h.client.listV3("/provider/branches", {
      "filter[org_id]": ORG_ID,
      "filter[provider]": "github",
      "filter[repo_id]": "1",
    });
    expect(items.map((b) => b.id)).toEqual(["b1", "b2"]);
    const reqs = (await h.requests()).filter((r) => r.path === path);
    expect(reqs[0]?.query).toMatchObject({ "page[limit]": "100" });
    expect(reqs[0]?.query["page[cursor]"]).toBeUndefined();
    expect(reqs[1]?.query["page[cursor]"]).toBe("c-1");
    expect(reqs[1]?.query["page[limit]"]).toBeUndefined();
  });

  it("sends the cursor back unchanged, byte for byte", async () => {
    h = await startHarness();
    const path = "/api/v3/webhooks";
    const cursor = "a+b/c=d&e%f g";
    await h.script([
      {
        method: "GET",
        path,
        json: { data: [{ id: "w1", attributes: {} }], page: { next: cursor } },
      },
      { method: "GET", path, json: { data: [], page: { next: null } } },
    ]);
    await h.client.listV3("/webhooks", { "filter[project_id]": ORG_ID });
    const reqs = (await h.requests()).filter((r) => r.path === path);
    expect(reqs[1]?.query["page[cursor]"]).toBe(cursor);
  });

  it("fails on a repeated cursor instead of looping, and returns nothing partial", async () => {
    h = await startHarness();
    const path = "/api/v3/webhooks";
    const page = { data: [{ id: "w", attributes: {} }], page: { next: "same" } };
    await h.script([
      { method: "GET", path, json: page },
      { method: "GET", path, json: page },
      { method: "GET", path, json: page },
    ]);
    const err = await rejectionOf(h.client.listV3("/webhooks", { "filter[project_id]": ORG_ID }));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect((err as ResponseFormatError).code).toBe("bad_response");
    expect(err.message).toMatch(/repeats/);
    expect((await h.requests()).filter((r) => r.path === path)).toHaveLength(2);
  });

  it("fails beyond the page bound", async () => {
    h = await startHarness();
    const path = "/api/v3/webhooks";
    await h.script(
      [1, 2, 3].map((i) => ({
        method: "GET",
        path,
        json: { data: [], page: { next: `c${i}` } },
      })),
    );
    const client = h.newClient({ maxPages: 2 });
    const err = await rejectionOf(client.listV3("/webhooks", { "filter[project_id]": ORG_ID }));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err.message).toMatch(/more than 2 pages/);
  });

  it("rejects a 200 of the wrong shape and a body that is not JSON", async () => {
    h = await startHarness();
    await h.script([
      { method: "GET", path: "/api/v3/webhooks", json: { items: [] } },
      {
        method: "GET",
        path: "/api/v3/webhooks",
        json: { data: { id: "x" }, page: { next: null } },
      },
      {
        method: "GET",
        path: "/api/v3/orgs/*",
        body: '{"data": {"id": ',
        headers: { "content-type": "application/json" },
      },
    ]);
    const q = { "filter[project_id]": ORG_ID };
    const missing = await rejectionOf(h.client.listV3("/webhooks", q));
    expect(missing).toBeInstanceOf(ResponseFormatError);
    expect(missing.message).toMatch(/no `data` member/);
    const notList = await rejectionOf(h.client.listV3("/webhooks", q));
    expect(notList.message).toMatch(/`data` is not a list/);
    const truncated = await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`));
    expect(truncated).toBeInstanceOf(ResponseFormatError);
    expect(truncated.message).toMatch(/not valid JSON/);
  });

  it("reads V2 lists with next_page_token / page-token", async () => {
    h = await startHarness();
    const path = `/api/v2/organizations/${ORG_ID}/groups`;
    await h.script([
      { method: "GET", path, json: { items: [{ id: "g1", name: "a" }], next_page_token: "t-1" } },
      { method: "GET", path, json: { items: [{ id: "g2", name: "b" }], next_page_token: null } },
    ]);
    const groups = await h.client.listV2<{ id: string }>(`/organizations/${ORG_ID}/groups`);
    expect(groups.map((g) => g.id)).toEqual(["g1", "g2"]);
    const reqs = (await h.requests()).filter((r) => r.path === path);
    expect(reqs[0]?.query["page-token"]).toBeUndefined();
    expect(reqs[1]?.query["page-token"]).toBe("t-1");
    expect(reqs.every((r) => r.api === "v2")).toBe(true);
  });

  it("authenticates V2 with Service-Token against the real V2 route", async () => {
    h = await startHarness(baseSeed({ groups: [{ name: "eng" }, { name: "ops" }] }));
    const groups = await h.client.listV2<{ name: string }>(`/organizations/${ORG_ID}/groups`);
    expect(groups.map((g) => g.name).sort()).toEqual(["eng", "ops"]);
  });
});
