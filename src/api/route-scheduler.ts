import { V2_REQUESTS_PER_HOUR } from "../core/wire.js";
import { raceAbort } from "./clock.js";
import type { RateLimitState } from "./headers.js";
import type { Clock } from "./types.js";

/**
 * When a request may be sent, per route (issue 22 item 4; spec: api-v3.md Limits: "rate
 * limits: per route ... on 429 wait Retry-After seconds then back off exponentially; headers
 * RateLimit-Policy and RateLimit report the policy and current state"). One scheduler per
 * client, never shared between clients (conventions.md: no module-level rate limiter).
 *
 * - Each route (`GET /api/v3/contexts/{id}/env-vars`) keeps its own budget: a 429 or an
 *   empty `RateLimit` slows that route only; other routes keep full speed.
 * - The send time is decided when the request is about to be sent, from the budget at that
 *   moment: nothing is reserved in advance, so a request that is aborted, or a budget the
 *   service reports as larger, never leaves a slot unused.
 * - The budget is a token bucket estimated from the headers (see `observe`), refilled
 *   continuously; a route with no headers is unlimited until a 429 says otherwise.
 * - V2's documented budget (api-v2-v1.md Limits: 5,000 requests per hour per token) is
 *   counted over a sliding hour for every V2 request; past it, V2 requests wait (pace)
 *   instead of failing.
 * - V2's limit is per token, not per route (same line), so a V2 429 holds every V2 route
 *   for its Retry-After, not only its own: the token's budget is empty for all of them.
 */
export interface RouteScheduler {
  /** Resolve when `route` has budget for one request (nothing is taken or reserved). */
  waitTurn(route: string, v2: boolean, signal?: AbortSignal): Promise<void>;
  /**
   * At the moment of sending (inside the concurrency slot, synchronously): take one
   * request's budget and count it in flight, or say no (go back to `waitTurn`).
   */
  tryTake(route: string, v2: boolean): boolean;
  /** A request of `route` got its answer (or failed): it is no longer in flight. */
  finished(route: string): void;
  /**
   * Hold `route` for `ms` from now (a 429); never shortens a hold. With `v2`, every V2
   * route is held as well (V2's limit is per token: api-v2-v1.md Limits).
   */
  throttle(route: string, ms: number, v2?: boolean): void;
  /**
   * Adjust `route`'s budget to a response's rate-limit state; `status` (the response's)
   * counts the route's answered requests for the estimate a 429 without headers makes.
   */
  observe(route: string, state: RateLimitState | undefined, status?: number): void;
  /**
   * How many requests of `route` could be sent now without waiting (nothing is taken):
   * `Infinity` while the service has said nothing of the route, 0 while it is held.
   * Apply's scheduler asks it to run other routes' work while this one waits (issue 22).
   */
  available(route: string, v2: boolean): number;
  /** V2 requests counted in the last hour (for the plan's budget note and tests). */
  v2InLastHour(): number;
}

export interface RouteSchedulerOptions {
  readonly clock: Clock;
  /** The longest a `RateLimit` reset may hold a route (a longer one is cut to this). */
  readonly maxPauseMs: number;
  /** api-v2-v1.md Limits: 5,000 per hour per token. */
  readonly v2PerHour?: number;
}

interface RouteState {
  /** Estimated requests left; undefined while the service has said nothing. */
  tokens: number | undefined;
  /** When `tokens` was last brought up to date. */
  at: number;
  /** Refill per ms, when known. */
  ratePerMs: number | undefined;
  capacity: number | undefined;
  /** With no refill rate known: when the service said the budget comes back. */
  resetAt: number;
  pausedUntil: number;
  pause: { readonly until: number; readonly done: Promise<void> } | undefined;
  /** True once the service sent `RateLimit` for this route (then it, not 429s, sets the pace). */
  reported: boolean;
  /** Answered (non-429) requests since the last 429, and since when they are counted. */
  answered: number;
  countingSince: number | undefined;
  inFlight: number;
}

const HOUR_MS = 3_600_000;

export const createRouteScheduler = (options: RouteSchedulerOptions): RouteScheduler => {
  const { clock } = options;
  const routes = new Map<string, RouteState>();
  const v2Limit = options.v2PerHour ?? V2_REQUESTS_PER_HOUR;
  // Send times of V2 requests in the last hour, oldest first.
  const v2Sent: number[] = [];
  // Until when a V2 429 holds every V2 route (the token's budget), and the shared wait for it.
  let v2PausedUntil = 0;
  let v2Pause: { readonly until: number; readonly done: Promise<void> } | undefined;
  const v2Held = (now: number): boolean => v2PausedUntil > now;
  const currentV2Pause = (): Promise<void> => {
    if (v2Pause === undefined || v2Pause.until !== v2PausedUntil) {
      const until = v2PausedUntil;
      v2Pause = { until, done: clock.sleep(Math.max(0, until - clock.now())) };
    }
    return v2Pause.done;
  };

  const stateOf = (route: string): RouteState => {
    let st = routes.get(route);
    if (st === undefined) {
      st = {
        tokens: undefined,
        at: clock.now(),
        ratePerMs: undefined,
        capacity: undefined,
        resetAt: 0,
        pausedUntil: 0,
        pause: undefined,
        reported: false,
        answered: 0,
        countingSince: undefined,
        inFlight: 0,
      };
      routes.set(route, st);
    }
    return st;
  };

  const refill = (st: RouteState, now: number): void => {
    if (st.tokens !== undefined && st.ratePerMs !== undefined && now > st.at) {
      const full = st.capacity ?? Number.POSITIVE_INFINITY;
      st.tokens = Math.min(full, st.tokens + (now - st.at) * st.ratePerMs);
    } else if (st.tokens !== undefined && st.ratePerMs === undefined && now >= st.resetAt) {
      // Only a reset time is known (no quota, no window): the budget is back at the reset.
      st.tokens = undefined;
    }
    st.at = now;
  };

  /** The shared wait for a route's current hold; created once per hold deadline. */
  const currentPause = (st: RouteState): Promise<void> => {
    if (st.pause === undefined || st.pause.until !== st.pausedUntil) {
      const until = st.pausedUntil;
      st.pause = { until, done: clock.sleep(Math.max(0, until - clock.now())) };
    }
    return st.pause.done;
  };

  const v2Full = (now: number): boolean => {
    while (v2Sent.length > 0 && (v2Sent[0] as number) <= now - HOUR_MS) v2Sent.shift();
    return v2Sent.length >= v2Limit;
  };

  return {
    async waitTurn(route, v2, signal) {
      const st = stateOf(route);
      for (;;) {
        const now = clock.now();
        if (st.pausedUntil > now) {
          await raceAbort(currentPause(st), signal);
          // A fake clock may resolve the sleep without moving time up to `until`.
          if (clock.now() < st.pausedUntil && st.pause?.until === st.pausedUntil) {
            st.pausedUntil = 0;
          }
          continue;
        }
        if (v2 && v2Held(now)) {
          await raceAbort(currentV2Pause(), signal);
          // A fake clock may resolve the sleep without moving time up to `until`.
          if (clock.now() < v2PausedUntil && v2Pause?.until === v2PausedUntil) v2PausedUntil = 0;
          continue;
        }
        if (v2 && v2Full(now)) {
          // Decision: past the hourly budget the run paces (waits for the oldest request of
          // the hour to leave the window) rather than failing (issue 22).
          await clock.sleep((v2Sent[0] as number) + HOUR_MS - now, signal);
          continue;
        }
        refill(st, now);
        if (st.tokens === undefined || st.tokens >= 1) return;
        const waitMs =
          st.ratePerMs !== undefined && st.ratePerMs > 0
            ? Math.ceil((1 - st.tokens) / st.ratePerMs)
            : Math.max(1, st.resetAt - now);
        await clock.sleep(Math.min(waitMs, options.maxPauseMs), signal);
        // A fake clock may not move time: the wait is over all the same.
        if (clock.now() === now) st.tokens = Math.max(st.tokens ?? 0, 1);
      }
    },
    tryTake(route, v2) {
      const st = stateOf(route);
      const now = clock.now();
      if (st.pausedUntil > now || (v2 && (v2Held(now) || v2Full(now)))) return false;
      refill(st, now);
      if (st.tokens !== undefined && st.tokens < 1) return false;
      if (st.tokens !== undefined) st.tokens -= 1;
      st.countingSince ??= now;
      if (v2) v2Sent.push(now);
      st.inFlight += 1;
      return true;
    },
    finished(route) {
      const st = routes.get(route);
      if (st !== undefined && st.inFlight > 0) st.inFlight -= 1;
    },
    throttle(route, ms, v2 = false) {
      const st = stateOf(route);
      const now = clock.now();
      if (v2 && now + Math.max(0, ms) > v2PausedUntil) v2PausedUntil = now + Math.max(0, ms);
      // Issue 22: with no `RateLimit` header, only 429s tell the route's budget. Decision:
      // the refill rate is estimated as the requests the route answered between two 429s
      // over the time between them (the bucket was empty at both, so what it let through in
      // between is what it refilled), at least one per Retry-After; the client then paces
      // the route at that rate, one request at a time (the burst is unknown). A 429 that
      // arrives during the hold (a request sent before it) tells nothing new.
      // With nothing answered since the last count (the route's first request got the 429),
      // there is nothing to estimate from: the hold alone applies, as before.
      if (!st.reported && now >= st.pausedUntil) {
        const since = st.countingSince ?? now;
        if (st.answered > 0 && now > since) {
          st.ratePerMs = Math.max(st.answered / (now - since), 1 / Math.max(ms, 1));
          st.capacity = 1;
          st.tokens = 0;
          st.at = now;
        }
        st.answered = 0;
        st.countingSince = now;
      }
      const until = now + Math.max(0, ms);
      if (until > st.pausedUntil) st.pausedUntil = until;
      // The service said the route is empty: nothing left until the hold is over.
      if (st.tokens !== undefined) st.tokens = Math.min(st.tokens, 0);
    },
    observe(route, state, status) {
      const st = stateOf(route);
      if (status !== undefined && status !== 429) {
        st.answered += 1;
        // Probe upward while pacing on an estimate: 0.2% faster per answered request (a
        // doubling every ~350), so a low first estimate does not stay; the next 429 sets the
        // estimate again.
        if (!st.reported && st.ratePerMs !== undefined) st.ratePerMs *= 1.002;
      }
      if (state === undefined) return;
      st.reported = true;
      const now = clock.now();
      const q = state.limit;
      const t = state.resetSeconds;
      // Decision (the draft leaves the algorithm open): with a policy `q` per `w` seconds
      // the budget refills at q/w; with a quota and `t` but no window, `t` is read as the
      // time until the budget is full again (a token bucket), so it refills at (q - r)/t.
      // Only with neither is `t` a window reset: nothing until then once `r` is 0. So the
      // `RateLimit` reset is a window reset only when nothing else is known.
      if (q !== undefined && state.windowSeconds !== undefined && state.windowSeconds > 0) {
        st.ratePerMs = q / (state.windowSeconds * 1000);
      } else if (q !== undefined && t !== undefined && t > 0 && q > state.remaining) {
        st.ratePerMs = (q - state.remaining) / (t * 1000);
      } else if (q === undefined) {
        st.ratePerMs = undefined;
      }
      st.capacity = q;
      // Requests of this route still in flight (other than the one answered) may not have
      // been counted in `remaining` yet: count them as spent (conservative).
      st.tokens = state.remaining - Math.max(0, st.inFlight - 1);
      st.at = now;
      st.resetAt = t !== undefined ? now + Math.min(t * 1000, options.maxPauseMs) : now;
    },
    available(route, v2) {
      const st = stateOf(route);
      const now = clock.now();
      if (st.pausedUntil > now || (v2 && (v2Held(now) || v2Full(now)))) return 0;
      refill(st, now);
      if (st.tokens === undefined) return Number.POSITIVE_INFINITY;
      return Math.max(0, Math.floor(st.tokens));
    },
    v2InLastHour() {
      const now = clock.now();
      return v2Sent.filter((at) => at > now - HOUR_MS).length;
    },
  };
};
