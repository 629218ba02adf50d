/**
 * One request's bound (`requestTimeoutMs`, the CLI's `--timeout`): a service that accepts
 * and never answers is reported within it, retries included, not after attempts x timeouts
 * (issue 28: 156 s for plan, 251 s for apply with the 30 s default). Timers and
 * `performance.now` are vitest's fake timers; backoff waits go through the client's virtual
 * clock and are counted as the waits they stand for. Nothing sleeps.
 */
import type { Dispatcher } from "undici";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApiClient, type RetryNotice } from "../../src/api/client.js";
import { TimeoutError } from "../../src/api/errors.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";

const TOKEN = "wbtok_bound_4e7a1c9d";

/** A transport that takes every request and never answers (counts them). */
const silent = () => {
  let dispatched = 0;
  const dispatcher = {
    dispatch() {
      dispatched += 1;
      return true;
    },
  } as unknown as Dispatcher;
  return { dispatcher, dispatched: () => dispatched };
};

/** Move fake time on by `ms`, letting the virtual clock's setImmediate wake-ups run. */
const advance = async (ms: number): Promise<void> => {
  for (let left = ms; left > 0; left -= 50) {
    await vi.advanceTimersByTimeAsync(Math.min(50, left));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("API client: one request's bound, retries included", () => {
  it("by default, a server that never answers is reported at 30 s, after one attempt", async () => {
    const t = silent();
    const client = createApiClient({
      baseUrl: "https://ci.example.com",
      token: TOKEN,
      clock: createFakeClock(),
      dispatcher: t.dispatcher,
    });
    let settled: unknown;
    client.get("v3", "/me").then(
      () => (settled = "resolved"),
      (e: unknown) => (settled = e),
    );
    await advance(29_950);
    expect(settled).toBeUndefined();
    await advance(50);
    expect(settled).toBeInstanceOf(TimeoutError);
    const err = settled as TimeoutError;
    expect(err.boundMs).toBe(30_000);
    expect(err.attempts).toBe(1);
    expect(err.message).toBe(
      "GET /api/v3/me timed out: no answer from ci.example.com within 30 s (the --timeout bound, retries included)",
    );
    expect(t.dispatched()).toBe(1);
  });

  it("with shorter attempts, retries while the bound has room, each cut to what is left", async () => {
    const t = silent();
    const clock = createFakeClock();
    const notices: RetryNotice[] = [];
    const client = createApiClient({
      baseUrl: "https://ci.example.com",
      token: TOKEN,
      clock,
      random: () => 0.5,
      dispatcher: t.dispatcher,
      timeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      onRetry: (n) => notices.push(n),
    });
    let settled: unknown;
    client.get("v3", "/me").then(
      () => (settled = "resolved"),
      (e: unknown) => (settled = e),
    );
    // 10 s, a 0.25 s wait, 10 s, a 0.5 s wait, then what is left: 9.25 s; 30 s in all.
    await advance(29_200);
    expect(settled).toBeUndefined();
    await advance(50);
    expect(settled).toBeInstanceOf(TimeoutError);
    expect((settled as TimeoutError).attempts).toBe(3);
    expect((settled as TimeoutError).boundMs).toBe(30_000);
    expect(clock.waits).toEqual([250, 500]);
    expect(notices.map((n) => [n.reason, n.waitMs, n.boundMs])).toEqual([
      ["timed out after 10 s", 250, 30_000],
      ["timed out after 10 s", 500, 30_000],
    ]);
    expect(t.dispatched()).toBe(3);
  });
});
