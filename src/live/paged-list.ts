/**
 * A V3 collection read page by page, handing each page to the caller as it arrives (issue 8:
 * nothing serialised that need not be). The pages of one collection are sequential (each
 * needs the previous page's cursor), but the reads that hang off its items need not wait for
 * the last page: a project's env vars, webhooks, pipelines and triggers can be in flight
 * while the org listing is still on its next page.
 *
 * The rules are the client's (src/api/pagination.ts, shared, not copied): the largest
 * documented `page[limit]` on every page, the cursor sent back unchanged, a checked page
 * shape, a bounded number of pages and no repeated cursor. Like `listV3` it resolves with
 * every item or rejects: never a partial list (design.md §1 "Ownership").
 */
import { MAX_PAGES, pageLimitFor, readV3Page, sendLimitWithCursor } from "../api/pagination.js";
import type { Query, ReadOnlyApi } from "../api/types.js";
import type { V3Resource } from "../api/wire.js";
import { LiveReadError } from "./errors.js";

export const listV3Pages = async <A>(
  api: ReadOnlyApi,
  path: string,
  query: Query,
  onPage: (items: readonly V3Resource<A>[]) => void,
): Promise<V3Resource<A>[]> => {
  const limit = pageLimitFor(path);
  const withLimit = sendLimitWithCursor(path);
  const what = `GET /api/v3${path}`;
  const all: V3Resource<A>[] = [];
  const seen = new Set<string>();
  const delivered = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const q: Query =
      cursor === undefined
        ? { ...query, "page[limit]": limit }
        : // spec: api-v3.md Envelopes: the cursor goes back unchanged.
          { ...query, "page[cursor]": cursor, "page[limit]": withLimit ? limit : undefined };
    const read = readV3Page(await api.get<unknown>("v3", path, q));
    if (!read.ok) throw new LiveReadError(`${what} (page ${page}): ${read.reason}`);
    const items = read.items as V3Resource<A>[];
    all.push(...items);
    // Issue 7 (chaos): an item a previous page already handed over is not handed over again.
    // A page that repeats earlier items (a service whose pages never end, or items shifting
    // between pages) would otherwise start the same item's reads once per page: hundreds of
    // thousands of requests before the page bound ends the listing.
    const fresh = items.filter((item) => {
      if (typeof item.id !== "string") return true;
      if (delivered.has(item.id)) return false;
      delivered.add(item.id);
      return true;
    });
    onPage(fresh);
    if (read.next === null) return all;
    if (seen.has(read.next)) {
      throw new LiveReadError(
        `${what}: the next-page cursor repeats one already followed (after ${page} pages)`,
      );
    }
    if (page >= MAX_PAGES) {
      throw new LiveReadError(`${what}: more than ${MAX_PAGES} pages; stopping`);
    }
    seen.add(read.next);
    cursor = read.next;
  }
};
