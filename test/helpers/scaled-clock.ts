import { createSystemClock } from "../../src/api/clock.js";
import type { Clock } from "../../src/api/types.js";

/**
 * A clock that runs `factor` times faster than real time, for integration tests whose CLI
 * runs wait on purpose (the client's backoff between retries, the org lock's polls and
 * renewals, apply's settle before a re-list): conventions.md §8, tests do not sleep for
 * seconds. Unlike a virtual clock that wakes sleepers at once, every wait still takes
 * (ms / factor) of real time and `now()` moves at one speed for every waiter, so the
 * relations the code relies on hold as in real time: a lease renewed every 30 s outlives
 * its 120 s lease by the same margin, a backoff doubles, a poll comes after the holder's
 * renewal. Network time (the emulator's answers, per-attempt timeouts) stays real, so the
 * service looks `factor` times faster than it is, never slower.
 *
 * Share one clock between runs that overlap (two applies racing for a lock): their claims'
 * times must come from the same clock. A lock left by a real-clock process (a spawned,
 * killed apply) looks older to this clock than it is: do not mix the two in one test.
 */
export const createScaledClock = (factor: number): Clock => {
  const system = createSystemClock();
  const startWall = Date.now();
  const startMono = performance.now();
  return {
    now: () => Math.floor(startWall + (performance.now() - startMono) * factor),
    sleep: (ms, signal) => system.sleep(ms / factor, signal),
  };
};
