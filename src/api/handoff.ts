/**
 * Hand a response to its caller only after the sends it released have gone out (pure
 * scheduling, no I/O).
 *
 * Why (issue 33, the 2,000-project plan): undici writes a request on a reused keep-alive
 * connection only in the event loop's check phase (its idle-socket validation, undici 7.x
 * `client-h1.js`, GHSA-35p6-xmwp-9g52). The answers of a batch arrive together in the poll
 * phase before it (the service's answers come back in step when the latency is even), and
 * whatever the callers did with each answer there (the next page's bookkeeping, the
 * project's plan, GC) ran before ANY of the batch's next requests was written: each
 * request's round trip grew by the whole batch's processing. At parallelism 10 and 20 ms
 * the slots were full 99.7 % of the time yet the service held a request only ~90 % of it.
 * Handing the answers over on the next timers phase lets the check phase write every
 * released request first; the answers are then processed while those are in flight
 * (bench/README.md "Large orgs at the floor": the API phase went from 1.06–1.07 to
 * 0.99–1.05 of the bare fetch loop's time, three pairs alternated).
 *
 * One timer serves every answer of a turn. The retry loop asks for a handoff only when the
 * answer's release let a queued send go (src/api/send-slots.ts `started`): with nothing
 * queued there is no send to let out first, and the caller gets its answer at once (a
 * chain of dependent writes does not pay a timer per link).
 */
export type Handoff = () => Promise<void>;

export const createHandoff = (): Handoff => {
  let waiting: Array<() => void> = [];
  const flush = (): void => {
    const ready = waiting;
    waiting = [];
    for (const resolve of ready) resolve();
  };
  return () =>
    new Promise<void>((resolve) => {
      if (waiting.length === 0) setTimeout(flush, 0);
      waiting.push(resolve);
    });
};
