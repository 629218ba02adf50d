/**
 * Issue 7 (found by the chaos test): a consistent listing (src/live/paged-list.ts) hands each
 * item to onPage once, even when a later page (or a later read of the listing) repeats it,
 * so per-item reads are not started once per page.
 */
import { describe, expect, it } from "vitest";
import type { ReadOnlyApi } from "../../src/api/types.js";
import { consistentLists } from "../../src/live/paged-list.js";
import { fakeListV3 } from "../helpers/fake-list.js";

const item = (id: string) => ({ id, attributes: { name: id }, references: {} });

describe("consistentLists", () => {
  it("hands an item repeated on a later page to onPage only once", async () => {
    const pages = [
      { data: [item("a"), item("b")], page: { next: "c1", prev: null } },
      { data: [item("a"), item("c")], page: { next: "c2", prev: null } },
      { data: [item("b")], page: { next: null, prev: null } },
    ];
    let n = 0;
    const api: ReadOnlyApi = {
      get: async () => {
        throw new Error("consistentLists reads through listV3");
      },
      // The listing is read twice (it spans pages): the same three pages each time.
      listV3: fakeListV3(() => pages[n++ % 3]),
      listV2: async () => [],
    };
    const handed: string[][] = [];
    const all = await consistentLists(api).listV3<{ name: string }>(
      "/contexts",
      {},
      { onPage: (items) => handed.push(items.map((i) => String(i.id))) },
    );
    expect(handed).toEqual([["a", "b"], ["c"]]);
    expect(n).toBe(6);
    // The listing is what the client returned (this fake does not merge repeats; the client
    // does: test/integration/client-paging.test.ts).
    expect(all.map((i) => i.id)).toEqual(["a", "b", "a", "c", "b"]);
  });
});
