/**
 * How many parents (projects, contexts) have their collections read at once.
 *
 * Issue 33 (memory): the live reader used to start every parent's reads as soon as the
 * listing page naming it arrived. The client sends `--parallelism` requests at a time, so at
 * 2,000 projects ~8,000 list calls sat suspended in its queue, each a chain of about ten
 * awaiting async frames (list → listAll → readOnce → …) with their promises and closures:
 * tens of megabytes held for nothing. A parent waiting here is one small thunk.
 *
 * Decision: 64 parents, ~250 requests ready for at most 64 slots (`--parallelism` is at most
 * 64), so the client's slots never wait on this window; the request count and the order of
 * listing pages (which go ahead of ordinary reads, src/api/send-slots.ts) are unchanged.
 */
export const PARENTS_READ_AT_ONCE = 64;

/** Runs `task` when a place is free; its promise settles with the task's. */
export type ReadWindow = <T>(task: () => Promise<T>) => Promise<T>;

/** Run at most `size` tasks at once; the others wait, first come first served, not started. */
export const readWindow = (size: number = PARENTS_READ_AT_ONCE): ReadWindow => {
  let running = 0;
  const waiting: (() => void)[] = [];
  let head = 0;
  const admit = (): void => {
    while (running < size && head < waiting.length) {
      const go = waiting[head] as () => void;
      waiting[head++] = noop;
      running++;
      go();
    }
    if (head === waiting.length) {
      waiting.length = 0;
      head = 0;
    }
  };
  return <T>(task: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push(() => {
        task()
          .then(resolve, reject)
          .finally(() => {
            running--;
            admit();
          });
      });
      admit();
    });
};

const noop = (): void => undefined;
