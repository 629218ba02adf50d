import type { V3Resource } from "../core/wire.js";
import type { ResolvedOptions } from "./client-options.js";
import { ResponseFormatError } from "./errors.js";
import {
  isPagedRoute,
  newItems,
  type PageContext,
  pageLimitFor,
  readV2Page,
  readV3Page,
  sendLimitWithCursor,
} from "./pagination.js";
import type { Call, Success } from "./request-call.js";
import type { ApiGeneration, ListOptions, Query, QueryValue, RequestOptions } from "./types.js";

/** Listing: every page of a V3 or V2 collection, each page one request of `run`. */
export const createListing = ({
  o,
  run,
}: {
  readonly o: Pick<ResolvedOptions, "maxPages">;
  readonly run: (call: Call) => Promise<Success>;
}) => {
  /**
   * Read every page of a collection or fail; never a partial list (design.md §1
   * "Ownership"). `readPage` checks one page; `pageQuery` builds the query for a cursor.
   */
  const listAll = async (
    api: ApiGeneration,
    path: string,
    pageQuery: (cursor: string | undefined) => Query,
    readPage: (body: unknown, ctx: PageContext) => ReturnType<typeof readV3Page>,
    signal: AbortSignal | undefined,
    onPage: ((items: readonly unknown[]) => void) | undefined,
    urgent = false,
  ): Promise<unknown[]> => {
    const items: unknown[] = [];
    const seen = new Set<string>();
    const itemsSeen = new Set<string>();
    let cursor: string | undefined;
    const paged = isPagedRoute(path);
    for (let page = 1; ; page++) {
      const query = pageQuery(cursor);
      const limit = query["page[limit]"];
      const res = await run({
        method: "GET",
        api,
        path,
        query,
        body: undefined,
        signal,
        // A second page means a listing that spans pages: its walk gates whatever its items
        // release, so it goes ahead of the queue (src/api/send-slots.ts).
        urgent: urgent || cursor !== undefined,
      });
      // What the request sent and what came before: a page without `page` is the last one
      // only when the list cannot be longer (src/api/pagination.ts endsWithoutPage).
      const read = readPage(res.body, {
        paged,
        before: items.length,
        ...(limit === undefined || Number.isNaN(Number(limit)) ? {} : { limit: Number(limit) }),
      });
      if (!read.ok) {
        throw new ResponseFormatError({
          method: "GET",
          path: res.path,
          status: res.status,
          reason: read.reason,
        });
      }
      // Issue 15: an item a previous page already held is not listed twice.
      const fresh = newItems(itemsSeen, read.items);
      // A loop: a page's length is the server's choice, and a spread of it could overflow.
      for (const item of fresh) items.push(item);
      onPage?.(fresh);
      if (read.next === null) return items;
      if (seen.has(read.next)) {
        throw new ResponseFormatError({
          method: "GET",
          path: res.path,
          status: res.status,
          reason: `the next-page cursor repeats one already followed (after ${page} pages); stopping rather than looping`,
        });
      }
      if (page >= o.maxPages) {
        throw new ResponseFormatError({
          method: "GET",
          path: res.path,
          status: res.status,
          reason: `more than ${o.maxPages} pages; stopping rather than returning a partial list`,
        });
      }
      seen.add(read.next);
      cursor = read.next;
    }
  };

  const listV3 = async <A>(
    path: string,
    query?: Query,
    options?: ListOptions<V3Resource<A>>,
  ): Promise<V3Resource<A>[]> => {
    // Decision: a `page[limit]` the caller passes wins over the documented maximum (e.g. a
    // smaller page for a slow route); otherwise the maximum, or none where none is documented.
    const callerLimit = query?.["page[limit]"];
    const pageLimit: QueryValue = callerLimit ?? pageLimitFor(path);
    const withLimit = sendLimitWithCursor(path);
    const pageQuery = (cursor: string | undefined): Query => {
      const { "page[limit]": _dropped, "page[cursor]": _ignored, ...rest } = query ?? {};
      if (cursor === undefined) return { ...rest, "page[limit]": pageLimit };
      return {
        ...rest,
        // spec: api-v3.md Envelopes: the cursor goes back unchanged.
        "page[cursor]": cursor,
        "page[limit]": withLimit ? pageLimit : undefined,
      };
    };
    const onPage = options?.onPage as ((items: readonly unknown[]) => void) | undefined;
    const items = await listAll(
      "v3",
      path,
      pageQuery,
      readV3Page,
      options?.signal,
      onPage,
      options?.urgent,
    );
    return items as V3Resource<A>[];
  };

  const listV2 = async <T>(path: string, query?: Query, options?: RequestOptions): Promise<T[]> => {
    const pageQuery = (cursor: string | undefined): Query => {
      const { "page-token": _ignored, ...rest } = query ?? {};
      return { ...rest, "page-token": cursor };
    };
    const items = await listAll("v2", path, pageQuery, readV2Page, options?.signal, undefined);
    return items as T[];
  };

  return { listV3, listV2 };
};
