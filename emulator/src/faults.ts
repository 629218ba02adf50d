/**
 * Fault injection (docs/emulator.md "Faults"): latency and jitter, random 429/500/dropped
 * connections, "commit then fail", and a per-route token bucket with the IETF draft
 * `RateLimit-Policy` / `RateLimit` headers (spec: api-v3.md "Limits": rate limits).
 * Every random draw comes from a PRNG seeded with `seed`, so a sequence of requests meets the
 * same faults on every run.
 */
import { CHAOS_KINDS, type ChaosKind, drawChaos } from "./chaos.js";
import { badRequest, fromIssue } from "./errors.js";
import type { FaultOptions } from "./seed.js";
import { check, type Schema, s } from "./validate.js";

export type FaultDecision =
  | { readonly kind: "none" }
  | { readonly kind: "429"; readonly retryAfter: number }
  | { readonly kind: "500" }
  | { readonly kind: "drop" }
  | { readonly kind: "commit_then_fail"; readonly failure: "500" | "drop" }
  | { readonly kind: "slow_commit"; readonly ms: number };

export interface BucketVerdict {
  readonly allowed: boolean;
  /** Seconds until one token is back (only when refused). */
  readonly retryAfter: number;
  readonly headers: Readonly<Record<string, string>>;
}

export interface Faults {
  readonly options: FaultOptions;
  /** Latency for the next request (base plus seeded jitter). */
  latencyMs(): number;
  /** The random fault for the next request of `method`. */
  draw(method: string): FaultDecision;
  /** Take a token from the route's bucket; undefined when no rate limit is configured. */
  take(routeKey: string): BucketVerdict | undefined;
  /** The chaos of the next GET answered 200, if any (its own seeded PRNG stream). */
  chaos(method: string): ChaosKind | undefined;
}

/** mulberry32: a tiny, well-known 32-bit PRNG, good enough for reproducible fault draws. */
export const prng = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const rate = (): Schema => ({ kind: "number", min: 0 });
export const faultOptionsSchema: Schema = s.obj({
  seed: s.int(),
  latency_ms: s.int(0),
  jitter_ms: s.int(0),
  rate_429: rate(),
  retry_after_seconds: s.int(0),
  rate_500: rate(),
  rate_drop: rate(),
  rate_commit_then_fail: rate(),
  rate_slow_commit: rate(),
  slow_commit_ms: s.int(0),
  methods: s.arr(s.str({ oneOf: ["GET", "POST", "PUT", "DELETE"] })),
  rate_limit: s.obj(
    {
      capacity: s.int(1),
      refill_per_second: { kind: "number", min: 0 },
      precise: s.bool(),
      headers: s.bool(),
    },
    ["capacity", "refill_per_second"],
  ),
  chaos: s.obj(
    {
      rate: rate(),
      kinds: s.arr(s.str({ oneOf: [...CHAOS_KINDS] })),
      huge_bytes: s.int(0),
      slow_ms: s.int(0),
    },
    ["rate"],
  ),
  refuse_existing_project_env_var: s.bool(),
});

/** Check fault options (admin API, --faults file); rates must sum to at most 1. */
export const parseFaultOptions = (value: unknown): FaultOptions => {
  const issue = check(faultOptionsSchema, value);
  if (issue) throw fromIssue(issue);
  const f = value as FaultOptions;
  const sum =
    (f.rate_429 ?? 0) +
    (f.rate_500 ?? 0) +
    (f.rate_drop ?? 0) +
    (f.rate_commit_then_fail ?? 0) +
    (f.rate_slow_commit ?? 0);
  if (sum > 1) throw badRequest("invalid_request", "the fault rates add up to more than 1");
  if (f.chaos && f.chaos.rate > 1)
    throw badRequest("invalid_request", "/chaos/rate: must be at most 1", "/chaos/rate");
  if (f.rate_limit && f.rate_limit.refill_per_second <= 0)
    throw badRequest(
      "invalid_request",
      "/rate_limit/refill_per_second: must be greater than 0",
      "/rate_limit/refill_per_second",
    );
  return f;
};

const WRITES = new Set(["POST", "PUT", "DELETE"]);

export const createFaults = (options: FaultOptions, now: () => number): Faults => {
  const seed = options.seed ?? 1;
  // Two streams, so turning jitter on does not change which requests fail.
  const faultRand = prng(seed);
  const jitterRand = prng(seed ^ 0x9e3779b9);
  // A third stream: turning chaos on does not change which requests meet the other faults.
  const chaosRand = prng(seed ^ 0x51ed270b);
  const buckets = new Map<string, { tokens: number; at: number }>();
  const methods = options.methods?.map((m) => m.toUpperCase());

  return {
    options,
    latencyMs() {
      const base = options.latency_ms ?? 0;
      const jitter = options.jitter_ms ?? 0;
      return jitter > 0 ? base + Math.floor(jitterRand() * (jitter + 1)) : base;
    },
    draw(method) {
      const m = method.toUpperCase();
      if (methods && !methods.includes(m)) return { kind: "none" };
      const r429 = options.rate_429 ?? 0;
      const r500 = options.rate_500 ?? 0;
      const rDrop = options.rate_drop ?? 0;
      const rCtf = options.rate_commit_then_fail ?? 0;
      const rSlow = options.rate_slow_commit ?? 0;
      if (r429 + r500 + rDrop + rCtf + rSlow === 0) return { kind: "none" };
      // Decision: one draw per request decides the fault, so the sequence is reproducible;
      // a commit-then-fail ends in a 500 or a drop with equal odds (a second draw).
      const r = faultRand();
      if (r < r429) return { kind: "429", retryAfter: options.retry_after_seconds ?? 1 };
      if (r < r429 + r500) return { kind: "500" };
      if (r < r429 + r500 + rDrop) return { kind: "drop" };
      // "commit then fail" only for writes (POST/PUT/DELETE).
      if (r < r429 + r500 + rDrop + rCtf && WRITES.has(m)) {
        return { kind: "commit_then_fail", failure: faultRand() < 0.5 ? "500" : "drop" };
      }
      // A slow write: held for `slow_commit_ms`, then done and answered as usual, so a client
      // whose timeout is shorter gives up on a request that still lands (issue 15 item 2).
      if (r < r429 + r500 + rDrop + rCtf + rSlow && WRITES.has(m)) {
        return { kind: "slow_commit", ms: options.slow_commit_ms ?? 5_000 };
      }
      return { kind: "none" };
    },
    chaos(method) {
      // Decision: chaos hits reads only (GET answered 200): the issue is about responses
      // Waybill reads to plan; hostile answers to writes are the commit-then-fail faults.
      if (!options.chaos || method.toUpperCase() !== "GET") return undefined;
      return drawChaos(options.chaos, chaosRand);
    },
    take(routeKey) {
      const rl = options.rate_limit;
      if (!rl) return undefined;
      const t = now();
      const b = buckets.get(routeKey) ?? { tokens: rl.capacity, at: t };
      b.tokens = Math.min(rl.capacity, b.tokens + ((t - b.at) / 1000) * rl.refill_per_second);
      b.at = t;
      const allowed = b.tokens >= 1;
      if (allowed) b.tokens -= 1;
      buckets.set(routeKey, b);
      // Decision: `w` is the time to refill an empty bucket, `t` the seconds until it is full
      // again, Retry-After the whole seconds until one token is back (at least 1).
      // Decision: `precise` (tests: load without whole-second waits) sends the same times in
      // seconds with millisecond decimals; Retry-After then is at least 0.001.
      const secs = (x: number, floor: number): number =>
        rl.precise
          ? Math.max(floor / 1000, Math.ceil(x * 1000) / 1000)
          : Math.max(floor, Math.ceil(x));
      const window = secs(rl.capacity / rl.refill_per_second, 0);
      const toFull = secs((rl.capacity - b.tokens) / rl.refill_per_second, 0);
      const retryAfter = allowed ? 0 : secs((1 - b.tokens) / rl.refill_per_second, 1);
      return {
        allowed,
        retryAfter,
        // `headers: false`: a service that limits without saying so; only the 429 tells.
        headers:
          rl.headers === false
            ? ({} as Readonly<Record<string, string>>)
            : {
                "RateLimit-Policy": `"default";q=${rl.capacity};w=${window}`,
                RateLimit: `"default";r=${Math.floor(b.tokens)};t=${toFull}`,
              },
      };
    },
  };
};
