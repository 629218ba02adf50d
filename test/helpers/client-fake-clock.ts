import type { Clock } from "../../src/api/types.js";

/**
 * A virtual clock for the API client's tests (conventions.md §8: tests do not sleep). It
 * records every wait and advances virtual time instead of sleeping: pending sleeps wake one
 * at a time, earliest first, each on its own macrotask turn, so real I/O (the emulator over
 * loopback) interleaves with the waits as it would with real time.
 */
export interface FakeClock extends Clock {
  /** Every `sleep(ms)` asked for, in call order. */
  readonly waits: number[];
  /** Advance virtual time without a sleep (e.g. to let an HTTP-date pass). */
  advance(ms: number): void;
}

export const createFakeClock = (start = Date.UTC(2026, 0, 1)): FakeClock => {
  let now = start;
  const waits: number[] = [];
  const pending: { wakeAt: number; seq: number; resolve: () => void }[] = [];
  let seq = 0;
  let scheduled = false;

  const tick = (): void => {
    scheduled = false;
    pending.sort((a, b) => a.wakeAt - b.wakeAt || a.seq - b.seq);
    const next = pending.shift();
    if (next === undefined) return;
    now = Math.max(now, next.wakeAt);
    next.resolve();
    schedule();
  };
  const schedule = (): void => {
    if (scheduled || pending.length === 0) return;
    scheduled = true;
    setImmediate(tick);
  };

  return {
    waits,
    now: () => now,
    advance(ms) {
      now += ms;
    },
    sleep(ms, signal) {
      waits.push(ms);
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const entry = {
          wakeAt: now + Math.max(0, ms),
          seq: seq++,
          resolve: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          const i = pending.indexOf(entry);
          if (i >= 0) pending.splice(i, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        pending.push(entry);
        schedule();
      });
    },
  };
};
