/**
 * Chaos (issue 7, docs/emulator.md "Chaos"): at a seeded rate, a GET that would answer 200
 * answers with a hostile body instead: invalid JSON, a truncated body, the wrong shape, a
 * `page.next` that never ends, a cursor that repeats, unknown extra members, a huge body or
 * a slow body. Pure: it turns the real answer's body into the hostile one; the server sends it.
 */

export const CHAOS_KINDS = [
  "invalid_json",
  "truncated",
  "missing_data",
  "data_not_list",
  "endless_next",
  "repeat_cursor",
  "unknown_fields",
  "huge",
  "slow",
] as const;

export type ChaosKind = (typeof CHAOS_KINDS)[number];

export interface ChaosOptions {
  /** Probability in [0, 1] that an eligible answer (a GET answered 200 with JSON) is hostile. */
  readonly rate: number;
  /** The kinds to draw from (default: all), with equal odds. */
  readonly kinds?: readonly ChaosKind[];
  /** Size of the padding a `huge` answer carries (default 2 MiB). */
  readonly huge_bytes?: number;
  /** How long a `slow` answer takes to trickle out (default 200 ms). */
  readonly slow_ms?: number;
}

/** How the server sends a hostile answer. */
export type ChaosDelivery =
  | { readonly kind: "normal" }
  /** Announce the whole length, send the first half, then destroy the socket. */
  | { readonly kind: "truncate" }
  /** Send the body in chunks spread over `ms`. */
  | { readonly kind: "slow"; readonly ms: number };

export interface ChaosAnswer {
  readonly body: string;
  readonly delivery: ChaosDelivery;
}

/**
 * Cursors the emulator hands out for `endless_next` and `repeat_cursor`. A request carrying
 * one is answered as the collection's first page (the cursor is stripped) with the next
 * chaos cursor, so a client that keeps following never reaches the end.
 */
export const CHAOS_CURSOR_PREFIX = "chaos~";

export const isChaosCursor = (value: string | null | undefined): boolean =>
  typeof value === "string" && value.startsWith(CHAOS_CURSOR_PREFIX);

/** The next cursor after a chaos cursor: endless ones count up, repeating ones stay. */
export const nextChaosCursor = (cursor: string): string => {
  const m = /^chaos~endless~(\d+)~(\d+)$/.exec(cursor);
  return m ? `${CHAOS_CURSOR_PREFIX}endless~${m[1]}~${Number(m[2]) + 1}` : cursor;
};

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The list member of a page: V3 `data`, V2 `items`. */
const listKey = (body: Json): "data" | "items" | undefined => {
  if (Array.isArray(body.data)) return "data";
  if (Array.isArray(body.items)) return "items";
  return undefined;
};

/** Set the next-page cursor of a V3 (`page.next`) or V2 (`next_page_token`) list page. */
export const withNextCursor = (body: Json, cursor: string): Json =>
  listKey(body) === "items"
    ? { ...body, next_page_token: cursor }
    : { ...body, page: { ...(isRecord(body.page) ? body.page : {}), next: cursor } };

const addUnknown = (value: unknown): unknown => {
  if (!isRecord(value)) return value;
  const out: Json = { ...value, chaos_unknown_member: { nested: [1, "two", null] } };
  if (isRecord(value.attributes))
    out.attributes = { ...value.attributes, chaos_unknown_attribute: "ignore me" };
  return out;
};

/**
 * Decision: a kind that needs a list (wrong list shape, endless or repeating cursors) falls
 * back to `unknown_fields` on a single-resource answer, so every draw still does something
 * a client must survive. `missing_data` on a single resource drops `data` too.
 */
export const chaosAnswer = (
  kind: ChaosKind,
  realBody: string,
  options: ChaosOptions,
  /** Distinguishes endless chains, so two of them never share a cursor (the request seq). */
  chain = 0,
): ChaosAnswer => {
  const normal = (body: string): ChaosAnswer => ({ body, delivery: { kind: "normal" } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(realBody);
  } catch {
    return normal(realBody);
  }
  if (!isRecord(parsed)) return normal(realBody);
  const key = listKey(parsed);
  switch (kind) {
    case "invalid_json":
      // Cut inside the document and add a stray brace: never valid JSON.
      return normal(`${realBody.slice(0, Math.floor(realBody.length / 2))}}{"`);
    case "truncated":
      return { body: realBody, delivery: { kind: "truncate" } };
    case "missing_data": {
      const { data: _d, items: _i, ...rest } = parsed;
      return normal(JSON.stringify(rest));
    }
    case "data_not_list":
      if (!key) break;
      return normal(JSON.stringify({ ...parsed, [key]: { not: "a list" } }));
    case "endless_next":
      if (!key) break;
      return normal(
        JSON.stringify(withNextCursor(parsed, `${CHAOS_CURSOR_PREFIX}endless~${chain}~1`)),
      );
    case "repeat_cursor":
      if (!key) break;
      return normal(JSON.stringify(withNextCursor(parsed, `${CHAOS_CURSOR_PREFIX}repeat~0`)));
    case "unknown_fields":
      break;
    case "huge":
      return normal(
        JSON.stringify({
          ...parsed,
          chaos_padding: "x".repeat(options.huge_bytes ?? 2 * 1024 * 1024),
        }),
      );
    case "slow":
      return { body: realBody, delivery: { kind: "slow", ms: options.slow_ms ?? 200 } };
  }
  const withUnknown: Json = { ...parsed, chaos_unknown_top: { a: 1 } };
  if (key) withUnknown[key] = (parsed[key] as unknown[]).map(addUnknown);
  else if (parsed.data !== undefined) withUnknown.data = addUnknown(parsed.data);
  return normal(JSON.stringify(withUnknown));
};

/** Draw the chaos of one answer: undefined (none) or a kind; two draws from `rand`. */
export const drawChaos = (options: ChaosOptions, rand: () => number): ChaosKind | undefined => {
  if (options.rate <= 0) return undefined;
  if (rand() >= options.rate) return undefined;
  const kinds = options.kinds && options.kinds.length > 0 ? options.kinds : CHAOS_KINDS;
  return kinds[Math.min(kinds.length - 1, Math.floor(rand() * kinds.length))];
};
