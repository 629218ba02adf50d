import { isUuid } from "../core/uuid.js";
import { CURSOR_ENCODES_LIMIT, NOT_PAGED, PAGE_LIMIT_MAX } from "../core/wire.js";

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

/** Whether the service pages a V3 collection path (`NOT_PAGED`: ids become `{id}`). */
export const isPagedRoute = (path: string): boolean =>
  !NOT_PAGED.has(
    path
      .split("/")
      .map((seg) => (isUuid(seg) ? "{id}" : seg))
      .join("/"),
  );

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** One page, checked; or why it cannot be used. */
export type PageRead =
  | { readonly ok: true; readonly items: readonly unknown[]; readonly next: string | null }
  | { readonly ok: false; readonly reason: string };

/**
 * What the reader knows of the request a page answers, to tell a last page from a lost
 * cursor when the answer has no `page` member (docs/spec-notes.md "Reading the real
 * service"). The default (no context) is the strictest: a paged route, no `page[limit]`
 * sent, nothing read before.
 */
export interface PageContext {
  /** The `page[limit]` the request sent, if any. */
  readonly limit?: number;
  /** False for a route the service does not page (`NOT_PAGED`). */
  readonly paged: boolean;
  /** How many items the earlier pages of the same listing held. */
  readonly before: number;
}

const STRICT: PageContext = { paged: true, before: 0 };

/**
 * A cursor member: a string to send back, or null when the list ends. Absent, null and ""
 * end the list: the vendor's clients read an empty cursor as the last page
 * (docs/spec-notes.md "Reading the real service": `"page": {"next": ""}`,
 * `"next_page_token": ""`), and an empty cursor is never sent back (it would restart the
 * collection from its first page).
 */
const readNext = (value: unknown, name: string): string | null | { error: string } => {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") return { error: `${name} is not a string or null` };
  return value;
};

/**
 * The items of a V3 page, each a resource: an object whose `attributes`, when present, is an
 * object. Decision (docs/spec-notes.md "Reading the real service"): an item without
 * `attributes` (the org look-up answers `{ "id": … }`) is read with empty attributes, since
 * every attribute is optional to the reader; what a kind cannot name is `unknown` there.
 */
const readItems = (data: readonly unknown[]): unknown[] | undefined => {
  const out: unknown[] = [];
  for (const item of data) {
    if (!isRecord(item)) return undefined;
    if (item.attributes === undefined || item.attributes === null) {
      out.push({ ...item, attributes: {} });
    } else if (isRecord(item.attributes)) {
      out.push(item);
    } else {
      return undefined;
    }
  }
  return out;
};

/**
 * Why a V3 page without `page` is the last one, or undefined when it may not be.
 * The rule (docs/spec-notes.md "Reading the real service"): a missing `page` ends a list
 * only when the list cannot be longer: the page is empty; `meta.total_count` says every item
 * has been read; the request sent `page[limit]` and fewer came back; or the route is one the
 * service does not page. Issue 15 stands for everything else: a full page that lost its
 * cursor is not the whole list (taking it as such planned creates of items on page two).
 */
const endsWithoutPage = (
  items: readonly unknown[],
  meta: unknown,
  ctx: PageContext,
): { end: true } | { end: false; reason: string } => {
  if (isRecord(meta) && typeof meta.total_count === "number") {
    const read = ctx.before + items.length;
    return read >= meta.total_count
      ? { end: true }
      : {
          end: false,
          reason: `\`meta.total_count\` is ${meta.total_count} but ${read} items were read and no cursor follows, so the list is partial`,
        };
  }
  if (items.length === 0 || !ctx.paged) return { end: true };
  if (ctx.limit !== undefined && items.length < ctx.limit) return { end: true };
  return {
    end: false,
    reason: "no `page` member: cannot tell whether more pages follow, so the list may be partial",
  };
};

/**
 * A V3 collection page: `{ data: [ ... ], page: { next, prev } }` (spec: api-v3.md
 * Envelopes), read liberally (docs/spec-notes.md "Reading the real service"): a `next` that
 * is null, absent or "" ends the collection (the webhooks row says "follow `page.next` until
 * absent"); a body without `page` is the last page only when `endsWithoutPage` says so. A
 * `data` that is not a list, or items that are not resources, fail the read.
 */
export const readV3Page = (body: unknown, ctx: PageContext = STRICT): PageRead => {
  if (!isRecord(body)) return { ok: false, reason: "the body is not a JSON object" };
  if (!Array.isArray(body.data)) {
    return {
      ok: false,
      reason: body.data === undefined ? "no `data` member" : "`data` is not a list",
    };
  }
  // spec: api-v3.md Envelopes: every resource is `{ id, attributes, references }`. An item
  // that is not an object would fail later, far from the response; fail here, with the path.
  const items = readItems(body.data);
  if (items === undefined) {
    return {
      ok: false,
      reason: "an item of `data` is not a resource (an object with `attributes`)",
    };
  }
  if (body.page === undefined || body.page === null) {
    const ends = endsWithoutPage(items, body.meta, ctx);
    return ends.end ? { ok: true, items, next: null } : { ok: false, reason: ends.reason };
  }
  if (!isRecord(body.page)) return { ok: false, reason: "`page` is not an object" };
  const next = readNext(body.page.next, "`page.next`");
  if (next !== null && typeof next === "object") return { ok: false, reason: next.error };
  return { ok: true, items, next };
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

/**
 * A V2 list page: `{ items: [...], next_page_token }`; a token that is null, absent or ""
 * ends the list (spec: api-v2-v1.md "Resources and their fields": the V2 conventions).
 */
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
