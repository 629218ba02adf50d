/**
 * Cursor paging. spec: api-v3.md "Envelopes": `page.next`/`page.prev` are opaque strings sent
 * back unchanged as `page[cursor]`; paging ends at `page.next: null`. "Errors" rule 3:
 * out-of-range `page[limit]` is 400, not clamped. "Limits": documented maxima.
 *
 * Decision: a cursor is base64url of `{o: offset, l: limit, f: query fingerprint, s: HMAC}`
 * signed with a per-server random secret: a forged or edited cursor, a cursor from another
 * server, or one used with different filters (another fingerprint) is 400 `invalid_cursor`.
 */
import { createHmac, createSecretKey } from "node:crypto";
import { badRequest } from "./errors.js";
import type { Ctx } from "./http.js";

/**
 * Decision: page size when `page[limit]` is absent. Every V3 list is paged the same way,
 * including project env vars and context restrictions, whose rows in the spec name no paging.
 */
export const DEFAULT_PAGE_SIZE = 20;
/** Decision: collections without a documented maximum accept `page[limit]` 1..100. */
export const DEFAULT_PAGE_MAX = 100;

interface CursorBody {
  readonly o: number;
  readonly l: number;
  readonly f: string;
}

const sign = (secret: string, c: CursorBody): string =>
  createHmac("sha256", secret).update(`${c.o}|${c.l}|${c.f}`).digest("base64url").slice(0, 22);

const encode = (secret: string, c: CursorBody): string =>
  Buffer.from(JSON.stringify({ ...c, s: sign(secret, c) })).toString("base64url");

const decode = (secret: string, raw: string, fingerprint: string): CursorBody => {
  const bad = () => badRequest("invalid_cursor", "the page cursor is not valid for this request");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (typeof parsed !== "object" || parsed === null) throw bad();
  const { o, l, f, s } = parsed as Record<string, unknown>;
  if (
    !Number.isInteger(o) ||
    !Number.isInteger(l) ||
    typeof f !== "string" ||
    typeof s !== "string"
  )
    throw bad();
  const c: CursorBody = { o: o as number, l: l as number, f };
  if (sign(secret, c) !== s || f !== fingerprint || c.o < 0 || c.l < 1) throw bad();
  return c;
};

/** The fingerprint's fixed HMAC key, prepared once (a constant, not per request). */
const FINGERPRINT_KEY = createSecretKey(Buffer.from("fp", "utf8"));

/** The query without its paging parameters, order-independent. */
const fingerprint = (ctx: Ctx, pagingKeys: readonly string[]): string => {
  const entries: [string, string][] = [];
  for (const entry of ctx.query) if (!pagingKeys.includes(entry[0])) entries.push(entry);
  if (entries.length > 1)
    entries.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  return createHmac("sha256", FINGERPRINT_KEY)
    .update(`${ctx.path}?${JSON.stringify(entries)}`)
    .digest("base64url")
    .slice(0, 12);
};

const parseLimit = (raw: string | null, name: string, max: number): number | undefined => {
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw))
    throw badRequest("invalid_page_limit", `${name} must be an integer from 1 to ${max}`);
  const n = Number(raw);
  if (n < 1 || n > max)
    throw badRequest("invalid_page_limit", `${name} must be from 1 to ${max}, got ${n}`);
  return n;
};

interface Window {
  readonly offset: number;
  readonly limit: number;
  /** The query's fingerprint, for the cursors of the neighbouring pages. */
  readonly fp: () => string;
}

const window = (ctx: Ctx, limitKey: string, cursorKey: string, max: number): Window => {
  const limit = parseLimit(ctx.query.get(limitKey), limitKey, max);
  const rawCursor = ctx.query.get(cursorKey);
  // Computed only when a cursor is read or written: most lists fit on one page.
  if (rawCursor === null || rawCursor === "")
    return {
      offset: 0,
      limit: limit ?? DEFAULT_PAGE_SIZE,
      fp: () => fingerprint(ctx, [limitKey, cursorKey]),
    };
  const fp = fingerprint(ctx, [limitKey, cursorKey]);
  const c = decode(ctx.cursorSecret, rawCursor, fp);
  // Decision: `page[limit]` sent with a cursor overrides the limit the cursor carries.
  return { offset: c.o, limit: limit ?? c.l, fp: () => fp };
};

/** One page of a V3 collection: `{ data, page: { next, prev } }`. */
export const paginate = <T>(
  ctx: Ctx,
  items: readonly T[],
  render: (item: T) => unknown,
  max: number = DEFAULT_PAGE_MAX,
): { data: unknown[]; page: { next: string | null; prev: string | null } } => {
  const w = window(ctx, "page[limit]", "page[cursor]", max);
  const slice = items.slice(w.offset, w.offset + w.limit);
  const next =
    w.offset + w.limit < items.length
      ? encode(ctx.cursorSecret, { o: w.offset + w.limit, l: w.limit, f: w.fp() })
      : null;
  const prev =
    w.offset > 0
      ? encode(ctx.cursorSecret, { o: Math.max(0, w.offset - w.limit), l: w.limit, f: w.fp() })
      : null;
  return { data: slice.map(render), page: { next, prev } };
};

/**
 * One page of a V2 list: `{ items, next_page_token }` with `limit` and `page-token`
 * (spec: api-v2-v1.md "Resource fields"). Decision: `limit` 1..100, default 20.
 */
export const paginateV2 = <T>(
  ctx: Ctx,
  items: readonly T[],
  render: (item: T) => unknown,
): { items: unknown[]; next_page_token: string | null } => {
  const w = window(ctx, "limit", "page-token", DEFAULT_PAGE_MAX);
  const slice = items.slice(w.offset, w.offset + w.limit);
  const next =
    w.offset + w.limit < items.length
      ? encode(ctx.cursorSecret, { o: w.offset + w.limit, l: w.limit, f: w.fp() })
      : null;
  return { items: slice.map(render), next_page_token: next };
};
