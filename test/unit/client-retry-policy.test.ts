import { describe, expect, it } from "vitest";
import {
  type AttemptResult,
  decideRetry,
  type Method,
  type RetryInput,
} from "../../src/api/retry-policy.js";

const NOW = Date.UTC(2026, 0, 1);

const input = (over: Partial<RetryInput> & { result: AttemptResult }): RetryInput => {
  const method: Method = over.method ?? "GET";
  return {
    method,
    idempotent: method !== "POST",
    attempt: 1,
    maxAttempts: 5,
    uncertainBefore: false,
    now: NOW,
    jitter: 0.5,
    backoff: { baseDelayMs: 1000, maxDelayMs: 30_000 },
    maxRetryAfterMs: 300_000,
    ...over,
  };
};

const res = (status: number, headers: Record<string, string> = {}): AttemptResult => ({
  kind: "response",
  status,
  headers,
});

const retry = (waitMs: number, uncertain: boolean, extra: object = {}) => ({
  action: "retry",
  waitMs,
  uncertain,
  ...extra,
});
const fail = (outcome: "not_done" | "unknown", permanent: boolean, extra: object = {}) => ({
  action: "fail",
  outcome,
  permanent,
  ...extra,
});

// One row per rule: [name, input, expected decision (a subset)].
const TABLE: readonly [string, RetryInput, Record<string, unknown>][] = [
  ["2xx is done", input({ result: res(200) }), { action: "done", goneAlready: false }],
  ["201 on POST is done", input({ method: "POST", result: res(201) }), { action: "done" }],
  // Backoff: full jitter of min(max, base * 2^(attempt-1)); jitter 0.5 → half the ceiling.
  ["GET 500 retried with backoff", input({ result: res(500) }), retry(500, true)],
  ["GET 503 third attempt", input({ attempt: 3, result: res(503) }), retry(2000, true)],
  [
    "503 Retry-After longer than backoff is honoured",
    input({ result: res(503, { "retry-after": "7" }) }),
    retry(7000, true),
  ],
  [
    "503 Retry-After is capped at maxRetryAfterMs",
    input({ maxRetryAfterMs: 2000, result: res(503, { "retry-after": "60" }) }),
    retry(2000, true),
  ],
  ["PUT 502 retried", input({ method: "PUT", result: res(502) }), retry(500, true)],
  [
    "POST 500: outcome unknown",
    input({ method: "POST", result: res(500) }),
    fail("unknown", false),
  ],
  ["GET 500 out of attempts", input({ attempt: 5, result: res(500) }), fail("unknown", false)],
  ["GET 501 not retried", input({ result: res(501) }), fail("unknown", false)],
  ["GET timeout retried", input({ result: { kind: "timeout" } }), retry(500, true)],
  [
    "POST timeout: outcome unknown",
    input({ method: "POST", result: { kind: "timeout" } }),
    fail("unknown", false),
  ],
  [
    "DELETE dropped connection retried",
    input({ method: "DELETE", result: { kind: "network", retriable: true } }),
    retry(500, true),
  ],
  [
    "POST dropped connection: outcome unknown",
    input({ method: "POST", result: { kind: "network", retriable: true } }),
    fail("unknown", false),
  ],
  [
    "unretriable network failure (TLS, bad header, unknown host)",
    input({ result: { kind: "network", retriable: false } }),
    fail("not_done", true),
  ],
  ["truncated body retried", input({ result: { kind: "truncated" } }), retry(500, true)],
  ["too large is not retried", input({ result: { kind: "too_large" } }), fail("not_done", false)],
  [
    "429 with Retry-After throttles the route that long",
    input({ result: res(429, { "retry-after": "3" }) }),
    retry(0, false, { throttleMs: 3000 }),
  ],
  [
    "429 on POST is retried (it was not processed)",
    input({ method: "POST", result: res(429, { "retry-after": "1" }) }),
    retry(0, false, { throttleMs: 1000 }),
  ],
  [
    "429 without Retry-After: backoff",
    input({ attempt: 2, result: res(429) }),
    retry(0, false, { throttleMs: 1000 }),
  ],
  [
    "429 Retry-After as an HTTP-date",
    input({ result: res(429, { "retry-after": new Date(NOW + 4000).toUTCString() }) }),
    retry(0, false, { throttleMs: 4000 }),
  ],
  [
    "429 asking for too long fails at once and throttles nobody",
    input({ maxRetryAfterMs: 10_000, result: res(429, { "retry-after": "3600" }) }),
    fail("not_done", false, { retryAfterTooLong: 3_600_000 }),
  ],
  [
    "429 on the last attempt fails but still throttles the route",
    input({ attempt: 5, result: res(429, { "retry-after": "2" }) }),
    fail("not_done", false, { throttleMs: 2000 }),
  ],
  ["401 is permanent", input({ result: res(401) }), fail("not_done", true)],
  ["403 is permanent", input({ method: "POST", result: res(403) }), fail("not_done", true)],
  ["400 is permanent", input({ method: "PUT", result: res(400) }), fail("not_done", true)],
  [
    "first DELETE 404 is an error",
    input({ method: "DELETE", result: res(404) }),
    fail("not_done", true),
  ],
  [
    "DELETE 404 after an uncertain attempt: gone already",
    input({ method: "DELETE", uncertainBefore: true, result: res(404) }),
    { action: "done", goneAlready: true },
  ],
  [
    "GET 404 after an uncertain attempt stays an error",
    input({ uncertainBefore: true, result: res(404) }),
    fail("not_done", true),
  ],
  [
    "a redirect is permanent",
    input({ result: res(308, { location: "/x" }) }),
    fail("not_done", true),
  ],
];

describe("retry policy (pure decision table)", () => {
  it.each(TABLE)("%s", (_name, given, expected) => {
    expect(decideRetry(given)).toMatchObject(expected);
  });

  it("a Retry-After too long to honour throttles nobody", () => {
    const d = decideRetry(
      input({ maxRetryAfterMs: 10_000, result: res(429, { "retry-after": "3600" }) }),
    );
    expect(d.action === "fail" && d.throttleMs).toBe(undefined);
  });

  it("never retries past maxAttempts, whatever the failure", () => {
    const results: AttemptResult[] = [
      res(429),
      res(500),
      res(503, { "retry-after": "1" }),
      { kind: "timeout" },
      { kind: "truncated" },
      { kind: "network", retriable: true },
    ];
    for (const result of results) {
      for (const method of ["GET", "PUT", "DELETE", "POST"] as const) {
        expect(decideRetry(input({ method, attempt: 5, result })).action).toBe("fail");
      }
    }
  });

  it("a POST is never sent again after an outcome that may have been processed", () => {
    for (const result of [
      res(500),
      res(502),
      { kind: "timeout" as const },
      { kind: "truncated" as const },
    ]) {
      const d = decideRetry(input({ method: "POST", result }));
      expect(d).toMatchObject({ action: "fail", outcome: "unknown" });
    }
  });

  it("waits are bounded by maxDelayMs however many attempts", () => {
    const d = decideRetry(
      input({ attempt: 40, maxAttempts: 50, jitter: 0.999, result: { kind: "timeout" } }),
    );
    expect(d.action === "retry" && d.waitMs <= 30_000).toBe(true);
  });
});
