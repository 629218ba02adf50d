/**
 * Issue 7: stoppableReads (src/api/fail-fast.ts) ends every read in flight once the caller
 * stops it, and refuses new ones, so a failed live read does not run other listings to
 * their page bound.
 */
import { describe, expect, it } from "vitest";
import { RequestAbortedError } from "../../src/api/errors.js";
import { stoppableReads } from "../../src/api/fail-fast.js";
import type { ReadOnlyApi, RequestOptions } from "../../src/api/types.js";

/** A fake whose reads wait until their signal aborts (an endless listing). */
const hanging = (): { api: ReadOnlyApi; signals: AbortSignal[] } => {
  const signals: AbortSignal[] = [];
  const wait = (o?: RequestOptions): Promise<never> =>
    new Promise((_, reject) => {
      if (!o?.signal) return;
      signals.push(o.signal);
      o.signal.addEventListener("abort", () => reject(new RequestAbortedError("aborted")));
    });
  return {
    signals,
    api: {
      get: (_g, _p, _q, o) => wait(o),
      listV3: (_p, _q, o) => wait(o),
      listV2: (_p, _q, o) => wait(o),
    },
  };
};

describe("stoppableReads", () => {
  it("aborts every read in flight on stop, and refuses new ones", async () => {
    const fake = hanging();
    const reads = stoppableReads(fake.api);
    const a = reads.api.listV3("/contexts");
    const b = reads.api.get("v3", "/orgs");
    const c = reads.api.listV2("/project/x/envvar");
    expect(fake.signals.every((s) => !s.aborted)).toBe(true);
    reads.stop();
    for (const p of [a, b, c]) await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(reads.api.get("v3", "/orgs")).rejects.toThrow(/another read already failed/);
    expect(fake.signals).toHaveLength(3);
  });

  it("keeps the caller's own signal working", async () => {
    const fake = hanging();
    const reads = stoppableReads(fake.api);
    const mine = new AbortController();
    const p = reads.api.listV3("/contexts", {}, { signal: mine.signal });
    const other = reads.api.listV3("/webhooks");
    mine.abort();
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    // Only that read ended; the other is still running until stop().
    expect(fake.signals[1]?.aborted).toBe(false);
    reads.stop();
    await expect(other).rejects.toBeInstanceOf(RequestAbortedError);
  });
});
