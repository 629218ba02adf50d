/**
 * Issue 42 "Ownership is checked before every write batch": the org lock's renewal alone
 * let a holder whose claim was deleted write on for up to a renewal interval beside the
 * run that took the lock next (9 of 12 webhooks duplicated). This view of the client asks
 * the held locks before every write it sends (`HeldLock.confirm`): writes that arrive while
 * a check is in flight share it, so the cost is one claims listing per batch of writes,
 * never one per write, and reads pass straight through.
 *
 * Why that bounds an overlap to one request per slot: a write sent after the lock was lost
 * (our claim deleted at time D) was admitted by a check that was in flight at the write's
 * request, so that check started before D, and it admits at most one write per slot (a
 * slot's next write comes after this one's answer, and then only a check started after D
 * can admit it: that check sees the claim gone and refuses).
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

const confirmed = async (confirm: () => Promise<void>): Promise<void> => {
  try {
    await confirm();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new WriteWithheldError(`not sent: ${why}`, { cause: err });
  }
};

export const writesConfirmedBy = (api: Api, confirm: () => Promise<void>): Api => ({
  get: (gen, path, query, options) => api.get(gen, path, query, options),
  listV3: (path, query, options) => api.listV3(path, query, options),
  listV2: (path, query, options) => api.listV2(path, query, options),
  post: async (gen, path, body, query, options) => {
    await confirmed(confirm);
    return api.post(gen, path, body, query, options);
  },
  put: async (gen, path, body, query, options) => {
    await confirmed(confirm);
    return api.put(gen, path, body, query, options);
  },
  delete: async (gen, path, query, options) => {
    await confirmed(confirm);
    return api.delete(gen, path, query, options);
  },
  readOnly: () => api.readOnly(),
  ...(api.lane ? { lane: api.lane.bind(api) } : {}),
  close: () => api.close(),
});
