import { describe, expect, it } from "vitest";
import {
  parseRateLimit,
  parseRateLimitPolicy,
  parseRetryAfter,
  readDeprecation,
  readRateLimit,
} from "../../src/api/headers.js";

const NOW = Date.UTC(2026, 10, 22, 5, 0, 0);

describe("Retry-After", () => {
  it("reads delay-seconds", () => {
    expect(parseRetryAfter("2", NOW)).toBe(2000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
  });

  it("reads an HTTP-date relative to now, and a past date as 0", () => {
    expect(parseRetryAfter("Sun, 22 Nov 2026 05:00:30 GMT", NOW)).toBe(30_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 04:59:00 GMT", NOW)).toBe(0);
  });

  it("accepts fractional seconds, rounding up", () => {
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
    expect(parseRetryAfter("0.0005", NOW)).toBe(1);
  });

  it("is undefined when absent or unreadable", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
  });
});

describe("RateLimit", () => {
  it("reads the structured draft form", () => {
    expect(parseRateLimit('"default";r=5;t=10')).toEqual({
      remaining: 5,
      resetSeconds: 10,
      policy: "default",
    });
  });

  it("takes the most constrained of several policies", () => {
    expect(parseRateLimit('"burst";r=40;t=1, "daily";r=3;t=3600')).toEqual({
      remaining: 3,
      resetSeconds: 3600,
      policy: "daily",
    });
  });

  it("reads the older dictionary form", () => {
    expect(parseRateLimit("limit=100, remaining=5, reset=10")).toEqual({
      remaining: 5,
      resetSeconds: 10,
      limit: 100,
    });
    expect(parseRateLimit("remaining=0, reset=3")).toEqual({
      remaining: 0,
      resetSeconds: 3,
      limit: undefined,
    });
  });

  it("ignores garbage instead of throwing", () => {
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit("")).toBeUndefined();
    expect(parseRateLimit("nonsense")).toBeUndefined();
    expect(parseRateLimit('"x";t=10')).toBeUndefined();
    expect(parseRateLimit("limit=abc, remaining=x")).toBeUndefined();
  });

  it("reads RateLimit-Policy in both forms", () => {
    expect(parseRateLimitPolicy('"default";q=100;w=60')).toEqual([
      { name: "default", quota: 100, windowSeconds: 60 },
    ]);
    expect(parseRateLimitPolicy("100;w=60")).toEqual([
      { name: undefined, quota: 100, windowSeconds: 60 },
    ]);
    expect(parseRateLimitPolicy('"a";q=10;w=1, "b";q=1000;w=3600')).toHaveLength(2);
  });

  it("takes the quota from the matching policy", () => {
    expect(
      readRateLimit({
        ratelimit: '"b";r=7;t=30',
        "ratelimit-policy": '"a";q=10;w=1, "b";q=1000;w=3600',
      }),
    ).toEqual({ remaining: 7, resetSeconds: 30, policy: "b", limit: 1000, windowSeconds: 3600 });
  });

  it("falls back to the separate RateLimit-Remaining / -Reset headers", () => {
    expect(
      readRateLimit({
        "ratelimit-remaining": "2",
        "ratelimit-reset": "4",
        "ratelimit-limit": "50",
      }),
    ).toEqual({ remaining: 2, resetSeconds: 4, limit: 50 });
    expect(readRateLimit({})).toBeUndefined();
  });
});

describe("Deprecation / Sunset", () => {
  it("reads the sunset date and the deprecation link", () => {
    expect(
      readDeprecation({
        deprecation: "true",
        sunset: "Sat, 01 Aug 2026 00:00:00 GMT",
        link: '<https://docs.example.com/a>; rel="alternate", <https://docs.example.com/migrate>; rel="deprecation"',
      }),
    ).toEqual({
      sunset: "Sat, 01 Aug 2026 00:00:00 GMT",
      link: "https://docs.example.com/migrate",
    });
  });

  it("is undefined for a route that is not deprecated", () => {
    expect(readDeprecation({ link: '<https://x>; rel="next"' })).toBeUndefined();
  });
});
