import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { ApiError, NetworkError, TimeoutError } from "../../src/api/errors.js";
import { Secret } from "../../src/core/secret.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";
import {
  baseSeed,
  type Harness,
  ORG_ID,
  rejectionOf,
  startHarness,
  TOKEN,
} from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const orgPath = `/api/v3/orgs/${ORG_ID}`;

describe("API client retries and rate limits (against the emulator)", () => {
  it("one 429 pauses every request of the client, with one shared wait", async () => {
    h = await startHarness(baseSeed(), { maxConcurrentRequests: 1 });
    await h.script([
      { method: "GET", path: orgPath, status: 429, headers: { "retry-after": "2" }, json: {} },
    ]);
    const t0 = h.clock.now();
    const results = await Promise.all(
      [1, 2, 3].map(() => h!.client.get<{ data: { id: string } }>("v3", `/orgs/${ORG_ID}`)),
    );
    expect(results.map((r) => r.data.id)).toEqual([ORG_ID, ORG_ID, ORG_ID]);
    // One pause of Retry-After, shared: not one wait per request.
    expect(h.clock.waits).toEqual([2000]);
    const reqs = (await h.requests()).filter((r) => r.path === orgPath);
    // After the pause: one 200 stores the ETag; the two queued behind it revalidate (304).
    expect(reqs.map((r) => r.status)).toEqual([429, 200, 304, 304]);
    // Every answer after the 429 came after the pause was over.
    const after = h.timedLog.filter((t) => t.entry.status !== 429);
    expect(after).toHaveLength(3);
    expect(after.every((t) => t.at >= t0 + 2000)).toBe(true);
  });

  it("a 429 seen by one request holds requests that were queued behind it", async () => {
    h = await startHarness(baseSeed({ contexts: [{ name: "a" }] }), { maxConcurrentRequests: 2 });
    await h.script([
      { method: "GET", path: orgPath, status: 429, headers: { "retry-after": "5" }, json: {} },
    ]);
    const t0 = h.clock.now();
    await Promise.all([
      h.client.get("v3", `/orgs/${ORG_ID}`),
      h.client.get("v3", `/orgs/${ORG_ID}/settings`),
      h.client.listV3("/contexts", { "filter[org_id]": ORG_ID }),
      h.client.listV3("/projects", { "filter[org_id]": ORG_ID }),
    ]);
    expect(h.clock.waits.filter((w) => w === 5000)).toHaveLength(1);
    const reqs = await h.requests();
    const first429 = reqs.findIndex((r) => r.status === 429);
    expect(first429).toBeGreaterThanOrEqual(0);
    // The requests that had not been sent when the 429 arrived went after the pause.
    const late = h.timedLog.filter((t) => t.entry.status !== 429 && t.at >= t0 + 5000);
    expect(late.length).toBeGreaterThanOrEqual(2);
  });

  it("honours Retry-After given as an HTTP-date", async () => {
    h = await startHarness();
    const at = new Date(h.clock.now() + 3000).toUTCString();
    await h.script([{ method: "GET", path: orgPath, status: 429, headers: { "retry-after": at } }]);
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.waits).toEqual([3000]);
  });

  it("fails at once when Retry-After is longer than the client agrees to wait", async () => {
    h = await startHarness(baseSeed(), { retry: { maxRetryAfterMs: 10_000 } });
    await h.script([
      { method: "GET", path: orgPath, status: 429, headers: { "retry-after": "3600" } },
    ]);
    const err = await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    expect(err.message).toMatch(/asked to wait 3600 s/);
    expect(h.clock.waits).toEqual([]);
  });

  it("backs off exponentially and gives up after maxAttempts", async () => {
    h = await startHarness(baseSeed(), {
      retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
    });
    await h.script([{ method: "GET", path: orgPath, status: 503, times: 10, json: {} }]);
    const err = await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).attempts).toBe(3);
    expect(err.message).toMatch(/after 3 attempts/);
    // random() = 0.5: half of 100, then half of 200.
    expect(h.clock.waits).toEqual([50, 100]);
    expect((await h.requests()).filter((r) => r.path === orgPath)).toHaveLength(3);
  });

  it("retries PUT and DELETE like GET", async () => {
    h = await startHarness();
    await h.script([
      { method: "DELETE", path: "/api/v3/contexts/*", status: 500, json: {} },
      { method: "DELETE", path: "/api/v3/contexts/*", status: 204 },
    ]);
    await h.client.delete("v3", "/contexts/00000000-0000-4000-8000-000000000001");
    expect((await h.requests()).filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([
      500, 204,
    ]);
  });

  it("never retries a POST on 500", async () => {
    h = await startHarness();
    await h.script([{ method: "POST", path: "/api/v3/contexts", status: 500, json: {} }]);
    const err = await rejectionOf(
      h.client.post("v3", "/contexts", {
        data: { attributes: { name: "x" }, references: { org: { id: ORG_ID } } },
      }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
    expect((await h.requests()).filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("never retries a POST whose connection dropped (it may have been processed)", async () => {
    h = await startHarness();
    await h.script([{ method: "POST", path: "/api/v3/contexts", drop: true, commit: true }]);
    const err = await rejectionOf(
      h.client.post("v3", "/contexts", {
        data: { attributes: { name: "dropped" }, references: { org: { id: ORG_ID } } },
      }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe("network_error");
    expect((await h.requests()).filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("retries a POST on 429 (not processed) and creates exactly once", async () => {
    h = await startHarness();
    await h.script([
      { method: "POST", path: "/api/v3/contexts", status: 429, headers: { "retry-after": "1" } },
    ]);
    const created = await h.client.post<{ data: { id: string; attributes: { name: string } } }>(
      "v3",
      "/contexts",
      { data: { attributes: { name: "deploy-prod" }, references: { org: { id: ORG_ID } } } },
    );
    expect(created.data.attributes.name).toBe("deploy-prod");
    expect(h.clock.waits).toEqual([1000]);
    const posts = (await h.requests()).filter((r) => r.method === "POST");
    expect(posts.map((r) => r.status)).toEqual([429, 201]);
    const listed = await h.client.listV3<{ name: string }>("/contexts", {
      "filter[org_id]": ORG_ID,
    });
    expect(listed.filter((c) => c.attributes.name === "deploy-prod")).toHaveLength(1);
  });

  it("retries a GET whose connection was dropped", async () => {
    h = await startHarness();
    await h.script([{ method: "GET", path: orgPath, drop: true }]);
    const org = await h.client.get<{ data: { id: string } }>("v3", `/orgs/${ORG_ID}`);
    expect(org.data.id).toBe(ORG_ID);
    const reqs = (await h.requests()).filter((r) => r.path === orgPath);
    expect(reqs).toHaveLength(2);
    expect(reqs[1]?.status).toBe(200);
    expect(h.log.map((e) => e.status)).toEqual(["error", 200]);
    expect(h.clock.waits).toHaveLength(1);
  });

  it("times out per attempt, retries, and reports a typed timeout", async () => {
    h = await startHarness(baseSeed(), {
      timeoutMs: 50,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    await h.faults({ seed: 1, latency_ms: 400, jitter_ms: 0 });
    const err = await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`));
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).code).toBe("timeout");
    expect((err as TimeoutError).attempts).toBe(2);
    expect(h.log.map((e) => e.status)).toEqual(["error", "error"]);
  });

  it("with none remaining, waits for one request's worth of budget, not for the whole reset", async () => {
    // Issue 22: `t` is when the budget is FULL again (a token bucket), not a window reset;
    // the policy's q per w seconds gives the refill rate.
    h = await startHarness();
    await h.script([
      {
        method: "GET",
        path: orgPath,
        status: 200,
        headers: { ratelimit: '"default";r=0;t=7', "ratelimit-policy": '"default";q=100;w=60' },
        json: { data: { id: ORG_ID, attributes: { slug: "gh/acme" } } },
      },
      {
        method: "GET",
        path: orgPath,
        status: 200,
        headers: { ratelimit: "limit=100, remaining=0, reset=3" },
        json: { data: { id: ORG_ID, attributes: { slug: "gh/acme" } } },
      },
      {
        method: "GET",
        path: orgPath,
        status: 200,
        headers: { ratelimit: '"x";r=0;t=5' },
        json: { data: { id: ORG_ID, attributes: { slug: "gh/acme" } } },
      },
    ]);
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.waits).toEqual([]);
    // 100 per 60 s: one request's worth comes back after 600 ms.
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.waits).toEqual([600]);
    // No window: 100 back within 3 s is 30 ms per request.
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.waits).toEqual([600, 30]);
    // Neither quota nor window: only then is `t` the time the budget comes back.
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.waits).toEqual([600, 30, 5000]);
    // Other routes were never held.
    await h.client.get("v3", `/orgs/${ORG_ID}/settings`);
    expect(h.clock.waits).toEqual([600, 30, 5000]);
    expect((await h.requests()).every((r) => r.status !== 429)).toBe(true);
  });

  it("reports connection refused as a typed network error after bounded retries", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));
    const clock = createFakeClock();
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: new Secret(TOKEN),
      clock,
      random: () => 1,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 1000 },
    });
    try {
      const err = await rejectionOf(client.get("v3", "/orgs"));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(
        new RegExp(
          `^GET /api/v3/orgs failed: could not reach 127\\.0\\.0\\.1:${port} \\(connection refused, ECONNREFUSED\\)`,
        ),
      );
      expect((err as NetworkError).attempts).toBe(3);
      expect(clock.waits).toEqual([10, 20]);
    } finally {
      await client.close();
    }
  });
});
