/**
 * A V3 collection whose items are handed over page by page as they arrive (issue 8:
 * nothing serialised that need not be): a project's env vars, webhooks, pipelines and
 * triggers can be in flight while the org listing is still on its next page.
 *
 * Paging itself is the client's (`listV3` with `onPage`: the largest documented
 * `page[limit]`, the cursor sent back unchanged, checked pages, a bounded number of pages,
 * no repeated cursor); like `listV3` this resolves with every item or rejects, never a
 * partial list (design.md §1 "Ownership").
 */
import type { Query, ReadOnlyApi } from "../api/types.js";
import type { V3Resource } from "../api/wire.js";

export const listV3Pages = async <A>(
  api: ReadOnlyApi,
  path: string,
  query: Query,
  onPage: (items: readonly V3Resource<A>[]) => void,
): Promise<V3Resource<A>[]> => {
  // Issue 7 (chaos): an item a previous page already handed over is not handed over again.
  // A page that repeats earlier items (a service whose pages never end, or items shifting
  // between pages) would otherwise start the same item's reads once per page: hundreds of
  // thousands of requests before the page bound ends the listing.
  const delivered = new Set<string>();
  return api.listV3<A>(path, query, {
    onPage: (items) =>
      onPage(
        items.filter((item) => {
          if (typeof item.id !== "string") return true;
          if (delivered.has(item.id)) return false;
          delivered.add(item.id);
          return true;
        }),
      ),
  });
};
