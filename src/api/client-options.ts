import type { Dispatcher } from "undici";
import { UsageError } from "../core/errors.js";
import { isSecret, type MaybeSecret, Secret } from "../core/secret.js";
import { type BaseUrl, parseBaseUrl } from "./base-url.js";
import { createSystemClock } from "./clock.js";
import { MAX_PAGES } from "./pagination.js";
import type { Clock, RequestLogEntry } from "./types.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  readonly maxAttempts?: number;
  /** Ceiling of the first backoff wait (default 500 ms); it doubles per attempt. */
  readonly baseDelayMs?: number;
  /** Largest backoff wait (default 30 s). */
  readonly maxDelayMs?: number;
  /**
   * The longest `Retry-After` (or `RateLimit` reset) the client agrees to wait (default
   * 5 min). Decision: a 429 asking for more fails at once with an ApiError that says so,
   * rather than a CI job hanging silently for an hour (V2's limit is per hour).
   */
  readonly maxRetryAfterMs?: number;
}

export interface ApiClientOptions {
  /** The service root; the client adds `/api/v3` and `/api/v2` (design.md §1). */
  readonly baseUrl: string;
  /** The API token; only ever put into the auth header. A string is wrapped in a Secret. */
  readonly token: MaybeSecret;
  readonly clock?: Clock;
  /** Source of randomness for backoff jitter, in [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** Requests on the wire at once (default 10; `--parallelism`). */
  readonly maxConcurrentRequests?: number;
  /** Per attempt, from send to the end of the body (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * The longest one request may wait for its answer, its retries and the backoff waits
   * between them included (default 30 s; the CLI's `--timeout`): each attempt's timeout is
   * cut to what is left of it, and no retry starts that could not end within it, so a
   * service that accepts connections and never answers is reported within this bound, not
   * after attempts × timeouts (issue 28: 156 s for plan, 251 s for apply).
   * Decision: waits the service asks for (a 429's Retry-After, a `RateLimit` pace) and the
   * wait for a free connection slot are not counted: the service is answering, and each 429
   * wait is announced on stderr (`maxRetryAfterMs` bounds them).
   */
  readonly requestTimeoutMs?: number;
  readonly retry?: RetryOptions;
  /** The `--verbose` log: one entry per attempt; never the token, never a body. */
  readonly onRequest?: (entry: RequestLogEntry) => void;
  /** Deprecation / sunset notices, once per route. */
  readonly onWarning?: (message: string) => void;
  /**
   * Called once before each retry (issue 21: an unresponsive server must not give minutes
   * of silence): what is retried, why, which attempt comes next and after what wait.
   */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Applied to every error text taken from a response, to remove known secret values. */
  readonly scrub?: (text: string) => string;
  readonly userAgent?: string;
  /** Most pages read from one collection (default 1,000: MAX_PAGES). */
  readonly maxPages?: number;
  /**
   * Largest response body read, in bytes (default 32 MiB). Decision (issue 7, huge bodies):
   * a larger body is cut off and fails with a bad_response error instead of filling memory;
   * the biggest honest page (100 items) is far below it.
   */
  readonly maxBodyBytes?: number;
  /**
   * The transport: an undici Dispatcher (an Agent, a Pool, a MockAgent, a ProxyAgent, one
   * wrapped in interceptors...). Policy stays here, transport there (issue 16), the way
   * undici's RetryHandler and octokit's retry/throttling plugins keep them apart. Default: an
   * Agent of the client's own, ended by `close()`; an injected one belongs to the caller and
   * is left open.
   */
  readonly dispatcher?: Dispatcher;
}

/** One retry, as `onRetry` reports it. Never holds the token or a body. */
export interface RetryNotice {
  readonly method: string;
  /** Path with query string, as sent. */
  readonly path: string;
  /** Why: `timed out after 30 s`, `the service answered 503`, `rate limited (429)`... */
  readonly reason: string;
  /** The attempt about to be made (2 for the first retry) and the most there will be. */
  readonly nextAttempt: number;
  readonly maxAttempts: number;
  /** The wait before it. */
  readonly waitMs: number;
  /** The longest one request can take in all (`requestTimeBoundMs`), for the message. */
  readonly boundMs: number;
}

/** Per attempt, unless `timeoutMs` says. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** One request in all, retries included, unless `requestTimeoutMs` says (issue 28: 30 s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Attempts per request in all, the first included, unless `retry.maxAttempts` says. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** The options with every default merged in (`resolveOptions`); what the client's parts read. */
export interface ResolvedOptions {
  readonly base: BaseUrl;
  readonly token: Secret;
  readonly clock: Clock;
  readonly random: () => number;
  readonly maxConcurrentRequests: number;
  readonly timeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
  readonly backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly maxRetryAfterMs: number;
  readonly onRequest: (entry: RequestLogEntry) => void;
  readonly onWarning: (message: string) => void;
  readonly onRetry: (notice: RetryNotice) => void;
  readonly scrub: (text: string) => string;
  readonly userAgent: string;
  readonly maxPages: number;
  readonly maxBodyBytes: number;
}

const positiveInt = (value: number | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(`${name} must be a whole number of at least 1 (got ${value})`);
  }
  return value;
};

const nonNegative = (value: number | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new UsageError(`${name} must be a number of at least 0 (got ${value})`);
  }
  return value;
};

const REDACTED = "(redacted)";

/** Conventions §8: public options optional, defaults merged once into fully resolved state. */
export const resolveOptions = (o: ApiClientOptions): ResolvedOptions => {
  const token = isSecret(o.token) ? o.token : new Secret(o.token, "SERVICE_TOKEN");
  if (!token.isResolved || token.reveal() === "") {
    throw new UsageError("no API token: set SERVICE_TOKEN or pass --token-file");
  }
  const tokenValue = token.reveal();
  // Decision (issue 21): a token with a line break or another control character inside it
  // (a token file saved with a Windows newline in the middle, two lines pasted together) is
  // refused before any request, with a plain message: an HTTP header cannot carry it, and
  // sending a part of it would only earn 401s. Surrounding whitespace, a trailing "\r\n"
  // included, is trimmed where the token is read (src/cli/common-options.ts).
  const bad = /[\r\n]/.test(tokenValue)
    ? "a line break"
    : /[\u0000-\u001f\u007f]/.test(tokenValue)
      ? "a control character"
      : /[^\u0020-\u00ff]/.test(tokenValue)
        ? "a character an HTTP header cannot carry"
        : undefined;
  if (bad !== undefined) {
    throw new UsageError(
      `the API token (${token.origin}) has ${bad} inside it; a token is one line of printable characters: fix its source (nothing was sent)`,
    );
  }
  const userScrub = o.scrub ?? ((s: string) => s);
  return {
    base: parseBaseUrl(o.baseUrl),
    token,
    clock: o.clock ?? createSystemClock(),
    random: o.random ?? Math.random,
    maxConcurrentRequests: positiveInt(o.maxConcurrentRequests, 10, "maxConcurrentRequests"),
    timeoutMs: positiveInt(o.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"),
    requestTimeoutMs: positiveInt(
      o.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
      "requestTimeoutMs",
    ),
    maxAttempts: positiveInt(o.retry?.maxAttempts, DEFAULT_MAX_ATTEMPTS, "retry.maxAttempts"),
    backoff: {
      baseDelayMs: nonNegative(o.retry?.baseDelayMs, 500, "retry.baseDelayMs"),
      maxDelayMs: nonNegative(o.retry?.maxDelayMs, 30_000, "retry.maxDelayMs"),
    },
    maxRetryAfterMs: nonNegative(o.retry?.maxRetryAfterMs, 300_000, "retry.maxRetryAfterMs"),
    onRequest: o.onRequest ?? (() => {}),
    onWarning: o.onWarning ?? (() => {}),
    onRetry: o.onRetry ?? (() => {}),
    // The token is always scrubbed, whatever the caller's scrubber does: a server that
    // echoes the credential back must not get it into an error message.
    scrub: (text) => userScrub(text).split(tokenValue).join(REDACTED),
    userAgent: o.userAgent ?? "waybill",
    maxPages: positiveInt(o.maxPages, MAX_PAGES, "maxPages"),
    maxBodyBytes: positiveInt(o.maxBodyBytes, 32 * 1024 * 1024, "maxBodyBytes"),
  };
};
