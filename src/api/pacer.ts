import { raceAbort } from "./clock.js";
import type { RateLimitState } from "./headers.js";
import type { Clock } from "./types.js";

/**
 * The one place a client decides when it may send (issue 2 §2, spec: api-v3.md Limits).
 * One pacer per client, never shared between clients (conventions.md: no module-level
 * rate limiter).
 *
 * - A shared pause: a 429 (or a `RateLimit` saying nothing is left) sets "paused until T"
 *   for the whole client. Every send awaits the SAME wait — one `clock.sleep` for the
 *   pause, however many requests are held by it — so one 429 costs one wait, not one per
 *   request in flight.
 * - Spacing: when `RateLimit` says few requests are left in the window, sends are spread
 *   over the time to reset (each takes the next free slot) instead of bursting into a 429.
 */
export interface Pacer {
  /** Resolve when a request may be sent: after any shared pause, then its spacing slot. */
  waitTurn(signal?: AbortSignal): Promise<void>;
  /** Whether a shared pause is in force now (checked again just before a send). */
  isPaused(): boolean;
  /** Pause every request of the client for `ms` from now (never shortens a pause). */
  pauseFor(ms: number): void;
  /** Adjust to a response's rate-limit state. */
  observe(state: RateLimitState | undefined): void;
}

export interface PacerOptions {
  readonly clock: Clock;
  /**
   * "Few left" (Decision: the spec gives no threshold): spacing starts when at most this
   * many requests remain (or 10% of the window's quota when that is larger). The client passes its concurrency, so a full set
   * of parallel requests cannot exhaust the window in one burst.
   */
  readonly lowWatermark: number;
  /** The longest pause a `RateLimit` reset may impose (a longer one is cut to this). */
  readonly maxPauseMs: number;
}

export const createPacer = (options: PacerOptions): Pacer => {
  const { clock } = options;
  let pausedUntil = 0;
  let pause: { readonly until: number; readonly done: Promise<void> } | undefined;
  let spacingMs = 0;
  let spacingUntil = 0;
  let nextSlotAt = 0;

  /** The shared wait for the current pause; created once per pause deadline. */
  const currentPause = (): Promise<void> => {
    if (pause === undefined || pause.until !== pausedUntil) {
      const until = pausedUntil;
      // No signal: this sleep is shared. A waiter that aborts stops waiting for it (raceAbort)
      // without cancelling the others' wait.
      pause = { until, done: clock.sleep(Math.max(0, until - clock.now())) };
    }
    return pause.done;
  };

  return {
    async waitTurn(signal) {
      // Loop: a pause can be extended by another 429 while we wait for the previous one.
      for (;;) {
        const now = clock.now();
        if (pausedUntil > now) {
          await raceAbort(currentPause(), signal);
          // A fake clock may resolve the sleep without moving time up to `until`; the wait
          // is over all the same, so this pause no longer holds anyone.
          if (clock.now() < pausedUntil && pause?.until === pausedUntil) pausedUntil = 0;
          continue;
        }
        break;
      }
      const now = clock.now();
      if (spacingMs > 0 && now < spacingUntil) {
        const slot = Math.max(now, nextSlotAt);
        nextSlotAt = slot + spacingMs;
        if (slot > now) await clock.sleep(slot - now, signal);
      }
    },
    isPaused() {
      return pausedUntil > clock.now();
    },
    pauseFor(ms) {
      const until = clock.now() + Math.max(0, ms);
      if (until > pausedUntil) pausedUntil = until;
    },
    observe(state) {
      if (state === undefined) return;
      const resetMs = state.resetSeconds !== undefined ? state.resetSeconds * 1000 : undefined;
      if (state.remaining <= 0) {
        // Nothing left in this window: wait for the reset instead of collecting a 429.
        // Decision: with no reset given, nothing is paused (we cannot know for how long);
        // the 429 that follows carries Retry-After.
        if (resetMs !== undefined) this.pauseFor(Math.min(resetMs, options.maxPauseMs));
        return;
      }
      const low = Math.max(
        options.lowWatermark,
        state.limit !== undefined ? Math.ceil(state.limit * 0.1) : 0,
      );
      if (state.remaining <= low && resetMs !== undefined && resetMs > 0) {
        // Spread the remaining requests evenly over the time left in the window.
        spacingMs = Math.min(resetMs / state.remaining, options.maxPauseMs);
        spacingUntil = clock.now() + resetMs;
      } else if (state.remaining > low) {
        spacingMs = 0;
      }
    },
  };
};
