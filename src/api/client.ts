import type { Dispatcher } from "undici";
import { UsageError } from "../core/errors.js";
import { isSecret, type MaybeSecret, Secret } from "../core/secret.js";
import type { V3Resource } from "../core/wire.js";
import { agentConnectionOptions } from "./agent-options.js";
import { backoffCeilingMs } from "./backoff.js";
import { type BaseUrl, parseBaseUrl } from "./base-url.js";
import { createSystemClock } from "./clock.js";
import { describeErrorBody } from "./error-body.js";
import {
  ApiError,
  formatSeconds,
  InvalidRequestError,
  NetworkError,
  RequestAbortedError,
  ResponseFormatError,
  TimeoutError,
} from "./errors.js";
import { type CachedResponse, createEtagCache } from "./etag-cache.js";
import { startExchange } from "./exchange.js";
import { headerValue, type RawHeaders, readDeprecation, readRateLimit } from "./headers.js";
import {
  MAX_PAGES,
  newItems,
  pageLimitFor,
  readV2Page,
  readV3Page,
  sendLimitWithCursor,
} from "./pagination.js";
import { API_ROOT, apiPath, routeKey, routeTemplate } from "./request-target.js";
import {
  type AttemptResult,
  decideRetry,
  type Method,
  type RetryDecision,
} from "./retry-policy.js";
import { createRouteScheduler } from "./route-scheduler.js";
import { createSendSlots } from "./send-slots.js";
import type {
  Api,
  ApiGeneration,
  Clock,
  ListOptions,
  Query,
  QueryValue,
  ReadOnlyApi,
  RequestLogEntry,
  RequestOptions,
  RouteLane,
} from "./types.js";
import { loadUndici } from "./undici-lean.js";

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

/**
 * The longest one request can take, retries included, when the service never answers:
 * every attempt runs to its timeout, and each wait between them is at its backoff ceiling.
 * Waits the service asks for with a 429 come on top, each at most `maxRetryAfterMs`
 * (Decision: not folded in: a service that throttles is answering, and every such wait is
 * announced on stderr).
 */
export const requestTimeBoundMs = (
  timeoutMs: number,
  maxAttempts: number,
  backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number },
): number => {
  let total = timeoutMs * maxAttempts;
  for (let attempt = 1; attempt < maxAttempts; attempt++)
    total += backoffCeilingMs(attempt, backoff);
  return total;
};

/** Per attempt, unless `timeoutMs` says. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** One request in all, retries included, unless `requestTimeoutMs` says (issue 28: 30 s). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Attempts per request in all, the first included, unless `retry.maxAttempts` says. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** The full client: the Api contract plus `close()`. */
export type ApiClient = Api;

interface ResolvedOptions {
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
const resolveOptions = (o: ApiClientOptions): ResolvedOptions => {
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

/** What one send produced; classified by the retry loop. */
type Attempt =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: RawHeaders;
      readonly body: string;
      /** The body already parsed as JSON while deciding whether to cache it (parse once). */
      readonly parsed?: { readonly value: unknown };
    }
  | {
      readonly kind: "network";
      readonly reason: string;
      readonly retriable: boolean;
      readonly cause: unknown;
    }
  | { readonly kind: "truncated"; readonly cause: unknown }
  | { readonly kind: "too_large"; readonly status: number }
  | { readonly kind: "timeout" }
  | { readonly kind: "aborted" };

interface Success {
  readonly path: string;
  readonly status: number;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
}

interface Call {
  readonly method: Method;
  readonly api: ApiGeneration;
  readonly path: string;
  readonly query: Query | undefined;
  readonly body: unknown;
  readonly signal: AbortSignal | undefined;
  /** Sent ahead of queued ordinary requests (src/api/send-slots.ts). */
  readonly urgent?: boolean;
}

/**
 * The error codes of Node and undici that mean "the connection failed", and how to say so.
 * `retriable` applies to GET, PUT and DELETE only. Decision: a POST is not retried even on
 * "connection refused", although nothing was sent: the issue allows POST retries only on
 * 429, and apply already recovers an uncertain create by re-listing (design.md §1 Apply).
 */
const NETWORK_REASONS: Readonly<Record<string, { reason: string; retriable: boolean }>> = {
  ECONNREFUSED: { reason: "connection refused", retriable: true },
  ECONNRESET: { reason: "connection reset", retriable: true },
  EPIPE: { reason: "connection closed while sending", retriable: true },
  ETIMEDOUT: { reason: "connection timed out", retriable: true },
  EHOSTUNREACH: { reason: "host unreachable", retriable: true },
  ENETUNREACH: { reason: "network unreachable", retriable: true },
  EAI_AGAIN: { reason: "name lookup failed temporarily", retriable: true },
  // Decision: an unknown host is not retried: it will not appear within a backoff.
  ENOTFOUND: { reason: "host not found", retriable: false },
  UND_ERR_SOCKET: { reason: "connection dropped", retriable: true },
  UND_ERR_CLOSED: { reason: "the client was closed", retriable: false },
  UND_ERR_DESTROYED: { reason: "the client was closed", retriable: false },
  HPE_INVALID_CONSTANT: { reason: "malformed HTTP response", retriable: true },
  // undici refused to send the request (an invalid header value): sending again cannot help.
  UND_ERR_INVALID_ARG: {
    reason: "the request could not be sent (invalid header)",
    retriable: false,
  },
  ERR_INVALID_CHAR: { reason: "the request could not be sent (invalid header)", retriable: false },
  // A TLS failure is not retried (issue 21): a certificate does not become valid within a
  // backoff, and a handshake that fails fails the same way again.
  EPROTO: { reason: "TLS handshake failed: is the base URL's scheme right?", retriable: false },
};

/**
 * TLS failures by Node's (OpenSSL's) code: not retried; the message says what to check.
 * Decision: every certificate verification code and every `ERR_SSL_` / `ERR_TLS_` code is
 * a TLS failure, whether or not it is listed here by name.
 */
const TLS_REASONS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain has a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate cannot be verified",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate issuer is not trusted here",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: "the server did not answer in TLS (is it http://?)",
};

const tlsReason = (code: string): string | undefined => {
  const known = TLS_REASONS[code];
  if (known !== undefined) return known;
  if (/^(ERR_SSL_|ERR_TLS_)|CERT/.test(code)) return "the TLS connection failed";
  return undefined;
};

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

const errorCode = (err: unknown): string | undefined => {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
};

/**
 * Codes that mean the connection was never made: the message says the host could not be
 * reached, and where its address comes from.
 */
const UNREACHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
]);

/**
 * What a transport failure was, in words that name the host (`host:port` of the base URL,
 * which holds no credentials: src/api/base-url.ts refuses them), so a user sees which
 * address failed: `could not reach 127.0.0.1:4010 (connection refused, ECONNREFUSED)`.
 */
const classifyFailure = (err: unknown, host: string): Attempt => {
  const code = errorCode(err);
  if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return { kind: "truncated", cause: err };
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: "timeout" };
  const tls = code !== undefined ? tlsReason(code) : undefined;
  if (tls !== undefined) {
    return {
      kind: "network",
      reason: `TLS failed with ${host}: ${tls} (${code}); check --base-url, or trust the certificate with NODE_EXTRA_CA_CERTS`,
      retriable: false,
      cause: err,
    };
  }
  const known = code !== undefined ? NETWORK_REASONS[code] : undefined;
  if (known && code !== undefined && UNREACHED.has(code)) {
    return {
      kind: "network",
      ...known,
      reason: `could not reach ${host} (${known.reason}, ${code}); check --base-url or SERVICE_BASE_URL, and that the service runs there`,
      cause: err,
    };
  }
  if (known) {
    return {
      kind: "network",
      ...known,
      reason: `${known.reason} (${code}) with ${host}`,
      cause: err,
    };
  }
  if (code?.startsWith("HPE_")) {
    return {
      kind: "network",
      reason: `malformed HTTP response (${code}) from ${host}`,
      retriable: true,
      cause: err,
    };
  }
  // Decision: an unrecognised transport failure is reported as a network error and retried
  // like a reset (for idempotent methods only): it happened below HTTP, so no answer was read.
  return {
    kind: "network",
    reason: `request to ${host} failed${code ? ` (${code})` : ""}`,
    retriable: true,
    cause: err,
  };
};

/**
 * A 401's hint (spec: api-v3.md Authentication: 401 is a missing or invalid credential):
 * where this token came from and the two ways to give another (design.md §1 Commands).
 */
const tokenHint = (origin: string): string => {
  const from = origin.startsWith("file:")
    ? `read from --token-file ${origin.slice("file:".length)}`
    : origin.endsWith("SERVICE_TOKEN")
      ? "from SERVICE_TOKEN"
      : undefined;
  return `the service does not accept the API token${from ? ` (${from})` : ""}: set a valid token in SERVICE_TOKEN or pass --token-file PATH`;
};

export { formatSeconds };

/** The body parsed as JSON, or undefined when it is empty or not JSON. */
const tryParseJson = (text: string): { readonly value: unknown } | undefined => {
  if (text.trim() === "") return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
};

/**
 * JSON for a request body. Decision: a Secret anywhere in the body is revealed here and only here, so
 * kinds may put Secrets into bodies and nothing before the wire ever holds the value
 * (design.md §1 "Secrets"); `Secret.toJSON` alone would send "(sensitive)".
 */
const serialiseBody = (body: unknown): string =>
  JSON.stringify(body, function (this: unknown, key: string, value: unknown) {
    const raw = (this as Record<string, unknown>)[key];
    return isSecret(raw) ? raw.reveal() : value;
  });

/**
 * Create the API client (issue 2 §2). One undici Agent (keep-alive) per client, one ETag
 * cache, one route scheduler (a budget per route), one concurrency limit; nothing
 * is shared between clients. `close()` ends the Agent.
 */
export const createApiClient = (options: ApiClientOptions): ApiClient => {
  const o = resolveOptions(options);
  const { clock } = o;
  // Keep-alive with a margin that still reuses a 1 s server keep-alive, and a pool bounded
  // by the parallelism (src/api/agent-options.ts). undici never follows redirects unless a
  // redirect interceptor is installed, and none is.
  const ownAgent =
    options.dispatcher === undefined
      ? new (loadUndici().Agent)(agentConnectionOptions(o.maxConcurrentRequests))
      : undefined;
  const agent: Dispatcher = options.dispatcher ?? (ownAgent as Dispatcher);
  const decoder = new TextDecoder();
  // `host:port` for messages: the base URL holds no credentials (src/api/base-url.ts).
  const host = new URL(o.base.origin).host;
  const slots = createSendSlots(o.maxConcurrentRequests);
  const cache = createEtagCache();
  const scheduler = createRouteScheduler({ clock, maxPauseMs: o.maxRetryAfterMs });
  const warnedRoutes = new Set<string>();
  let closing: Promise<void> | undefined;

  const headersFor = (call: Call, etag: string | undefined): Record<string, string> => {
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": o.userAgent,
    };
    // spec: api-v3.md Authentication: V3 takes `Authorization: Bearer`, V2 `Service-Token`;
    // rule 1: never in a query parameter.
    if (call.api === "v3") headers.authorization = `Bearer ${o.token.reveal()}`;
    else headers["service-token"] = o.token.reveal();
    if (call.body !== undefined) headers["content-type"] = "application/json";
    if (etag !== undefined) headers["if-none-match"] = etag;
    return headers;
  };

  /**
   * What a response changes for every request of the client, applied inside the send's
   * concurrency slot: the ETag cache and the rate-limit pacing (a 429's pause is the
   * policy's `throttleMs`, applied by `execute`).
   */
  const steer = (
    sent: { readonly status: number; readonly headers: RawHeaders; readonly body: string },
    method: Method,
    fullPath: string,
    route: string,
  ): { readonly value: unknown } | undefined => {
    scheduler.observe(route, readRateLimit(sent.headers), sent.status);
    if (sent.status !== 200 || method !== "GET") return undefined;
    const etag = headerValue(sent.headers, "etag");
    if (etag === undefined) return undefined;
    // Only a JSON body is cached; the parse is handed back so the body is parsed once
    // (issue 8: JSON.parse of every page twice was a measurable share of a plan's CPU).
    const parsed = tryParseJson(sent.body);
    if (parsed !== undefined) cache.set(fullPath, { etag, body: sent.body });
    return parsed;
  };

  /** One send, inside the concurrency limit: never throws, always an Attempt. */
  const sendOnce = async (
    call: Call,
    fullPath: string,
    payload: string | undefined,
    etag: string | undefined,
    timeoutMs: number,
  ): Promise<Attempt> => {
    if (call.signal?.aborted) return { kind: "aborted" };
    if (closing !== undefined && ownAgent === undefined) {
      // An injected dispatcher stays open after close(); this client sends nothing more.
      return {
        kind: "network",
        reason: "the client was closed",
        retriable: false,
        cause: undefined,
      };
    }
    const exchange = startExchange(
      agent,
      {
        origin: o.base.origin,
        path: `${o.base.pathPrefix}${fullPath}`,
        method: call.method,
        headers: headersFor(call, etag),
        body: payload,
      },
      o.maxBodyBytes,
    );
    let timedOut = false;
    const onAbort = (): void => exchange.abort();
    call.signal?.addEventListener("abort", onAbort, { once: true });
    // Decision: the per-attempt timeout is a real timer, not the injectable clock: it bounds
    // real network time, while the clock governs waits the client chooses (pauses, backoff).
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort();
    }, timeoutMs);
    try {
      const result = await exchange.done;
      switch (result.kind) {
        case "complete":
          return {
            kind: "response",
            status: result.status,
            headers: result.headers,
            // TextDecoder drops a UTF-8 BOM, as undici's body.text() does.
            body: decoder.decode(result.body),
          };
        case "too_large":
          return { kind: "too_large", status: result.status };
        case "aborted":
          return timedOut ? { kind: "timeout" } : { kind: "aborted" };
        case "failed":
          // The status line and headers arrived but the body broke off: a truncated answer.
          if (result.headersRead) return { kind: "truncated", cause: result.error };
          return classifyFailure(result.error, host);
      }
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  };

  const warnIfDeprecated = (method: Method, fullPath: string, headers: RawHeaders): void => {
    const notice = readDeprecation(headers);
    if (notice === undefined) return;
    const route = `${method} ${routeTemplate(fullPath.split("?")[0] ?? fullPath)}`;
    if (warnedRoutes.has(route)) return;
    warnedRoutes.add(route);
    const parts = [
      notice.sunset ? `it will be removed on ${o.scrub(notice.sunset)}` : undefined,
      notice.link ? `see ${o.scrub(notice.link)}` : undefined,
    ].filter((p): p is string => p !== undefined);
    o.onWarning(
      `the API route ${route} is deprecated${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`,
    );
  };

  const parseJson = (call: Call, fullPath: string, status: number, text: string): unknown => {
    if (text.trim() === "") return undefined;
    try {
      return JSON.parse(text);
    } catch (cause) {
      const snippet = describeErrorBody(text, o.scrub).bodySnippet;
      throw new ResponseFormatError(
        {
          method: call.method,
          path: fullPath,
          status,
          reason: `the body is not valid JSON${snippet ? ` (it reads: ${snippet})` : ""}`,
        },
        { cause },
      );
    }
  };

  const waitOrAbort = async (wait: Promise<void>): Promise<boolean> => {
    try {
      await wait;
      return true;
    } catch {
      return false;
    }
  };

  /** The policy's view of one attempt (src/api/retry-policy.ts). */
  const policyResult = (a: Exclude<Attempt, { kind: "aborted" }>): AttemptResult => {
    switch (a.kind) {
      case "response":
        return { kind: "response", status: a.status, headers: a.headers };
      case "network":
        return { kind: "network", retriable: a.retriable };
      default:
        return { kind: a.kind };
    }
  };

  /**
   * Send with retries (issue 2 §2; spec: api-v3.md Limits, Idempotency). What to do after
   * each attempt is decided by `decideRetry` (src/api/retry-policy.ts); this loop only
   * waits, sends and builds the typed error. A 429 holds its route only (a V2 429: every V2
   * route, V2's limit being per token).
   */
  const execute = async (call: Call): Promise<Success> => {
    const fullPath = apiPath(call.api, call.path, call.query);
    let payload: string | undefined;
    try {
      payload = call.body === undefined ? undefined : serialiseBody(call.body);
    } catch (cause) {
      // Never echo the body: it may hold secrets. Only say what went wrong.
      throw new InvalidRequestError(
        `${call.method} ${fullPath}: the request body cannot be sent (${
          cause instanceof Error ? cause.message : "not serialisable"
        })`,
      );
    }
    const idempotent = call.method !== "POST";
    const aborted = (): RequestAbortedError =>
      new RequestAbortedError(`${call.method} ${fullPath} was aborted`);

    // Whether an earlier attempt may have been processed although no success was read
    // (a 5xx, a timeout, a dropped connection): see the DELETE 404 rule of the policy.
    let uncertain = false;
    let attempt = 1;
    // The request's bound (`requestTimeoutMs`): what its attempts and backoff waits used so
    // far, each attempt's own timeout (cut to what is left), and whether the bound ended it.
    let spentMs = 0;
    let attemptTimeoutMs = Math.min(o.timeoutMs, o.requestTimeoutMs);
    let boundEnded = false;
    // The route's budget is kept apart from every other route's (src/api/route-scheduler.ts).
    const route = routeKey(call.method, call.api, call.path);
    for (;;) {
      if (!(await waitOrAbort(scheduler.waitTurn(route, call.api === "v2", call.signal)))) {
        throw aborted();
      }
      let cached: CachedResponse | undefined;
      let started = clock.now();
      const step = await slots.run(() => {
        // The send time is decided here, at the send: a 429 or a budget spent while this
        // request queued for a slot sends it back to wait.
        if (!scheduler.tryTake(route, call.api === "v2")) return Promise.resolve(undefined);
        // Read the cache at send time: a request queued behind an identical one then
        // revalidates the answer that one just stored.
        cached = call.method === "GET" ? cache.get(fullPath) : undefined;
        started = clock.now();
        // Real time, like the attempt's timer: the bound is about the user's wait.
        const sentAt = performance.now();
        return sendOnce(call, fullPath, payload, cached?.etag, attemptTimeoutMs).then((sent) => {
          spentMs += performance.now() - sentAt;
          if (sent.kind !== "response") scheduler.finished(route);
          if (sent.kind === "aborted") return { sent, decision: undefined };
          const decision =
            sent.kind === "response" && sent.status === 304 && call.method === "GET"
              ? undefined
              : decideRetry({
                  method: call.method,
                  idempotent,
                  attempt,
                  maxAttempts: o.maxAttempts,
                  result: policyResult(sent),
                  uncertainBefore: uncertain,
                  now: clock.now(),
                  jitter:
                    sent.kind === "response" && sent.status >= 200 && sent.status < 300
                      ? 0
                      : o.random(),
                  backoff: o.backoff,
                  maxRetryAfterMs: o.maxRetryAfterMs,
                });
          // Everything that steers the OTHER requests happens before the slot is released:
          // the slots start the next queued send as soon as this function settles, so a
          // pause set any later would let that send through into the limit (or the 429).
          if (decision !== undefined && "throttleMs" in decision && decision.throttleMs) {
            scheduler.throttle(route, decision.throttleMs, call.api === "v2");
          }
          if (sent.kind !== "response") return { sent, decision };
          const parsed = steer(sent, call.method, fullPath, route);
          scheduler.finished(route);
          return { sent: parsed === undefined ? sent : { ...sent, parsed }, decision };
        });
      }, call.urgent);
      if (step === undefined) continue;
      const { sent: result } = step;
      let { decision } = step;
      if (decision?.action === "retry" && decision.throttleMs === undefined) {
        // Decision: a retry starts only when, after its backoff wait, a tenth of the bound
        // is still left for it (a shorter attempt would time out on a healthy service);
        // otherwise the request fails now with what the last attempt got. A 429's retry is
        // not cut: the service answered (see `requestTimeoutMs`).
        const left = o.requestTimeoutMs - spentMs - decision.waitMs;
        if (left < o.requestTimeoutMs / 10) {
          boundEnded = true;
          decision = {
            action: "fail",
            outcome: decision.uncertain || uncertain ? "unknown" : "not_done",
            permanent: false,
          };
        }
      }
      o.onRequest({
        method: call.method,
        path: fullPath,
        status: result.kind === "response" ? result.status : "error",
        ms: Math.max(0, clock.now() - started),
        attempt,
      });
      if (result.kind === "aborted") throw aborted();
      if (result.kind === "response") warnIfDeprecated(call.method, fullPath, result.headers);

      if (decision === undefined) {
        // A 304 to a GET (spec: api-v3.md Errors: 304 "conditional request matched the ETag").
        // Decision: a 304 to a request that sent no validator cannot be served: bad_response.
        if (cached === undefined) {
          throw new ResponseFormatError({
            method: call.method,
            path: fullPath,
            status: 304,
            reason: "304 Not Modified to a request that sent no If-None-Match",
          });
        }
        return { path: fullPath, status: 200, body: parseJson(call, fullPath, 304, cached.body) };
      }
      if (decision.action === "retry") {
        if (decision.uncertain) uncertain = true;
        o.onRetry({
          method: call.method,
          path: fullPath,
          reason:
            result.kind === "timeout"
              ? `timed out after ${formatSeconds(attemptTimeoutMs)}`
              : result.kind === "network"
                ? result.reason
                : decision.reason,
          nextAttempt: attempt + 1,
          maxAttempts: o.maxAttempts,
          waitMs: decision.throttleMs ?? decision.waitMs,
          boundMs: Math.min(
            o.requestTimeoutMs,
            requestTimeBoundMs(o.timeoutMs, o.maxAttempts, o.backoff),
          ),
        });
        if (decision.waitMs > 0 || decision.throttleMs === undefined) {
          if (!(await waitOrAbort(clock.sleep(decision.waitMs, call.signal)))) throw aborted();
          spentMs += decision.waitMs;
        }
        attemptTimeoutMs = Math.max(
          1,
          Math.min(o.timeoutMs, Math.floor(o.requestTimeoutMs - spentMs)),
        );
        attempt++;
        continue;
      }
      if (decision.action === "done") {
        if (result.kind !== "response") throw new Error("unreachable: done without a response");
        if (decision.goneAlready) return { path: fullPath, status: result.status, body: undefined };
        const value = result.parsed
          ? result.parsed.value
          : parseJson(call, fullPath, result.status, result.body);
        return { path: fullPath, status: result.status, body: value };
      }
      throw failure(call, fullPath, attempt, result, decision, {
        attemptTimeoutMs,
        // Whether the bound, not only the attempt's own timeout, ended it: no time was left
        // to retry, the attempt was cut to what was left, or it had the whole bound.
        bound:
          boundEnded || attemptTimeoutMs < o.timeoutMs || attemptTimeoutMs >= o.requestTimeoutMs,
      });
    }
  };

  /** The typed error for a request the policy gave up on. */
  const failure = (
    call: Call,
    fullPath: string,
    attempt: number,
    result: Exclude<Attempt, { kind: "aborted" }>,
    decision: Extract<RetryDecision, { action: "fail" }>,
    timing: { readonly attemptTimeoutMs: number; readonly bound: boolean },
  ): Error => {
    switch (result.kind) {
      case "timeout":
        return new TimeoutError({
          method: call.method,
          path: fullPath,
          attempts: attempt,
          host,
          // The request's bound ended it (no time left for another attempt), or only the
          // attempt's own timeout did (a client with a shorter per-attempt timeout).
          ...(timing.bound
            ? { timeoutMs: o.requestTimeoutMs, boundMs: o.requestTimeoutMs }
            : { timeoutMs: timing.attemptTimeoutMs }),
        });
      case "network":
        return new NetworkError(
          { method: call.method, path: fullPath, reason: result.reason, attempts: attempt },
          { cause: result.cause },
        );
      case "truncated":
        // A body shorter than its Content-Length: the connection broke mid-answer.
        return new ResponseFormatError(
          {
            method: call.method,
            path: fullPath,
            reason: `the body was cut off before its end${attempt > 1 ? ` (after ${attempt} attempts)` : ""}`,
          },
          { cause: result.cause },
        );
      case "too_large":
        return new ResponseFormatError({
          method: call.method,
          path: fullPath,
          status: result.status,
          reason: `the body is larger than ${o.maxBodyBytes} bytes; not read further`,
        });
      case "response":
        break;
    }
    const { status, headers, body } = result;
    const fields = { method: call.method, path: fullPath, status, attempts: attempt };
    if (decision.retryAfterTooLong !== undefined) {
      return new ApiError({
        ...fields,
        ...describeErrorBody(body, o.scrub),
        retryAfterMs: decision.retryAfterTooLong,
      });
    }
    if (status >= 300 && status < 400) {
      // Never follow a redirect: the next hop could be another host, and the token would
      // go with it. The Location is shown so the user can fix the base URL.
      const location = headerValue(headers, "location");
      return new ApiError({
        ...fields,
        ...describeErrorBody(body, o.scrub),
        location: location !== undefined ? o.scrub(location) : "(no Location)",
      });
    }
    return new ApiError({
      ...fields,
      ...describeErrorBody(body, o.scrub),
      ...(status === 401 ? { hint: tokenHint(o.token.origin) } : {}),
    });
  };

  /** Run `execute`, turning any stray failure into a typed error (never a raw exception). */
  const run = async (call: Call): Promise<Success> => {
    try {
      return await execute(call);
    } catch (err) {
      if (
        err instanceof ApiError ||
        err instanceof NetworkError ||
        err instanceof TimeoutError ||
        err instanceof ResponseFormatError ||
        err instanceof RequestAbortedError ||
        err instanceof InvalidRequestError
      ) {
        throw err;
      }
      throw new NetworkError(
        {
          method: call.method,
          path: `${API_ROOT[call.api]}${call.path}`,
          reason: `unexpected client failure: ${o.scrub(err instanceof Error ? err.message : String(err))}`,
          attempts: 1,
        },
        { cause: err },
      );
    }
  };

  const get = async <T>(
    api: ApiGeneration,
    path: string,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({
      method: "GET",
      api,
      path,
      query,
      body: undefined,
      signal: options?.signal,
    });
    // Decision: a GET that answers 2xx with an empty body is malformed: every V3 and V2 read
    // the client is used for returns a JSON document.
    if (res.body === undefined) {
      throw new ResponseFormatError({
        method: "GET",
        path: res.path,
        status: res.status,
        reason: "the body is empty",
      });
    }
    return res.body as T;
  };

  /**
   * Read every page of a collection or fail; never a partial list (design.md §1
   * "Ownership"). `readPage` checks one page; `pageQuery` builds the query for a cursor.
   */
  const listAll = async (
    api: ApiGeneration,
    path: string,
    pageQuery: (cursor: string | undefined) => Query,
    readPage: (body: unknown) => ReturnType<typeof readV3Page>,
    signal: AbortSignal | undefined,
    onPage: ((items: readonly unknown[]) => void) | undefined,
    urgent = false,
  ): Promise<unknown[]> => {
    const items: unknown[] = [];
    const seen = new Set<string>();
    const itemsSeen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const res = await run({
        method: "GET",
        api,
        path,
        query: pageQuery(cursor),
        body: undefined,
        signal,
        // A second page means a listing that spans pages: its walk gates whatever its items
        // release, so it goes ahead of the queue (src/api/send-slots.ts).
        urgent: urgent || cursor !== undefined,
      });
      const read = readPage(res.body);
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

  const post = async <T>(
    api: ApiGeneration,
    path: string,
    body?: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({ method: "POST", api, path, query, body, signal: options?.signal });
    return res.body as T;
  };

  const put = async <T>(
    api: ApiGeneration,
    path: string,
    body: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({ method: "PUT", api, path, query, body, signal: options?.signal });
    return res.body as T;
  };

  const del = async <T = unknown>(
    api: ApiGeneration,
    path: string,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T | undefined> => {
    const res = await run({
      method: "DELETE",
      api,
      path,
      query,
      body: undefined,
      signal: options?.signal,
    });
    return res.body as T | undefined;
  };

  /** A route's budget for apply's scheduler (src/api/types.ts RouteLane). */
  const lane = (method: string, api: ApiGeneration, path: string): RouteLane => {
    const key = routeKey(method, api, path);
    const v2 = api === "v2";
    return {
      key,
      available: () => scheduler.available(key, v2),
      whenAvailable: (signal) => scheduler.waitTurn(key, v2, signal),
    };
  };

  // A new object holding only the read methods: the write methods do not exist on it at
  // runtime, so a plan cannot write by construction (design.md §2), not merely by type.
  const readOnlyView: ReadOnlyApi = Object.freeze({ get, listV3, listV2 });

  return Object.freeze({
    get,
    listV3,
    listV2,
    post,
    put,
    delete: del,
    readOnly: () => readOnlyView,
    lane,
    close: () => {
      // Idempotent: a second close() waits for the first instead of failing.
      closing ??= ownAgent ? ownAgent.close() : Promise.resolve();
      return closing;
    },
  });
};
