/**
 * The client's retry policy as data (issue 16, "API client policy as data"): one pure
 * function from what one attempt produced to what the client does next. No I/O, no clock, no
 * randomness of its own (the jitter draw and `now` are inputs), so every rule is a row of a
 * table test (test/unit/client-retry-policy.test.ts). The transport (src/api/client.ts)
 * only sends, classifies the result into an `AttemptResult`, and carries the decision out.
 *
 * spec: api-v3.md Limits ("on 429 wait Retry-After seconds then back off exponentially";
 * "GET, PUT, DELETE are idempotent. POST is replayable only where its own description says
 * so"), Errors (401 invalid credential, 403 no access), api-v2-v1.md Errors §2.
 */
import { type BackoffPolicy, backoffDelayMs } from "./backoff.js";
import { headerValue, parseRetryAfter, type RawHeaders } from "./headers.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What one send produced, as the transport classified it. */
export type AttemptResult =
  | { readonly kind: "response"; readonly status: number; readonly headers: RawHeaders }
  /** Nothing (or not all) came back in time. */
  | { readonly kind: "timeout" }
  /** The connection failed below HTTP; `retriable` is false for failures a wait cannot fix. */
  | { readonly kind: "network"; readonly retriable: boolean }
  /** The status line and headers arrived, the body broke off before its end. */
  | { readonly kind: "truncated" }
  /** The body was larger than the client reads. */
  | { readonly kind: "too_large" };

export interface RetryInput {
  readonly method: Method;
  /**
   * Whether sending the request again cannot do harm. Decision: GET, PUT and DELETE; POST is
   * never retried after an uncertain outcome, even where a given POST is replayable: the
   * client does not know which are, and apply re-lists before a re-send (design.md §1 Apply).
   */
  readonly idempotent: boolean;
  /** 1-based number of the attempt that produced `result`. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly result: AttemptResult;
  /** Whether an earlier attempt of this request may have been processed (see "done"). */
  readonly uncertainBefore: boolean;
  /** Now, in ms (for an HTTP-date Retry-After). */
  readonly now: number;
  /** One draw in [0, 1) for the backoff's full jitter. */
  readonly jitter: number;
  readonly backoff: BackoffPolicy;
  /** The longest Retry-After the client agrees to wait. */
  readonly maxRetryAfterMs: number;
}

/** Why a request is sent again, in words for the one stderr line per retry (issue 21). */
export type RetryReason = string;

export type RetryDecision =
  /** A 2xx (or a DELETE's 404 after an uncertain attempt: the item is gone either way). */
  | { readonly action: "done"; readonly goneAlready: boolean }
  /**
   * Send again after `waitMs` (this request's own wait). `uncertain`: the attempt may have
   * been processed (a 5xx, a timeout, a dropped connection), which matters for a DELETE that
   * then finds nothing. `throttleMs` (a 429): the service throttles the route, so every
   * request of that route rests that long (src/api/client.ts), this one included; its own
   * `waitMs` is then 0.
   */
  | {
      readonly action: "retry";
      readonly waitMs: number;
      readonly uncertain: boolean;
      readonly reason: RetryReason;
      readonly throttleMs?: number;
    }
  /**
   * Stop: the error goes to the caller. `outcome` says what the caller may assume:
   * - `not_done`: the service did not act (4xx, 429, a body not read for size...);
   * - `unknown`: it may have acted (a 5xx, a timeout or a dropped connection on a POST, or
   *   on any method once attempts run out). A non-idempotent create in that state must be
   *   re-listed before it is sent again; the client surfaces it as TimeoutError,
   *   NetworkError or an ApiError with a 5xx status (src/apply/executor.ts `isUncertain`).
   * `permanent`: a re-run cannot fix it without a change by the user (a 3xx, a 4xx other
   * than 429, a TLS or credential problem).
   */
  | {
      readonly action: "fail";
      readonly outcome: "not_done" | "unknown";
      readonly permanent: boolean;
      /** A 429 whose Retry-After is longer than `maxRetryAfterMs`. */
      readonly retryAfterTooLong?: number;
      /** A 429 on the last attempt still slows the route for the requests after it. */
      readonly throttleMs?: number;
    };

/** Statuses after which an idempotent request is retried (issue 2 §2). */
const RETRIABLE_STATUS = new Set([500, 502, 503, 504]);

const backoff = (i: RetryInput): number => backoffDelayMs(i.attempt, i.backoff, () => i.jitter);

/** An uncertain failure: retried when idempotent and attempts are left, else "unknown". */
const uncertainFailure = (i: RetryInput, reason: RetryReason): RetryDecision =>
  i.idempotent && i.attempt < i.maxAttempts
    ? { action: "retry", waitMs: backoff(i), uncertain: true, reason }
    : { action: "fail", outcome: "unknown", permanent: false };

export const decideRetry = (i: RetryInput): RetryDecision => {
  const r = i.result;
  switch (r.kind) {
    case "timeout":
      return uncertainFailure(i, "timed out");
    case "truncated":
      return uncertainFailure(i, "the answer was cut off");
    case "network":
      if (!r.retriable) {
        // Nothing a wait fixes (host not found, TLS refused, a token the HTTP layer
        // refuses): nothing reached the service's application.
        return { action: "fail", outcome: "not_done", permanent: true };
      }
      return uncertainFailure(i, "the connection failed");
    case "too_large":
      // Decision: not retried: the service would most likely send the same body again.
      return { action: "fail", outcome: "not_done", permanent: false };
    case "response":
      break;
  }
  const { status, headers } = r;
  if (status >= 200 && status < 300) return { action: "done", goneAlready: false };
  if (status === 429) {
    // spec: api-v3.md Limits: a 429 was not processed, so even a POST is sent again.
    // Decision: with Retry-After the wait is exactly that (the server knows when it takes
    // the route again); without it, the backoff for this attempt. A Retry-After beyond
    // maxRetryAfterMs fails at once (and slows nobody) rather than a CI job hanging
    // silently for an hour.
    const retryAfterMs = parseRetryAfter(headerValue(headers, "retry-after"), i.now);
    if (retryAfterMs !== undefined && retryAfterMs > i.maxRetryAfterMs) {
      return {
        action: "fail",
        outcome: "not_done",
        permanent: false,
        retryAfterTooLong: retryAfterMs,
      };
    }
    const throttleMs = retryAfterMs ?? backoff(i);
    if (i.attempt >= i.maxAttempts) {
      return { action: "fail", outcome: "not_done", permanent: false, throttleMs };
    }
    return {
      action: "retry",
      waitMs: 0,
      uncertain: false,
      reason: "rate limited (429)",
      throttleMs,
    };
  }
  if (RETRIABLE_STATUS.has(status)) {
    if (!i.idempotent || i.attempt >= i.maxAttempts) {
      return { action: "fail", outcome: "unknown", permanent: false };
    }
    // Decision: a Retry-After on a 5xx (typically 503) is honoured for this request when it
    // is longer than the backoff; it does not slow the route.
    const retryAfterMs = parseRetryAfter(headerValue(headers, "retry-after"), i.now);
    return {
      action: "retry",
      waitMs: Math.max(backoff(i), Math.min(retryAfterMs ?? 0, i.maxRetryAfterMs)),
      uncertain: true,
      reason: `the service answered ${status}`,
    };
  }
  if (status === 404 && i.method === "DELETE" && i.uncertainBefore) {
    // Decision: a retried DELETE that finds nothing is a success: the earlier attempt most
    // likely did the delete before failing ("commit then fail"), and either way the item is
    // gone. A first-attempt 404 is still an error (the caller's view was wrong).
    return { action: "done", goneAlready: true };
  }
  if (status >= 500) return { action: "fail", outcome: "unknown", permanent: false };
  // Every other answer (3xx never followed, 4xx) means the service did not act. 401 and
  // 403 (spec: api-v3.md Authentication rule 5) and every other 4xx are permanent: the same
  // request with the same token cannot succeed on a re-run. 304 is handled by the caller.
  // A redirect (never followed) is a wrong base URL: permanent too.
  return { action: "fail", outcome: "not_done", permanent: status >= 300 && status < 500 };
};

/** 401 or 403: the token is missing, invalid, or may not do this (spec: Authentication 5). */
export const isCredentialStatus = (status: number): boolean => status === 401 || status === 403;
