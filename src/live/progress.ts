import type { ApiGeneration, Query, ReadOnlyApi, RequestOptions } from "../api/types.js";
import type { V3Resource } from "../core/wire.js";

export type ProgressCallback = (done: number, total: number) => void;

/**
 * A read-only view that counts reads for "Reading live state… 120/340". The total grows as
 * reads are discovered level by level, so it is reported with every start and every end.
 * One `listV3`/`listV2` counts as one read whatever its number of pages: the reader cannot
 * know the page count in advance, and a total that shrinks would read worse than one that
 * counts collections.
 */
export const withProgress = (api: ReadOnlyApi, onProgress?: ProgressCallback): ReadOnlyApi => {
  if (!onProgress) return api;
  const counter = { done: 0, total: 0 };
  const track = async <T>(run: () => Promise<T>): Promise<T> => {
    counter.total += 1;
    onProgress(counter.done, counter.total);
    try {
      return await run();
    } finally {
      counter.done += 1;
      onProgress(counter.done, counter.total);
    }
  };
  return {
    get: <T>(gen: ApiGeneration, path: string, query?: Query, options?: RequestOptions) =>
      track(() => api.get<T>(gen, path, query, options)),
    listV3: <A>(path: string, query?: Query, options?: RequestOptions): Promise<V3Resource<A>[]> =>
      track(() => api.listV3<A>(path, query, options)),
    listV2: <T>(path: string, query?: Query, options?: RequestOptions) =>
      track(() => api.listV2<T>(path, query, options)),
  };
};
