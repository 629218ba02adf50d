import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffCeilingMs, backoffDelayMs } from "../../src/api/backoff.js";

const POLICY = { baseDelayMs: 500, maxDelayMs: 30_000 };

describe("backoff", () => {
  it("doubles from the base up to the maximum", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffCeilingMs(a, POLICY))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it("is full jitter: random 0 waits nothing, random near 1 waits almost the ceiling", () => {
    expect(backoffDelayMs(3, POLICY, () => 0)).toBe(0);
    expect(backoffDelayMs(3, POLICY, () => 0.5)).toBe(1000);
    expect(backoffDelayMs(3, POLICY, () => 0.999_999)).toBe(1999);
  });

  it("never exceeds the ceiling nor goes below 0, whatever the random source says", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (attempt, r, base, max) => {
          const policy = { baseDelayMs: base, maxDelayMs: max };
          const d = backoffDelayMs(attempt, policy, () => r);
          expect(d).toBeGreaterThanOrEqual(0);
          const ceiling = base === 0 ? 0 : Math.min(max, base * 2 ** (attempt - 1));
          expect(d).toBeLessThanOrEqual(ceiling);
          expect(Number.isFinite(d)).toBe(true);
        },
      ),
    );
  });
});
