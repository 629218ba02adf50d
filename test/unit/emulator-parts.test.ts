/** Pure parts of the emulator: validator, router, script FIFO, PRNG, faults and token bucket. */
import { describe, expect, it } from "vitest";
import { createFaults, parseFaultOptions, prng } from "../../emulator/src/faults.js";
import type { Route } from "../../emulator/src/http.js";
import { hashUuid, isUuid } from "../../emulator/src/ids.js";
import { createRouter } from "../../emulator/src/router.js";
import { createScript } from "../../emulator/src/script.js";
import { check, s } from "../../emulator/src/validate.js";

describe("validate", () => {
  const schema = s.obj(
    {
      data: s.obj({
        attributes: s.obj({ name: s.str({ nonEmpty: true }), n: s.int(1) }, ["name"]),
      }),
    },
    ["data"],
  );

  it("accepts a conforming value", () => {
    expect(check(schema, { data: { attributes: { name: "x", n: 2 } } })).toBeUndefined();
  });

  it("reports an unknown member with its JSON pointer (escaped)", () => {
    expect(check(schema, { data: { attributes: { name: "x", "a/b": 1 } } })).toEqual({
      pointer: "/data/attributes/a~1b",
      message: 'unknown member "a/b"',
      unknownMember: true,
    });
  });

  it("reports missing, wrong-typed and out-of-range members", () => {
    expect(check(schema, { data: { attributes: {} } })?.pointer).toBe("/data/attributes/name");
    expect(check(schema, { data: { attributes: { name: "" } } })?.message).toBe(
      "must not be empty",
    );
    expect(check(schema, { data: { attributes: { name: "x", n: 0 } } })?.message).toBe(
      "must be at least 1",
    );
    expect(check(schema, { data: { attributes: { name: "x", n: 1.5 } } })?.message).toBe(
      "must be an integer",
    );
    expect(check(schema, [])?.pointer).toBe("/");
    expect(check(s.arr(s.str({ oneOf: ["a"] })), ["a", "b"])?.pointer).toBe("/1");
  });
});

describe("ids", () => {
  it("hashUuid is deterministic, v5-shaped and differs per input", () => {
    const a = hashUuid("x", "1");
    expect(a).toBe(hashUuid("x", "1"));
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe("5");
    expect(hashUuid("x", "2")).not.toBe(a);
    expect(hashUuid("x1")).not.toBe(hashUuid("x", "1"));
  });
});

describe("router", () => {
  const h =
    (name: string): Route["handler"] =>
    () => ({ status: 200, body: name });
  const router = createRouter([
    { method: "GET", pattern: "/api/v3/contexts", handler: h("list") },
    { method: "GET", pattern: "/api/v3/contexts/:id", handler: h("one") },
    { method: "GET", pattern: "/api/v3/contexts/:id/env-vars", handler: h("env") },
    { method: "GET", pattern: "/api/v2/project/*slug/envvar", handler: h("v2") },
  ]);

  it("matches literal and :param segments by method", () => {
    expect(router.match("GET", "/api/v3/contexts")?.route.pattern).toBe("/api/v3/contexts");
    expect(router.match("GET", "/api/v3/contexts/abc")?.params).toEqual({ id: "abc" });
    expect(router.match("GET", "/api/v3/contexts/abc/env-vars")?.params).toEqual({ id: "abc" });
    expect(router.match("POST", "/api/v3/contexts")).toBeUndefined();
    expect(router.match("GET", "/api/v3/contexts/")).toBeUndefined();
  });

  it("a *segment takes one or more segments, escaped or not", () => {
    expect(router.match("GET", "/api/v2/project/gh/acme/api/envvar")?.params).toEqual({
      slug: "gh/acme/api",
    });
    expect(router.match("GET", "/api/v2/project/gh%2Facme%2Fapi/envvar")?.params).toEqual({
      slug: "gh/acme/api",
    });
    expect(router.match("GET", "/api/v2/project/envvar")).toBeUndefined();
    expect(router.match("GET", "/api/v2/project/%E0%A4%A/envvar")).toBeUndefined();
  });
});

describe("script", () => {
  it("is a FIFO: first match wins, `times` counts down, wildcards match", () => {
    const sc = createScript();
    sc.add([
      { method: "post", path: "/api/v3/contexts", status: 500 },
      { path: "/api/v3/contexts*", status: 429, times: 2 },
      { status: 503 },
    ]);
    expect(sc.take("GET", "/api/v3/contexts/x")?.status).toBe(429);
    expect(sc.take("POST", "/api/v3/contexts")?.status).toBe(500);
    expect(sc.take("GET", "/api/v3/contexts")?.status).toBe(429);
    expect(sc.take("GET", "/api/v3/contexts")?.status).toBe(503);
    expect(sc.take("GET", "/api/v3/contexts")).toBeUndefined();
  });

  it("wildcards are not regular expressions", () => {
    const sc = createScript();
    sc.add([{ path: "/api/v3/a.c*" }]);
    expect(sc.take("GET", "/api/v3/abc")).toBeUndefined();
    expect(sc.take("GET", "/api/v3/a.c/x")).toBeDefined();
  });
});

describe("faults", () => {
  it("prng is reproducible per seed", () => {
    const a = prng(5);
    const b = prng(5);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const c = prng(6);
    expect(c()).not.toBe(xs[0]);
  });

  it("draws are reproducible and roughly follow the rates", () => {
    const opts = { seed: 9, rate_429: 0.25, rate_500: 0.25 };
    const draw = () => {
      const f = createFaults(opts, () => 0);
      return Array.from({ length: 400 }, () => f.draw("GET").kind);
    };
    const kinds = draw();
    expect(draw()).toEqual(kinds);
    const n429 = kinds.filter((k) => k === "429").length;
    const n500 = kinds.filter((k) => k === "500").length;
    expect(n429).toBeGreaterThan(60);
    expect(n429).toBeLessThan(140);
    expect(n500).toBeGreaterThan(60);
    expect(n500).toBeLessThan(140);
  });

  it("commit-then-fail only hits writes; `methods` filters", () => {
    const f = createFaults({ rate_commit_then_fail: 1 }, () => 0);
    expect(f.draw("GET").kind).toBe("none");
    expect(f.draw("DELETE").kind).toBe("commit_then_fail");
    const g = createFaults({ rate_500: 1, methods: ["PUT"] }, () => 0);
    expect(g.draw("GET").kind).toBe("none");
    expect(g.draw("put").kind).toBe("500");
  });

  it("latency is base plus seeded jitter within [0, jitter]", () => {
    const f = createFaults({ seed: 3, latency_ms: 10, jitter_ms: 5 }, () => 0);
    const xs = Array.from({ length: 50 }, () => f.latencyMs());
    expect(xs.every((x) => x >= 10 && x <= 15)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(1);
    const g = createFaults({ seed: 3, latency_ms: 10, jitter_ms: 5 }, () => 0);
    expect(Array.from({ length: 50 }, () => g.latencyMs())).toEqual(xs);
  });

  it("token bucket refills with the injected clock, per route key", () => {
    let now = 0;
    const f = createFaults({ rate_limit: { capacity: 1, refill_per_second: 2 } }, () => now);
    expect(f.take("GET /a")?.allowed).toBe(true);
    const refused = f.take("GET /a")!;
    expect(refused).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(f.take("GET /b")?.allowed).toBe(true);
    now += 500;
    expect(f.take("GET /a")?.allowed).toBe(true);
    expect(createFaults({}, () => 0).take("GET /a")).toBeUndefined();
  });

  it("parseFaultOptions rejects bad options", () => {
    expect(() => parseFaultOptions({ rate_500: 0.6, rate_drop: 0.6 })).toThrow(/more than 1/);
    expect(() =>
      parseFaultOptions({ rate_limit: { capacity: 1, refill_per_second: 0 } }),
    ).toThrow();
    expect(() => parseFaultOptions({ latency: 5 })).toThrow(/unknown member/);
    expect(parseFaultOptions({ seed: 1, rate_500: 0.1 })).toEqual({ seed: 1, rate_500: 0.1 });
  });
});
