import { describe, expect, it } from "vitest";
import { createRouteScheduler } from "../../src/api/route-scheduler.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";

const send = async (
  s: ReturnType<typeof createRouteScheduler>,
  route: string,
  v2 = false,
): Promise<void> => {
  for (;;) {
    await s.waitTurn(route, v2);
    if (s.tryTake(route, v2)) break;
  }
  s.finished(route);
};

describe("route scheduler (issue 22: a budget per route)", () => {
  it("without RateLimit headers, paces a route at the rate its 429s reveal", async () => {
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000 });
    const r = "POST /api/v3/projects/{id}/environment-variables";
    const answered = async (n: number, spreadMs: number) => {
      for (let i = 0; i < n; i++) {
        await s.waitTurn(r, false);
        expect(s.tryTake(r, false)).toBe(true);
        clock.advance(spreadMs / n);
        s.observe(r, undefined, 201);
        s.finished(r);
      }
    };
    // A burst of 20 goes through, then a 429 (Retry-After 1 s): the first estimate is high.
    await answered(20, 50);
    s.throttle(r, 1_000);
    expect(s.available(r, false)).toBe(0);
    clock.advance(1_000);
    // What the bucket refilled during the hold goes through, then the next 429: 10 answered
    // in the 1,050 ms since the first 429 is the route's rate, ~9.5 a second.
    for (let i = 0; i < 10; i++) {
      expect(s.tryTake(r, false)).toBe(true);
      s.observe(r, undefined, 201);
      s.finished(r);
      clock.advance(5);
    }
    s.throttle(r, 1_000);
    // A 429 of a request sent before the hold says nothing new.
    s.throttle(r, 1_000);
    clock.advance(1_000);
    // Paced one at a time at ~9.5 a second: 5 sends take ~0.5 s, not an instant burst.
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) {
      await s.waitTurn(r, false);
      expect(s.tryTake(r, false)).toBe(true);
      s.finished(r);
    }
    const took = clock.now() - t0;
    expect(took).toBeGreaterThan(400);
    expect(took).toBeLessThan(600);
  });

  it("says how many requests a route could send now: unknown is unlimited, held is none", () => {
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000 });
    const r = "POST /api/v3/webhooks";
    expect(s.available(r, false)).toBe(Number.POSITIVE_INFINITY);
    // 10 per second, 3 left; nothing is taken by asking.
    s.observe(r, { remaining: 3, limit: 10, windowSeconds: 1 });
    expect(s.available(r, false)).toBe(3);
    expect(s.available(r, false)).toBe(3);
    expect(s.tryTake(r, false)).toBe(true);
    expect(s.available(r, false)).toBe(2);
    // Refilled at 10 a second: 250 ms later, 2.5 more (whole requests only).
    clock.advance(250);
    expect(s.available(r, false)).toBe(4);
    s.throttle(r, 1_000);
    expect(s.available(r, false)).toBe(0);
    expect(s.available("POST /api/v3/contexts", false)).toBe(Number.POSITIVE_INFINITY);
  });

  it("a 429 holds its route only; other routes go at once", async () => {
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000 });
    s.throttle("POST /api/v3/contexts", 5_000);
    const t0 = clock.now();
    await send(s, "GET /api/v3/contexts");
    expect(clock.now()).toBe(t0);
    await send(s, "POST /api/v3/contexts");
    expect(clock.now()).toBe(t0 + 5_000);
  });

  it("a V2 429 holds every V2 route (V2's limit is per token), and no V3 route", async () => {
    // spec: api-v2-v1.md Limits: "V2 rate limit | 5000 requests per hour per token".
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000 });
    s.throttle("GET /api/v2/otel/exporters", 4_000, true);
    const other = "GET /api/v2/project/{slug}/checkout-key";
    expect(s.available(other, true)).toBe(0);
    expect(s.tryTake(other, true)).toBe(false);
    expect(s.available("GET /api/v3/contexts", false)).toBe(Number.POSITIVE_INFINITY);
    const t0 = clock.now();
    await send(s, "GET /api/v3/contexts");
    expect(clock.now()).toBe(t0);
    await send(s, other, true);
    expect(clock.now()).toBe(t0 + 4_000);
  });

  it("decides at send time: a budget taken by another request sends it back to wait", async () => {
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000 });
    const r = "POST /api/v3/contexts";
    // 10 per second, 1 left.
    s.observe(r, { remaining: 1, limit: 10, windowSeconds: 1 });
    await s.waitTurn(r, false);
    await s.waitTurn(r, false);
    // Both saw budget; only one can take it.
    expect(s.tryTake(r, false)).toBe(true);
    expect(s.tryTake(r, false)).toBe(false);
    await s.waitTurn(r, false);
    expect(clock.waits).toEqual([100]);
    expect(s.tryTake(r, false)).toBe(true);
  });

  it("counts V2 requests per hour and paces past the budget instead of failing", async () => {
    const clock = createFakeClock();
    const s = createRouteScheduler({ clock, maxPauseMs: 300_000, v2PerHour: 3 });
    const t0 = clock.now();
    for (let i = 0; i < 3; i++) await send(s, `GET /api/v2/r${i}`, true);
    expect(s.v2InLastHour()).toBe(3);
    expect(clock.now()).toBe(t0);
    // V3 is not counted against V2's budget.
    await send(s, "GET /api/v3/orgs", false);
    await send(s, "GET /api/v2/other", true);
    expect(clock.now()).toBe(t0 + 3_600_000);
  });
});
