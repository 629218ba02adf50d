/**
 * At most `concurrency` requests on the wire at once (`--parallelism`), with two queues:
 * an urgent send starts before every queued ordinary one (pure scheduling, no I/O).
 *
 * Why two queues (issue 22, the large-org plan): the org's project and context listings are
 * walked page by page, and each page releases hundreds of reads (a project's variables,
 * webhooks, pipelines, triggers). In one first-in-first-out queue the next page waited
 * behind the reads its own page had just released, so the walk advanced one page per
 * drained queue and its last pages (and issue 15's confirming re-read) ran alone at the end
 * with one request in flight: ~1 s of a 32 s plan at 20 ms latency. A page that gates more
 * work goes first; the reads it releases still fill every slot.
 *
 * A task's slot is released when its promise settles, and the next queued task starts in
 * that same turn (the client relies on it: whatever steers later sends is done before the
 * task settles).
 */
export interface SendSlots {
  run<T>(task: () => Promise<T>, urgent?: boolean): Promise<T>;
  /** Tasks started and not settled. */
  readonly active: number;
  /** Tasks started so far (src/api/handoff.ts: did an answer's release start a send?). */
  readonly started: number;
  /** Tasks waiting for a slot. */
  readonly queued: number;
}

/** A first-in-first-out queue with O(1) take; its array is compacted as it drains. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  take(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export const createSendSlots = (concurrency: number): SendSlots => {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  let active = 0;
  let started = 0;
  const urgentQueue = new Fifo<() => void>();
  const queue = new Fifo<() => void>();

  const startNext = (): void => {
    while (active < concurrency) {
      const next = urgentQueue.take() ?? queue.take();
      if (next === undefined) return;
      active += 1;
      started += 1;
      next();
    }
  };

  const run = <T>(task: () => Promise<T>, urgent = false): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const start = (): void => {
        let settled: Promise<T>;
        try {
          settled = task();
        } catch (err) {
          settled = Promise.reject(err);
        }
        settled.then(
          (value) => {
            active -= 1;
            resolve(value);
            startNext();
          },
          (err: unknown) => {
            active -= 1;
            reject(err);
            startNext();
          },
        );
      };
      (urgent ? urgentQueue : queue).push(start);
      startNext();
    });

  return {
    run,
    get active() {
      return active;
    },
    get started() {
      return started;
    },
    get queued() {
      return urgentQueue.size + queue.size;
    },
  };
};
