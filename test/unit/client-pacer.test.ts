import { describe, expect, it } from "vitest";
import { createPacer } from "../../src/api/pacer.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";

describe("pacer", () => {
  it("holds every waiter on ONE shared sleep for a pause", async () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 60_000 });
    const t0 = clock.now();
    pacer.pauseFor(2000);
    expect(pacer.isPaused()).toBe(true);
    const released: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map(async () => {
        await pacer.waitTurn();
        released.push(clock.now());
      }),
    );
    expect(clock.waits).toEqual([2000]);
    expect(released.every((t) => t >= t0 + 2000)).toBe(true);
    expect(pacer.isPaused()).toBe(false);
  });

  it("never shortens a pause", () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 60_000 });
    pacer.pauseFor(5000);
    pacer.pauseFor(1000);
    clock.advance(4000);
    expect(pacer.isPaused()).toBe(true);
  });

  it("pauses until the reset when nothing remains", async () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 60_000 });
    pacer.observe({ remaining: 0, resetSeconds: 7 });
    await pacer.waitTurn();
    expect(clock.waits).toEqual([7000]);
  });

  it("caps a pause from a RateLimit reset", async () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 1000 });
    pacer.observe({ remaining: 0, resetSeconds: 3600 });
    await pacer.waitTurn();
    expect(clock.waits).toEqual([1000]);
  });

  it("spaces requests out when few remain, and stops when plenty remain", async () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 60_000 });
    pacer.observe({ remaining: 4, resetSeconds: 8, limit: 100 });
    // 10% of 100 = 10 > 4: spacing of 8 s / 4 = 2 s between sends.
    await Promise.all([pacer.waitTurn(), pacer.waitTurn(), pacer.waitTurn()]);
    expect(clock.waits).toEqual([2000, 4000]);
    pacer.observe({ remaining: 90, resetSeconds: 8, limit: 100 });
    await Promise.all([pacer.waitTurn(), pacer.waitTurn()]);
    expect(clock.waits).toEqual([2000, 4000]);
  });

  it("lets an aborted waiter go without cancelling the others' wait", async () => {
    const clock = createFakeClock();
    const pacer = createPacer({ clock, lowWatermark: 2, maxPauseMs: 60_000 });
    pacer.pauseFor(1000);
    const controller = new AbortController();
    const aborted = pacer.waitTurn(controller.signal);
    const other = pacer.waitTurn();
    controller.abort();
    await expect(aborted).rejects.toBeDefined();
    await other;
    expect(clock.waits).toEqual([1000]);
  });
});
