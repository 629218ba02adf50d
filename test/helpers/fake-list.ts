/**
 * `listV3` for recording fakes of the read-only client (unit tests of src/live): pages are
 * taken from a `get`-style answer function — a V3 page `{data, page: {next}}` (followed by
 * `page[cursor]`) or a plain array (one last page) — and handed to `onPage` one by one, as
 * the real client does. The client's own paging rules are tested against the emulator
 * (test/integration/client-paging.test.ts); this only drives the callers.
 */
import type { ListOptions, Query } from "../../src/api/types.js";
import type { V3Resource } from "../../src/core/wire.js";

type Page = { data: unknown[]; page?: { next?: string | null } };

export const fakeListV3 =
  (answer: (path: string, query: Query) => unknown) =>
  async <A>(
    path: string,
    query?: Query,
    options?: ListOptions<V3Resource<A>>,
  ): Promise<V3Resource<A>[]> => {
    const all: V3Resource<A>[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 1000; n++) {
      const q = cursor === undefined ? { ...query } : { ...query, "page[cursor]": cursor };
      const body = await answer(path, q);
      const page: Page = Array.isArray(body) ? { data: body } : (body as Page);
      if (!Array.isArray(page?.data)) throw new Error(`GET ${path}: not a collection`);
      const items = page.data as V3Resource<A>[];
      all.push(...items);
      options?.onPage?.(items);
      const next = page.page?.next;
      if (next === null || next === undefined) return all;
      cursor = next;
    }
    throw new Error(`GET ${path}: too many pages`);
  };
