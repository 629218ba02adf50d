import { describe, expect, it } from "vitest";
import { createEtagCache } from "../../src/api/etag-cache.js";
import {
  isPagedRoute,
  newItems,
  pageLimitFor,
  readV2Page,
  readV3Page,
  sendLimitWithCursor,
} from "../../src/api/pagination.js";
import { apiPath, queryString, routeTemplate } from "../../src/api/request-target.js";

describe("page rules", () => {
  it("use the documented maxima, and none elsewhere", () => {
    expect(pageLimitFor("/projects")).toBe(50);
    expect(pageLimitFor("/provider/branches")).toBe(100);
    expect(pageLimitFor("/contexts")).toBeUndefined();
    expect(pageLimitFor("/constructor")).toBeUndefined();
    expect(sendLimitWithCursor("/provider/branches")).toBe(false);
    expect(sendLimitWithCursor("/projects")).toBe(true);
  });

  it("check a V3 page", () => {
    expect(
      readV3Page({ data: [{ id: "a", attributes: {} }], page: { next: "c1", prev: null } }),
    ).toEqual({
      ok: true,
      items: [{ id: "a", attributes: {} }],
      next: "c1",
    });
    // The org look-up item `{ id }`: read with empty attributes (docs/spec-notes.md).
    expect(readV3Page({ data: [{ id: "a" }], page: { next: null } })).toEqual({
      ok: true,
      items: [{ id: "a", attributes: {} }],
      next: null,
    });
    expect(readV3Page({ data: [{ id: "a", attributes: "x" }], page: {} })).toMatchObject({
      ok: false,
    });
    expect(readV3Page({ data: [], page: { next: null } })).toMatchObject({ ok: true, next: null });
    // An empty list without `page` cannot be longer: the end.
    expect(readV3Page({ data: [] })).toMatchObject({ ok: true, next: null });
    // Issue 15: a page with items and without `page` may be one of several: an error.
    const one = { data: [{ id: "a", attributes: {} }] };
    expect(readV3Page(one)).toMatchObject({ ok: false, reason: /no `page` member/ });
    expect(readV3Page({ ...one, page: null })).toMatchObject({ ok: false });
    expect(readV3Page({ data: [], page: [] })).toMatchObject({ ok: false });
    // ... unless the request sent page[limit] and fewer came back,
    expect(readV3Page(one, { paged: true, before: 0, limit: 50 })).toMatchObject({ ok: true });
    expect(readV3Page(one, { paged: true, before: 0, limit: 1 })).toMatchObject({ ok: false });
    // ... or the route is not paged,
    expect(readV3Page(one, { paged: false, before: 0 })).toMatchObject({ ok: true, next: null });
    // ... or `meta.total_count` says every item was read (and refused when it says more).
    expect(readV3Page({ ...one, meta: { total_count: 3 } }, { paged: true, before: 2 })).toEqual({
      ok: true,
      items: one.data,
      next: null,
    });
    expect(readV3Page({ ...one, meta: { total_count: 3 } })).toMatchObject({
      ok: false,
      reason: /total_count.*3.*1 items/,
    });
    expect(isPagedRoute("/context-restrictions")).toBe(false);
    expect(isPagedRoute("/contexts/0f6b3c1e-1111-2222-3333-444455556666/env-vars")).toBe(false);
    expect(isPagedRoute("/webhooks")).toBe(true);
    // spec: api-v3.md Webhooks: "follow `page.next` until absent".
    expect(readV3Page({ data: [], page: {} })).toMatchObject({ ok: true, next: null });
    expect(readV3Page({ page: { next: null } })).toMatchObject({ ok: false });
    expect(readV3Page({ data: { id: "a" }, page: {} })).toMatchObject({ ok: false });
    expect(readV3Page({ data: [1], page: {} })).toMatchObject({ ok: false });
    expect(readV3Page({ data: [], page: { next: 5 } })).toMatchObject({ ok: false });
    // An empty cursor is the last page (the vendor's plugin reads it so), never sent back.
    expect(readV3Page({ data: [], page: { next: "" } })).toMatchObject({ ok: true, next: null });
    expect(readV3Page([])).toMatchObject({ ok: false });
  });

  it("merge the pages of one listing by id (issue 15: an insertion repeats an item)", () => {
    const seen = new Set<string>();
    const a = { id: "a", attributes: {} };
    const b = { id: "b", attributes: {} };
    expect(newItems(seen, [a, b])).toEqual([a, b]);
    expect(
      newItems(seen, [
        { id: "b", attributes: { moved: true } },
        { id: "c", attributes: {} },
      ]),
    ).toEqual([{ id: "c", attributes: {} }]);
    // No id (env vars): only an exact repeat is merged.
    const v = { attributes: { name: "X", truncated_value: "1234" } };
    expect(newItems(seen, [v, { ...v }, { attributes: { name: "Y" } }])).toEqual([
      v,
      { attributes: { name: "Y" } },
    ]);
  });

  it("check a V2 page", () => {
    expect(readV2Page({ items: [1, 2], next_page_token: "t" })).toEqual({
      ok: true,
      items: [1, 2],
      next: "t",
    });
    expect(readV2Page({ items: [], next_page_token: null })).toMatchObject({ next: null });
    expect(readV2Page({ items: [1], next_page_token: "" })).toMatchObject({ ok: true, next: null });
    expect(readV2Page({ data: [] })).toMatchObject({ ok: false });
  });
});

describe("request targets", () => {
  it("encode values, keep filter[...] names readable, drop undefined", () => {
    expect(
      queryString({ "filter[org_id]": "a b", "page[cursor]": "x/y+z=", skip: undefined, n: 5 }),
    ).toBe("?filter[org_id]=a%20b&page[cursor]=x%2Fy%2Bz%3D&n=5");
    expect(queryString({})).toBe("");
    expect(apiPath("v2", "/context", { "page-token": "t" })).toBe("/api/v2/context?page-token=t");
  });

  it("refuse a path with its own query string", () => {
    expect(() => apiPath("v3", "/contexts?x=1", undefined)).toThrow(/invalid API path/);
    expect(() => apiPath("v3", "contexts", undefined)).toThrow(/invalid API path/);
  });

  it("template routes with ids and names replaced", () => {
    expect(routeTemplate("/api/v3/contexts/0f6b3c1e-1111-2222-3333-444455556666/env-vars")).toBe(
      "/api/v3/contexts/{id}/env-vars",
    );
    expect(
      routeTemplate(
        "/api/v3/projects/0f6b3c1e-1111-2222-3333-444455556666/environment-variables/NPM_TOKEN",
      ),
    ).toBe("/api/v3/projects/{id}/environment-variables/{id}");
    expect(routeTemplate("/api/v2/project/gh%2Facme%2Fapi/envvar")).toBe(
      "/api/v2/project/{id}/envvar",
    );
  });
});

describe("ETag cache", () => {
  it("evicts the least recently used entry beyond its bound", () => {
    const cache = createEtagCache(2);
    cache.set("a", { etag: "1", body: "{}" });
    cache.set("b", { etag: "2", body: "{}" });
    cache.get("a");
    cache.set("c", { etag: "3", body: "{}" });
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.etag).toBe("1");
    expect(cache.size).toBe(2);
  });
});
