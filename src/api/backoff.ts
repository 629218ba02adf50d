/** How long to wait between attempts (issue 2 §2: exponential backoff with jitter, bounded). */
export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * The ceiling of the wait after failed attempt number `attempt` (1-based):
 * `min(maxDelayMs, baseDelayMs * 2^(attempt-1))`.
 */
export const backoffCeilingMs = (attempt: number, policy: BackoffPolicy): number => {
  // The exponent is capped so 2^exponent stays finite (0 * Infinity would be NaN); past
  // 2^52 the maximum has long been reached anyway.
  const exponent = Math.min(52, Math.max(0, Math.floor(attempt) - 1));
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
};

/**
 * "Full jitter" (a uniformly random wait between 0 and the ceiling) so that many clients
 * failing together do not retry in lock-step. `random` is injectable for tests; values
 * outside [0, 1) are clamped so a bad source cannot exceed the ceiling.
 */
export const backoffDelayMs = (
  attempt: number,
  policy: BackoffPolicy,
  random: () => number,
): number => {
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * backoffCeilingMs(attempt, policy));
};
