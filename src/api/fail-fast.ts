import { setMaxListeners } from "node:events";
import type { V3Resource } from "../core/wire.js";
import { RequestAbortedError } from "./errors.js";
import type { ApiGeneration, ListOptions, Query, ReadOnlyApi, RequestOptions } from "./types.js";

/** A read-only view whose reads can all be stopped at once. */
export interface StoppableReads {
  readonly api: ReadOnlyApi;
  /** Abort every read in flight through `api` and refuse new ones. */
  stop(): void;
}

/**
 * Issue 7: a read of many collections fails as a whole when one of them fails (design.md §1
 * "Ownership": never prune from a partial read). Without a stop, the other reads in flight
 * would go on to their last page (up to MAX_PAGES each against a service whose pages never
 * end) after the error that already decided the command. The caller stops the view once
 * its combined read has rejected; the reads still running then reject with
 * RequestAbortedError, which nobody is waiting for any more.
 */
export const stoppableReads = (api: ReadOnlyApi): StoppableReads => {
  const stop = new AbortController();
  // Every read in flight is joined to this one signal (no warning past 10 listeners).
  setMaxListeners(0, stop.signal);
  // Every other option (onPage, ...) passes through unchanged; only the signal is joined.
  const withStop = <O extends RequestOptions>(o?: O): O =>
    ({
      ...o,
      signal: o?.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal,
    }) as O;
  const guard = <T>(run: () => Promise<T>): Promise<T> =>
    stop.signal.aborted
      ? Promise.reject(new RequestAbortedError("stopped: another read already failed"))
      : run();
  return {
    api: {
      get: <T>(gen: ApiGeneration, path: string, query?: Query, o?: RequestOptions) =>
        guard(() => api.get<T>(gen, path, query, withStop(o))),
      listV3: <A>(
        path: string,
        query?: Query,
        o?: ListOptions<V3Resource<A>>,
      ): Promise<V3Resource<A>[]> => guard(() => api.listV3<A>(path, query, withStop(o))),
      listV2: <T>(path: string, query?: Query, o?: RequestOptions) =>
        guard(() => api.listV2<T>(path, query, withStop(o))),
    },
    stop: () => stop.abort(),
  };
};
