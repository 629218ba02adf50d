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
