/**
 * Issue 7 (found by the chaos test): listV3Pages hands each item to onPage once, even when
 * a later page repeats it, so per-item reads are not started once per page.
 */
import { describe, expect, it } from "vitest";
import type { ReadOnlyApi } from "../../src/api/types.js";
import { listV3Pages } from "../../src/live/paged-list.js";
import { fakeListV3 } from "../helpers/fake-list.js";

const item = (id: string) => ({ id, attributes: { name: id }, references: {} });

describe("listV3Pages", () => {
  it("hands an item repeated on a later page to onPage only once", async () => {
    const pages = [
      { data: [item("a"), item("b")], page: { next: "c1", prev: null } },
      { data: [item("a"), item("c")], page: { next: "c2", prev: null } },
      { data: [item("b")], page: { next: null, prev: null } },
    ];
    let n = 0;
    const api: ReadOnlyApi = {
      get: async () => {
        throw new Error("listV3Pages reads through listV3");
      },
      listV3: fakeListV3(() => pages[n++]),
      listV2: async () => [],
    };
    const handed: string[][] = [];
    const all = await listV3Pages<{ name: string }>(api, "/contexts", {}, (items) =>
      handed.push(items.map((i) => String(i.id))),
    );
    expect(handed).toEqual([["a", "b"], ["c"], []]);
    // The full listing is still every page's items, as the service sent them.
    expect(all.map((i) => i.id)).toEqual(["a", "b", "a", "c", "b"]);
  });
});
