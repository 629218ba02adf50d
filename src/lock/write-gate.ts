/**
 * Issue 42 "Ownership is checked before every write batch": the org lock's renewal alone
 * let a holder whose claim was deleted write on for up to a renewal interval beside the
 * run that took the lock next (9 of 12 webhooks duplicated). This view of the client lets a
 * write go only on the word of an ownership check (`HeldLock.confirm`, one claims listing),
 * and keeps the cost low: checks run one after another while writes flow, beside them, and
 * each check admits at most one batch of `parallelism` writes (one per slot) on the word of
 * the check before it. Reads pass straight through. Cost: one listing per batch of writes,
 * never one per write, and no round trip added while checks keep up with the writes.
 *
 * The bound: a check that starts after our claim was deleted (time D) refuses, and it
 * starts at most one check after D; each check's batch is at most one write per slot. So
 * after D each slot sends at most two more writes, and once another run holds the lock
 * (it writes its claim and lists after D: a check's time later) at most one.
 */
import type { Api } from "../api/types.js";
import { WaybillError } from "../core/errors.js";

/**
 * A write not sent because the lock was lost (or could not be confirmed): nothing is wrong
 * with the request, so a re-run (under the lock) converges.
 */
export class WriteWithheldError extends WaybillError {
  readonly code = "write_withheld";
}

/**
 * Admit writes on the word of ownership checks (see the file comment).
 *
 * When the next check starts: as soon as a write is admitted while none is in flight, until
 * both the time a check takes and the pace of the writes are measured; then only once the
 * writes left in the batch would run out within two checks' time. Writes that flow slower
 * than checks (a rate-limited route, a slow service) started a check beside nearly every
 * write, about one claims listing per 2–4 writes (bench/README.md "Apply under a per-route
 * rate limit": 505 listings for 1,908 writes, on a route with its own budget); paced, it is
 * about one per batch. The bound above is in writes and does not change: each check still
 * admits at most one batch, counted from when it starts. A check is also due once the last
 * one started `freshMs` ago (5 s), so sparse writes (a slow create, a wait) still go on the
 * word of a recent check, as they did when every write started one.
 */
export const writeGate = (
  confirm: () => Promise<void>,
  parallelism: number,
  now: () => number = () => performance.now(),
  freshMs = 5_000,
): (() => Promise<void>) => {
  const batch = Math.max(1, parallelism);
  /** The last finished check said the lock is ours. */
  let ok = false;
  let inFlight: Promise<void> | undefined;
  /** Writes admitted since the check in flight (or the last one) started. */
  let sent = 0;
  /** How long the last successful check took, and the smoothed gap between writes (ms). */
  let checkMs: number | undefined;
  let gapMs: number | undefined;
  let lastAdmitAt: number | undefined;
  let lastCheckStartedAt: number | undefined;
  const startCheck = (): Promise<void> => {
    sent = 0;
    const started = now();
    lastCheckStartedAt = started;
    const check = confirm().then(
      () => {
        ok = true;
        checkMs = now() - started;
      },
      (err: unknown) => {
        ok = false;
        const why = err instanceof Error ? err.message : String(err);
        throw new WriteWithheldError(`not sent: ${why}`, { cause: err });
      },
    );
    inFlight = check.finally(() => {
      inFlight = undefined;
    });
    inFlight.catch(() => undefined);
    return inFlight;
  };
  const due = (at: number): boolean =>
    checkMs === undefined ||
    gapMs === undefined ||
    (batch - sent) * gapMs <= 2 * checkMs ||
    at - (lastCheckStartedAt ?? at) >= freshMs;
  return async () => {
    for (;;) {
      if (ok && sent < batch) {
        sent += 1;
        const at = now();
        if (lastAdmitAt !== undefined) {
          const gap = at - lastAdmitAt;
          gapMs = gapMs === undefined ? gap : 0.75 * gapMs + 0.25 * gap;
        }
        lastAdmitAt = at;
        // The next check starts beside this write when the batch would otherwise run out
        // before it could answer, so the next batch rarely waits.
        if (inFlight === undefined && due(at)) startCheck();
        return;
      }
      await (inFlight ?? startCheck());
    }
  };
};

export const writesConfirmedBy = (
  api: Api,
  confirm: () => Promise<void>,
  parallelism: number,
): Api => {
  const admit = writeGate(confirm, parallelism);
  return {
    get: (gen, path, query, options) => api.get(gen, path, query, options),
    listV3: (path, query, options) => api.listV3(path, query, options),
    listV2: (path, query, options) => api.listV2(path, query, options),
    post: async (gen, path, body, query, options) => {
      await admit();
      return api.post(gen, path, body, query, options);
    },
    put: async (gen, path, body, query, options) => {
      await admit();
      return api.put(gen, path, body, query, options);
    },
    delete: async (gen, path, query, options) => {
      await admit();
      return api.delete(gen, path, query, options);
    },
    readOnly: () => api.readOnly(),
    ...(api.lane ? { lane: api.lane.bind(api) } : {}),
    close: () => api.close(),
  };
};
