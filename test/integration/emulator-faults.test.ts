/**
 * The admin API, the script FIFO and fault injection over real HTTP (docs/emulator.md).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../emulator/src/admin.js";
import { startEmulator } from "../../emulator/src/index.js";
import {
  baseSeed,
  CTX_PROD,
  errorOf,
  list,
  ORG,
  startTestEmu,
  type TestEmu,
  TOKEN,
} from "./emulator-harness.js";

const running: TestEmu[] = [];
const start = async (...args: Parameters<typeof startTestEmu>) => {
  const t = await startTestEmu(...args);
  running.push(t);
  return t;
};
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()));
});

const requests = async (t: TestEmu): Promise<RequestLogEntry[]> =>
  ((await t.admin("GET", "requests")).body as { requests: RequestLogEntry[] }).requests;

const newContext = (name: string) => ({
  data: { attributes: { name }, references: { org: { id: ORG } } },
});

const contextNames = async (t: TestEmu): Promise<string[]> =>
  ((await t.state()).orgs![0]!.contexts ?? []).map((c) => c.name);

describe("admin API", () => {
  it("is off unless enabled: 404, and no state is exposed", async () => {
    const emu = await startEmulator({ seed: baseSeed() });
    try {
      const r = await fetch(`${emu.url}/__admin/state`);
      expect(r.status).toBe(404);
      expect(await r.text()).not.toContain("super-secret");
      expect((await fetch(`${emu.url}/__admin/reset`, { method: "POST", body: "{}" })).status).toBe(
        404,
      );
    } finally {
      await emu.close();
    }
  });

  it("state dumps the seed shape with ids and secret values", async () => {
    const t = await start();
    const st = await t.state();
    expect(st.orgs![0]!.contexts![0]).toMatchObject({
      id: CTX_PROD,
      env: { AWS_SECRET: "super-secret-9876" },
    });
    const trig = st.orgs![0]!.projects![0]!.pipelines![0]!.triggers![2]!;
    expect(trig.event).toMatchObject({ type: "webhook", webhook: { secret: "trigger-secret-1" } });
  });

  it("the request log: seq, method, path without query, query object, status, api, route; admin not logged", async () => {
    const t = await start();
    await t.get(`/api/v3/contexts?filter[org_id]=${ORG}`);
    await t.get("/api/v2/project/gh/acme/api/envvar");
    await t.get(`/api/v3/contexts/${CTX_PROD}`, { token: null });
    await t.admin("GET", "state");
    const log = await requests(t);
    expect(log).toEqual([
      {
        seq: 1,
        method: "GET",
        path: "/api/v3/contexts",
        query: { "filter[org_id]": ORG },
        status: 200,
        api: "v3",
        route: "GET /api/v3/contexts",
      },
      {
        seq: 2,
        method: "GET",
        path: "/api/v2/project/gh/acme/api/envvar",
        query: {},
        status: 200,
        api: "v2",
        route: "GET /api/v2/project/*slug/envvar",
      },
      {
        seq: 3,
        method: "GET",
        path: `/api/v3/contexts/${CTX_PROD}`,
        query: {},
        status: 401,
        api: "v3",
        route: "GET /api/v3/contexts/:id",
      },
    ]);
    expect((await t.admin("DELETE", "requests")).status).toBe(204);
    expect(await requests(t)).toEqual([]);
  });

  it("reset replaces the state and clears the log and the script; a bad seed is 400", async () => {
    const t = await start();
    await t.post("/api/v3/contexts", newContext("temp"));
    await t.admin("POST", "script", { responses: [{ path: "/api/v3/orgs", status: 503 }] });
    expect((await t.admin("POST", "reset", baseSeed())).status).toBe(204);
    expect(await contextNames(t)).not.toContain("temp");
    expect(await requests(t)).toEqual([]);
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    const bad = await t.admin("POST", "reset", {
      orgs: [{ slug: "x", contexts: [{ name: "c", bogus: 1 }] }],
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).detail).toContain("/orgs/0/contexts/0/bogus");
  });

  it("faults and script bodies are validated (400)", async () => {
    const t = await start();
    expect((await t.admin("POST", "faults", { rate_500: "often" })).status).toBe(400);
    expect((await t.admin("POST", "faults", { rate_500: 0.8, rate_429: 0.5 })).status).toBe(400);
    expect(
      (await t.admin("POST", "script", { responses: [{ status: 500, colour: "red" }] })).status,
    ).toBe(400);
    expect((await t.admin("POST", "script", {})).status).toBe(400);
  });
});

describe("script FIFO", () => {
  it("answers the next matching requests in order, `times` each, then the real service", async () => {
    const t = await start();
    await t.admin("POST", "script", {
      responses: [
        {
          method: "GET",
          path: "/api/v3/contexts*",
          status: 429,
          headers: { "Retry-After": "3" },
          times: 2,
        },
        {
          path: "/api/v3/contexts",
          status: 502,
          headers: { "Content-Type": "text/html" },
          body: "<html>Bad gateway</html>",
        },
      ],
    });
    const path = `/api/v3/contexts?filter[org_id]=${ORG}`;
    const a = await t.get(path);
    expect(a.status).toBe(429);
    expect(a.headers.get("retry-after")).toBe("3");
    expect((await t.get(path)).status).toBe(429);
    const c = await t.get(path);
    expect(c.status).toBe(502);
    expect(c.text).toBe("<html>Bad gateway</html>");
    expect(c.headers.get("content-type")).toBe("text/html");
    expect((await t.get(path)).status).toBe(200);
    const log = await requests(t);
    expect(log.map((r) => [r.status, r.fault])).toEqual([
      [429, "script"],
      [429, "script"],
      [502, "script"],
      [200, undefined],
    ]);
  });

  it("an entry for another method or path waits for its request", async () => {
    const t = await start();
    await t.admin("POST", "script", {
      responses: [
        {
          method: "POST",
          path: "/api/v3/contexts",
          status: 500,
          json: { error: { title: "boom" } },
        },
      ],
    });
    expect((await t.get(`/api/v3/contexts?filter[org_id]=${ORG}`)).status).toBe(200);
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    const r = await t.post("/api/v3/contexts", newContext("scripted"));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: { title: "boom" } });
    // Not committed: the script answered instead of the service.
    expect(await contextNames(t)).not.toContain("scripted");
  });

  it("commit: the write happens, then the scripted failure", async () => {
    const t = await start();
    await t.admin("POST", "script", {
      responses: [{ method: "POST", path: "/api/v3/contexts", commit: true, status: 500 }],
    });
    const r = await t.post("/api/v3/contexts", newContext("committed"));
    expect(r.status).toBe(500);
    expect(await contextNames(t)).toContain("committed");
    expect((await requests(t))[0]).toMatchObject({ status: 500, fault: "script_commit" });
  });

  it("drop: the socket is destroyed without an answer (with commit: after committing)", async () => {
    const t = await start();
    await t.admin("POST", "script", {
      responses: [
        { path: "/api/v3/orgs", drop: true },
        { method: "POST", path: "/api/v3/contexts", commit: true, drop: true },
      ],
    });
    await expect(t.get("/api/v3/orgs")).rejects.toThrow();
    await expect(t.post("/api/v3/contexts", newContext("dropped-but-saved"))).rejects.toThrow();
    expect(await contextNames(t)).toContain("dropped-but-saved");
    expect((await requests(t)).map((r) => r.status)).toEqual([0, 0]);
    // The server still serves after a drop.
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
  });

  it("scripted answers bypass auth (they stand in for the service's front end)", async () => {
    const t = await start();
    await t.admin("POST", "script", { responses: [{ status: 503, body: "down" }] });
    expect((await t.get("/api/v3/orgs", { token: null })).status).toBe(503);
  });
});

describe("fault injection", () => {
  it("commit then fail: the write happens, then a 500 or a dropped connection", async () => {
    const t = await start(baseSeed(), { faults: { seed: 7, rate_commit_then_fail: 1 } });
    // GETs are never hit by commit-then-fail.
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        const r = await t.post("/api/v3/contexts", newContext(`ctf-${i}`));
        outcomes.push(String(r.status));
      } catch {
        outcomes.push("dropped");
      }
    }
    expect(outcomes.every((o) => o === "500" || o === "dropped")).toBe(true);
    const names = await contextNames(t);
    for (let i = 0; i < 6; i++) expect(names).toContain(`ctf-${i}`);
    const faults = (await requests(t)).map((r) => r.fault);
    expect(faults[0]).toBeUndefined();
    expect(faults.slice(1).every((f) => f === "commit_then_500" || f === "commit_then_drop")).toBe(
      true,
    );
  });

  it("slow commit: a write held longer than the client waits still lands, and answers as usual", async () => {
    const t = await start(baseSeed(), {
      faults: { seed: 7, rate_slow_commit: 1, slow_commit_ms: 400 },
    });
    // GETs are never slowed.
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    // The client gives up after 100 ms; the create lands once the 400 ms are over.
    await expect(
      t.post("/api/v3/contexts", newContext("slow-one"), { signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow();
    await expect
      .poll(() => contextNames(t), { timeout: 3_000, interval: 25 })
      .toContain("slow-one");
    // A client that waits gets the usual answer.
    expect((await t.post("/api/v3/contexts", newContext("slow-two"))).status).toBe(201);
    const faults = (await requests(t)).map((r) => r.fault);
    expect(faults.filter((f) => f === "slow_commit")).toHaveLength(2);
  });

  it("seeded random faults are reproducible across emulators", async () => {
    const faults = { seed: 42, rate_500: 0.3, rate_429: 0.2, retry_after_seconds: 2 };
    const run = async () => {
      const t = await start(baseSeed(), { faults });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await t.get("/api/v3/orgs")).status);
      return { t, statuses };
    };
    const a = await run();
    const b = await run();
    expect(a.statuses).toEqual(b.statuses);
    expect(a.statuses).toContain(500);
    expect(a.statuses).toContain(429);
    expect(a.statuses).toContain(200);
    const log = await requests(a.t);
    expect(log.filter((r) => r.status === 500).every((r) => r.fault === "500")).toBe(true);
    // A different seed gives a different sequence.
    await a.t.admin("POST", "faults", { ...faults, seed: 43 });
    const c: number[] = [];
    for (let i = 0; i < 30; i++) c.push((await a.t.get("/api/v3/orgs")).status);
    expect(c).not.toEqual(a.statuses);
  });

  it("an injected 429 carries Retry-After and the V3 envelope", async () => {
    const t = await start(baseSeed(), { faults: { rate_429: 1, retry_after_seconds: 7 } });
    const r = await t.get("/api/v3/orgs");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("7");
    expect(errorOf(r).type).toBe("rate_limited");
  });

  it("`methods` limits the random faults to those methods", async () => {
    const t = await start(baseSeed(), { faults: { rate_500: 1, methods: ["POST"] } });
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    expect((await t.post("/api/v3/contexts", newContext("x"))).status).toBe(500);
    expect(await contextNames(t)).not.toContain("x");
  });

  it("a dropped connection (rate_drop) rejects the request and is logged", async () => {
    const t = await start(baseSeed(), { faults: { rate_drop: 1 } });
    await expect(t.get("/api/v3/orgs")).rejects.toThrow();
    expect((await requests(t))[0]).toMatchObject({ status: 0, fault: "drop" });
  });

  it("admin requests are never faulted", async () => {
    const t = await start(baseSeed(), { faults: { rate_500: 1 } });
    expect((await t.admin("GET", "state")).status).toBe(200);
    expect((await t.admin("GET", "requests")).status).toBe(200);
  });

  it("token bucket per route: 429 with Retry-After when empty, RateLimit headers on every response", async () => {
    let now = 1_000_000;
    const t = await start(baseSeed(), {
      faults: { rate_limit: { capacity: 2, refill_per_second: 0.5 } },
      now: () => now,
    });
    const a = await t.get("/api/v3/orgs");
    expect(a.status).toBe(200);
    expect(a.headers.get("ratelimit-policy")).toBe('"default";q=2;w=4');
    expect(a.headers.get("ratelimit")).toBe('"default";r=1;t=2');
    expect((await t.get("/api/v3/orgs")).headers.get("ratelimit")).toBe('"default";r=0;t=4');
    const c = await t.get("/api/v3/orgs");
    expect(c.status).toBe(429);
    expect(c.headers.get("retry-after")).toBe("2");
    expect(c.headers.get("ratelimit")).toBe('"default";r=0;t=4');
    // Another route has its own bucket; the route is the path template, not the path.
    expect((await t.get(`/api/v3/contexts/${CTX_PROD}`)).status).toBe(200);
    expect((await t.get("/api/v3/contexts/00000000-0000-4000-8000-000000000021")).status).toBe(200);
    expect((await t.get("/api/v3/contexts/00000000-0000-4000-8000-000000000022")).status).toBe(429);
    // Two seconds later one token is back.
    now += 2000;
    expect((await t.get("/api/v3/orgs")).status).toBe(200);
    expect((await t.get("/api/v3/orgs")).status).toBe(429);
    expect((await requests(t)).filter((r) => r.fault === "rate_limit")).toHaveLength(3);
  });

  it("latency delays answers but close() does not wait for it", async () => {
    const emu = await startEmulator({
      seed: baseSeed(),
      admin: true,
      faults: { latency_ms: 60_000 },
    });
    // A script entry is taken when its request arrives (before the latency wait), so an
    // empty script tells us the request is inside the emulator, waiting.
    const admin = (method: string, body?: unknown) =>
      fetch(`${emu.url}/__admin/script`, {
        method,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    await admin("POST", { responses: [{ path: "/api/v3/orgs", json: { data: [] } }] });
    const pending = fetch(`${emu.url}/api/v3/orgs`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    }).catch((e: unknown) => e);
    let waiting = false;
    for (let i = 0; i < 1000 && !waiting; i++) {
      const { pending: left } = (await (await admin("GET")).json()) as { pending: unknown[] };
      waiting = left.length === 0;
    }
    expect(waiting).toBe(true);
    await emu.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe("close()", () => {
  it("closes with idle keep-alive sockets open", async () => {
    const t = await startTestEmu();
    expect(list(await t.get(`/api/v3/contexts?filter[org_id]=${ORG}`)).length).toBeGreaterThan(0);
    await t.close();
    await expect(fetch(`${t.url}/api/v3/orgs`)).rejects.toThrow();
  });
});
