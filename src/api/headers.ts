/**
 * Pure parsers for the response headers that steer the client: `Retry-After`, `RateLimit`,
 * `RateLimit-Policy`, `Deprecation`/`Sunset`/`Link`. spec: api-v3.md Limits ("on 429 wait
 * `Retry-After` seconds"; "headers `RateLimit-Policy` and `RateLimit` ... IETF rate-limit
 * header draft") and Versioning.
 */

/** Response headers as undici gives them (lower-case names). */
export type RawHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One header's value; repeated headers are joined with ", " (RFC 9110 §5.3). */
export const headerValue = (headers: RawHeaders, name: string): string | undefined => {
  const v = headers[name.toLowerCase()];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(", ") : v;
};

/**
 * `Retry-After` as a delay in ms from `nowMs`: delay-seconds or an HTTP-date (RFC 9110
 * §10.2.3). A date in the past is 0. Undefined when absent or unreadable.
 */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined;
  const v = value.trim();
  // Decision: fractional seconds ("1.5") are accepted although the RFC says integer; a
  // server that sends them means it, and rounding down could retry too early.
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  // An HTTP-date always has letters (day and month names); bare numbers were handled above,
  // so Date.parse's leniency with strings like "5" cannot turn them into dates.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
};

/** Split on `sep` outside double-quoted strings (enough of RFC 8941 for these headers). */
const splitOutsideQuotes = (value: string, sep: string): string[] => {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === "\\" && quoted) {
      current += c + (value[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      out.push(current.trim());
      current = "";
    } else current += c;
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
};

const unquote = (s: string): string =>
  s.startsWith('"') && s.endsWith('"') && s.length >= 2
    ? s.slice(1, -1).replace(/\\(.)/g, "$1")
    : s;

const numberOrUndefined = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const t = s.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t);
};

/** A parameterised list member: `"name";k=v;k2=v2` or `100;w=60`. */
interface ListMember {
  readonly item: string;
  readonly params: ReadonlyMap<string, string>;
}

const parseMembers = (value: string): ListMember[] =>
  splitOutsideQuotes(value, ",").map((member) => {
    const [item = "", ...rest] = splitOutsideQuotes(member, ";");
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), unquote(p.slice(eq + 1).trim()));
      else if (p !== "") params.set(p.trim().toLowerCase(), "?1");
    }
    return { item: unquote(item.trim()), params };
  });

/** The current state of one rate-limit policy, as the service reports it. */
export interface RateLimitState {
  /** Requests left in the current window. */
  readonly remaining: number;
  /** Seconds until the window resets (the quota is restored). */
  readonly resetSeconds?: number;
  /** Quota of the window, when the header or the policy says it. */
  readonly limit?: number;
  /** The policy's name in the structured form. */
  readonly policy?: string;
  /** The policy's window (`w`), when `RateLimit-Policy` names one. */
  readonly windowSeconds?: number;
}

/** A `RateLimit-Policy` entry: `q` requests per `w` seconds. */
export interface RateLimitPolicy {
  readonly name?: string;
  readonly quota: number;
  readonly windowSeconds?: number;
}

/**
 * `RateLimit-Policy`, structured form `"name";q=100;w=60` (draft-ietf-httpapi-ratelimit-
 * headers-08+) or the older `100;w=60`. Several policies may be listed.
 */
export const parseRateLimitPolicy = (value: string | undefined): RateLimitPolicy[] => {
  if (value === undefined) return [];
  const out: RateLimitPolicy[] = [];
  for (const m of parseMembers(value)) {
    const oldQuota = numberOrUndefined(m.item);
    const quota = numberOrUndefined(m.params.get("q")) ?? oldQuota;
    if (quota === undefined) continue;
    out.push({
      name: oldQuota === undefined ? m.item : undefined,
      quota,
      windowSeconds: numberOrUndefined(m.params.get("w")),
    });
  }
  return out;
};

/**
 * `RateLimit` in either form the service may send:
 * - structured (newer drafts): `"name";r=5;t=10` — `r` remaining, `t` seconds to reset;
 * - dictionary (older drafts): `limit=100, remaining=5, reset=10`.
 * When several policies are reported, the most constrained one (fewest remaining) wins.
 * Undefined when absent or unreadable; a parser never throws on a server's header.
 */
export const parseRateLimit = (value: string | undefined): RateLimitState | undefined => {
  if (value === undefined || value.trim() === "") return undefined;
  const members = parseMembers(value);
  const isDictionary = members.every((m) => /^(limit|remaining|reset)\s*=/i.test(m.item));
  if (isDictionary) {
    const dict = new Map<string, number | undefined>();
    for (const m of members) {
      const eq = m.item.indexOf("=");
      dict.set(m.item.slice(0, eq).trim().toLowerCase(), numberOrUndefined(m.item.slice(eq + 1)));
    }
    const remaining = dict.get("remaining");
    if (remaining === undefined) return undefined;
    return { remaining, resetSeconds: dict.get("reset"), limit: dict.get("limit") };
  }
  let best: RateLimitState | undefined;
  for (const m of members) {
    const remaining = numberOrUndefined(m.params.get("r"));
    if (remaining === undefined) continue;
    const state: RateLimitState = {
      remaining,
      resetSeconds: numberOrUndefined(m.params.get("t")),
      policy: m.item || undefined,
    };
    if (best === undefined || state.remaining < best.remaining) best = state;
  }
  return best;
};

/**
 * The rate-limit state from a response's headers: `RateLimit` (+ `RateLimit-Policy` for the
 * quota), falling back to the oldest drafts' separate `RateLimit-Remaining` /
 * `RateLimit-Reset` / `RateLimit-Limit` headers.
 */
export const readRateLimit = (headers: RawHeaders): RateLimitState | undefined => {
  const policies = parseRateLimitPolicy(headerValue(headers, "ratelimit-policy"));
  const state = parseRateLimit(headerValue(headers, "ratelimit"));
  if (state !== undefined) {
    const policy =
      policies.find((p) => p.name !== undefined && p.name === state.policy) ??
      (policies.length === 1 ? policies[0] : undefined);
    if (policy === undefined) return state;
    return {
      ...state,
      limit: state.limit ?? policy.quota,
      ...(policy.windowSeconds !== undefined ? { windowSeconds: policy.windowSeconds } : {}),
    };
  }
  const remaining = numberOrUndefined(headerValue(headers, "ratelimit-remaining"));
  if (remaining === undefined) return undefined;
  return {
    remaining,
    resetSeconds: numberOrUndefined(headerValue(headers, "ratelimit-reset")),
    limit:
      numberOrUndefined(headerValue(headers, "ratelimit-limit")) ??
      (policies.length === 1 ? policies[0]?.quota : undefined),
  };
};

/** What a deprecated route's response says (spec: api-v3.md Versioning; RFC 9745, 8594). */
export interface DeprecationNotice {
  readonly sunset?: string;
  readonly link?: string;
}

/** Undefined unless the response carries `Deprecation` or `Sunset`. */
export const readDeprecation = (headers: RawHeaders): DeprecationNotice | undefined => {
  const deprecation = headerValue(headers, "deprecation");
  const sunset = headerValue(headers, "sunset");
  if (deprecation === undefined && sunset === undefined) return undefined;
  const link = headerValue(headers, "link");
  let docs: string | undefined;
  if (link !== undefined) {
    for (const m of parseMembers(link)) {
      const target = /^<([^>]*)>$/.exec(m.item);
      const rel = m.params.get("rel");
      if (target && rel?.split(/\s+/).includes("deprecation")) docs = target[1];
    }
  }
  return { sunset: sunset?.trim(), link: docs };
};
