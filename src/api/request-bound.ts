import { backoffCeilingMs } from "./backoff.js";
import type { ResolvedOptions } from "./client-options.js";

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

/** The options the bound of one request reads. */
type BoundOptions = Pick<
  ResolvedOptions,
  "timeoutMs" | "requestTimeoutMs" | "maxAttempts" | "backoff"
>;

/** The first attempt's timeout: the per-attempt timeout, cut to the bound if that is shorter. */
export const firstAttemptTimeoutMs = (o: BoundOptions): number =>
  Math.min(o.timeoutMs, o.requestTimeoutMs);

/**
 * Decision: a retry starts only when, after its backoff wait, a tenth of the bound is still
 * left for it (a shorter attempt would time out on a healthy service); otherwise the request
 * fails now with what the last attempt got. A 429's retry is not cut: the service answered
 * (see `requestTimeoutMs`). True when no retry may start.
 */
export const noTimeLeftForRetry = (o: BoundOptions, spentMs: number, waitMs: number): boolean => {
  const left = o.requestTimeoutMs - spentMs - waitMs;
  return left < o.requestTimeoutMs / 10;
};

/** The next attempt's timeout: what is left of the bound, at most the per-attempt timeout. */
export const nextAttemptTimeoutMs = (o: BoundOptions, spentMs: number): number =>
  Math.max(1, Math.min(o.timeoutMs, Math.floor(o.requestTimeoutMs - spentMs)));

/**
 * Whether the bound, not only the attempt's own timeout, ended a request: no time was left
 * to retry, the attempt was cut to what was left, or it had the whole bound.
 */
export const boundEndedRequest = (
  o: BoundOptions,
  attemptTimeoutMs: number,
  noTimeWasLeft: boolean,
): boolean =>
  noTimeWasLeft || attemptTimeoutMs < o.timeoutMs || attemptTimeoutMs >= o.requestTimeoutMs;

/** The longest one request can take in all, as a retry notice reports it. */
export const noticedBoundMs = (o: BoundOptions): number =>
  Math.min(o.requestTimeoutMs, requestTimeBoundMs(o.timeoutMs, o.maxAttempts, o.backoff));
