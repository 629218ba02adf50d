/** A cached GET answer: its validator and the raw body it validated. */
export interface CachedResponse {
  readonly etag: string;
  readonly body: string;
}

/**
 * Per-client ETag cache (issue 2 §2; spec: api-v3.md Limits, "Caching": send the ETag as
 * `If-None-Match` to receive 304). Keys are the request path with its query string. The raw
 * body is kept and re-parsed on every hit, so a caller that mutates a result cannot change
 * what the next caller gets.
 *
 * Decision: the cache is bounded (least recently used entries are dropped beyond
 * `maxEntries`) so a long export of a huge org cannot grow memory without limit; a dropped
 * entry only costs a full 200 instead of a 304.
 */
export interface EtagCache {
  get(key: string): CachedResponse | undefined;
  set(key: string, entry: CachedResponse): void;
  readonly size: number;
}

export const createEtagCache = (maxEntries = 5000): EtagCache => {
  const entries = new Map<string, CachedResponse>();
  return {
    get(key) {
      const hit = entries.get(key);
      if (hit !== undefined) {
        // Map keeps insertion order: re-inserting marks the entry most recently used.
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key, entry) {
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
    get size() {
      return entries.size;
    },
  };
};
