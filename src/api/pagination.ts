import { CURSOR_ENCODES_LIMIT, PAGE_LIMIT_MAX } from "../core/wire.js";

/**
 * Pure rules for reading collections. spec: api-v3.md Envelopes (cursors are opaque, sent
 * back unchanged as `page[cursor]`, paging ends when `page.next` is null) and Limits
 * (per-collection `page[limit]` maxima; out of range is 400, not clamped).
 */

/**
 * Decision: at most this many pages are read from one collection; more means the service is
 * looping (or the collection is absurdly large) and the read fails rather than never ending.
 * At the smallest documented page maximum (50: orgs, projects) that is 50,000 items in one
 * collection; others allow 100 a page. Issue 7: a `page.next` that never ends must fail in
 * seconds, not after minutes of requests (it was 10,000).
 */
export const MAX_PAGES = 1_000;

/** The largest documented `page[limit]` for a collection path, or undefined (send none). */
export const pageLimitFor = (path: string): number | undefined =>
  Object.hasOwn(PAGE_LIMIT_MAX, path) ? PAGE_LIMIT_MAX[path] : undefined;

/**
 * spec: api-v3.md Provider: for `/provider/branches` "the cursor encodes the limit, so
 * sending `page[limit]` with `page[cursor]` is 400". Elsewhere the limit is sent on every
 * page: nothing says a cursor carries it, and without it later pages could fall back to
 * the default size.
 */
export const sendLimitWithCursor = (path: string): boolean => !CURSOR_ENCODES_LIMIT.has(path);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** One page, checked; or why it cannot be used. */
export type PageRead =
  | { readonly ok: true; readonly items: readonly unknown[]; readonly next: string | null }
  | { readonly ok: false; readonly reason: string };

const readNext = (value: unknown, name: string): string | null | { error: string } => {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") return { error: `${name} is not a string or null` };
  // Decision: an empty cursor is malformed, not "the end": the spec's end marker is null,
  // and sending "" back would restart the collection from its first page.
  if (value === "") return { error: `${name} is an empty string` };
  return value;
};

/**
 * A V3 collection page: `{ data: [ ... ], page: { next, prev } }`.
 * Decision (issue 15): the `page` member is required. spec: api-v3.md Envelopes gives every
 * collection that shape; a body without `page` is not a last page but an answer whose paging
 * was lost (a proxy, a truncated rewrite, another route's shape), and taking it as the whole
 * list planned creates of items that exist on later pages. Inside `page`, a `next` that is
 * null or absent ends the collection (the webhooks row says "follow `page.next` until
 * absent"). A `data` that is not a list, or items that are not resources with an
 * `attributes` object, fail the read too.
 */
export const readV3Page = (body: unknown): PageRead => {
  if (!isRecord(body)) return { ok: false, reason: "the body is not a JSON object" };
  if (!Array.isArray(body.data)) {
    return {
      ok: false,
      reason: body.data === undefined ? "no `data` member" : "`data` is not a list",
    };
  }
  // spec: api-v3.md Envelopes: every resource is `{ id, attributes, references }`. An item
  // without `attributes` would fail later, far from the response; fail here, with the path.
  if (body.data.some((item) => !isRecord(item) || !isRecord(item.attributes))) {
    return { ok: false, reason: "an item of `data` is not a resource with `attributes`" };
  }
  if (body.page === undefined || body.page === null) {
    return {
      ok: false,
      reason: "no `page` member: cannot tell whether more pages follow, so the list may be partial",
    };
  }
  if (!isRecord(body.page)) return { ok: false, reason: "`page` is not an object" };
  const next = readNext(body.page.next, "`page.next`");
  if (next !== null && typeof next === "object") return { ok: false, reason: next.error };
  return { ok: true, items: body.data, next };
};

/**
 * The identity of a listed item across the pages of one listing: its `id` when it has one,
 * else (env vars are keyed by name and carry no id) its whole JSON text, so only an exact
 * repeat is merged.
 */
const itemKey = (item: unknown): string =>
  isRecord(item) && typeof item.id === "string" ? `id:${item.id}` : `json:${JSON.stringify(item)}`;

/**
 * Issue 15: the items of a new page that no earlier page of the same listing held (and no
 * repeat within the page). An item inserted before the read position between two page reads
 * pushes the last item of the page already read onto the next one; counting it twice made
 * the plan fail ("one id listed twice") or, worse, look like two live items of one key.
 * `seen` is the listing's own set, updated in place.
 */
export const newItems = (seen: Set<string>, items: readonly unknown[]): unknown[] => {
  const fresh: unknown[] = [];
  for (const item of items) {
    const key = itemKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(item);
  }
  return fresh;
};

/** A V2 list page: `{ items: [...], next_page_token }` (spec: api-v2-v1.md "Resources and their fields": the V2 conventions). */
export const readV2Page = (body: unknown): PageRead => {
  if (!isRecord(body)) return { ok: false, reason: "the body is not a JSON object" };
  if (!Array.isArray(body.items)) {
    return {
      ok: false,
      reason: body.items === undefined ? "no `items` member" : "`items` is not a list",
    };
  }
  const next = readNext(body.next_page_token, "`next_page_token`");
  if (next !== null && typeof next === "object") return { ok: false, reason: next.error };
  return { ok: true, items: body.items, next };
};
