/**
 * Collection reads the planner can trust (issue 15 "Reads that are consistent or fail").
 *
 * Paging itself is the client's (`listV3` with `onPage`: the largest documented
 * `page[limit]`, the cursor sent back unchanged, checked pages, a bounded number of pages,
 * no repeated cursor, no item listed twice); like `listV3` these resolve with every item or
 * reject, never a partial list (design.md §1 "Ownership").
 */

import { apiPath } from "../api/request-target.js";
import type {
  ApiGeneration,
  ListOptions,
  Query,
  ReadOnlyApi,
  RequestOptions,
} from "../api/types.js";
import { LiveReadError } from "../core/errors.js";
import type { V3Resource } from "../core/wire.js";

/**
 * Decision: a listing that spans several pages is read again until two reads in a row list
 * the same items in the same order; after this many reads that all differ, the read fails.
 * spec: api-v3.md Envelopes: cursors are opaque and nothing promises a snapshot, so an item
 * deleted before the read position between two page reads moves a later item onto the page
 * already read (it looks missing: a duplicate create), and an item inserted there shows the
 * same item twice. One page is one answer, a snapshot by itself, so most listings (every
 * project's webhooks, pipelines, triggers) cost nothing more; a listing of several pages
 * costs one more walk, whose unchanged pages are 304s (the client sends their ETags).
 */
export const MAX_LIST_READS = 4;

const keyOf = (item: V3Resource<unknown>): string =>
  typeof item.id === "string" ? `id:${item.id}` : `json:${JSON.stringify(item)}`;

const sameKeys = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((k, i) => k === b[i]);

/**
 * A read-only view whose `listV3` is consistent or fails (see MAX_LIST_READS). `onPage` is
 * called with each item the first time any read of the listing meets it, so work hanging
 * off the items starts early (issue 8); the resolved list is the last, confirmed read, which
 * may leave out an item `onPage` saw (deleted meanwhile): callers keep only what it lists.
 */
export const consistentLists = (api: ReadOnlyApi): ReadOnlyApi => {
  const listV3 = async <A>(
    path: string,
    query?: Query,
    options?: ListOptions<V3Resource<A>>,
  ): Promise<V3Resource<A>[]> => {
    const delivered = new Set<string>();
    const readOnce = async (again: boolean): Promise<{ items: V3Resource<A>[]; pages: number }> => {
      let pages = 0;
      const items = await api.listV3<A>(path, query, {
        ...options,
        // A re-read is of a listing known to span pages: all of it ahead of the queue, or
        // it runs alone at the end, one page per round trip (src/api/send-slots.ts).
        ...(again ? { urgent: true } : {}),
        onPage: (page) => {
          pages += 1;
          if (!options?.onPage) return;
          const fresh = page.filter((item) => {
            const key = keyOf(item);
            if (delivered.has(key)) return false;
            delivered.add(key);
            return true;
          });
          if (fresh.length > 0) options.onPage(fresh);
        },
      });
      return { items, pages };
    };
    let last = await readOnce(false);
    if (last.pages <= 1) return last.items;
    let lastKeys = last.items.map(keyOf);
    for (let read = 2; read <= MAX_LIST_READS; read++) {
      const next = await readOnce(true);
      const nextKeys = next.items.map(keyOf);
      if (next.pages <= 1 || sameKeys(lastKeys, nextKeys)) return next.items;
      last = next;
      lastKeys = nextKeys;
    }
    throw new LiveReadError(
      `GET ${apiPath("v3", path, query)}: the listing changed while its pages were read, ${MAX_LIST_READS} times in a row; nothing is planned from a list that may have shifted (run again when it is quiet)`,
    );
  };
  return {
    get: <T>(gen: ApiGeneration, path: string, query?: Query, o?: RequestOptions) =>
      api.get<T>(gen, path, query, o),
    listV3,
    listV2: <T>(path: string, query?: Query, o?: RequestOptions) => api.listV2<T>(path, query, o),
  };
};
