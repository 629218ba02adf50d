/** Cursor paging as a pure function: every item exactly once, in order, for any size and limit. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EmulatorHttpError } from "../../emulator/src/errors.js";
import type { Ctx } from "../../emulator/src/http.js";
import { paginate, paginateV2 } from "../../emulator/src/paging.js";
import { createState } from "../../emulator/src/store.js";
import { propertyRuns } from "../helpers/property-runs.js";

const ctxFor = (query: string, secret = "s3cret"): Ctx => ({
  state: createState({}),
  api: "v3",
  method: "GET",
  path: "/api/v3/things",
  params: {},
  query: new URLSearchParams(query),
  body: undefined,
  nowIso: () => "2026-01-01T00:00:00.000Z",
  cursorSecret: secret,
});

const walk = (
  items: readonly number[],
  limit: number | undefined,
  extra = "",
): { seen: number[]; pages: number } => {
  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q = new URLSearchParams(extra);
    if (limit !== undefined) q.set("page[limit]", String(limit));
    if (cursor !== null) q.set("page[cursor]", cursor);
    const page = paginate(ctxFor(q.toString()), items, (x) => x);
    seen.push(...(page.data as number[]));
    cursor = page.page.next;
    pages += 1;
  } while (cursor !== null);
  return { seen, pages };
};

describe("paginate", () => {
  it("yields every item once, in order, in ceil(n / limit) pages", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 250 }),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
        (n, limit) => {
          const items = Array.from({ length: n }, (_, i) => i);
          const { seen, pages } = walk(items, limit, "filter[x]=1");
          expect(seen).toEqual(items);
          expect(pages).toBe(Math.max(1, Math.ceil(n / (limit ?? 20))));
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it("a cursor from another server (secret) is refused", () => {
    const first = paginate(ctxFor(""), [1, 2, 3], (x) => x, 100);
    expect(first.page.next).toBeNull();
    const small = paginate(ctxFor("page[limit]=1"), [1, 2, 3], (x) => x);
    const next = small.page.next!;
    expect(() => paginate(ctxFor(`page[cursor]=${next}`, "other"), [1, 2, 3], (x) => x)).toThrow(
      EmulatorHttpError,
    );
    expect(paginate(ctxFor(`page[cursor]=${next}`), [1, 2, 3], (x) => x).data).toEqual([2]);
  });

  it("enforces the collection's maximum", () => {
    expect(() => paginate(ctxFor("page[limit]=51"), [], (x) => x, 50)).toThrow(/from 1 to 50/);
    expect(paginate(ctxFor("page[limit]=50"), [], (x) => x, 50).data).toEqual([]);
  });
});

describe("paginateV2", () => {
  it("uses limit and page-token", () => {
    const a = paginateV2(ctxFor("limit=2"), [1, 2, 3], (x) => x);
    expect(a.items).toEqual([1, 2]);
    const b = paginateV2(ctxFor(`limit=2&page-token=${a.next_page_token}`), [1, 2, 3], (x) => x);
    expect(b).toEqual({ items: [3], next_page_token: null });
  });
});
