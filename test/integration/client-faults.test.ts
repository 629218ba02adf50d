import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import {
  type ApiError,
  NetworkError,
  RequestAbortedError,
  ResponseFormatError,
} from "../../src/api/errors.js";
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

const CTX = "cccccccc-1111-4222-8333-444444444444";

describe("API client under the emulator's injected faults", () => {
  it("stays under the emulator's token bucket by reading RateLimit (no 429 at all)", async () => {
    h = await startHarness(
      baseSeed(),
      { maxConcurrentRequests: 1 },
      {
        rate_limit: { capacity: 5, refill_per_second: 1 },
      },
    );
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        h!.client.get<{ data: { id: string } }>("v3", `/orgs/${ORG_ID}`),
      ),
    );
    expect(results.every((r) => r.data.id === ORG_ID)).toBe(true);
    const reqs = await h.requests();
    expect(reqs).toHaveLength(20);
    expect(reqs.filter((r) => r.status === 429)).toHaveLength(0);
    // It had to slow down: 20 requests through a bucket of 5 refilling 1/s take >= 15 s.
    expect(h.clock.waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(15_000);
  });

  it("recovers from a burst past the bucket with shared 429 pauses", async () => {
    h = await startHarness(
      baseSeed(),
      { maxConcurrentRequests: 10, retry: { maxAttempts: 10 } },
      {
        rate_limit: { capacity: 3, refill_per_second: 2 },
      },
    );
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        h!.client.get<{ data: { id: string } }>("v3", `/orgs/${ORG_ID}`),
      ),
    );
    expect(results).toHaveLength(12);
    const reqs = await h.requests();
    expect(reqs.filter((r) => r.status !== 429).length).toBe(12);
  });

  it("gets every read through random 429s, 500s and drops (reproducible by seed)", async () => {
    h = await startHarness(
      baseSeed({ projects: Array.from({ length: 60 }, (_, i) => ({ slug: `p${i}` })) }),
      { retry: { maxAttempts: 10, baseDelayMs: 10, maxDelayMs: 100 } },
      { seed: 7, rate_429: 0.15, retry_after_seconds: 1, rate_500: 0.15, rate_drop: 0.1 },
    );
    const lists = await Promise.all(
      [1, 2, 3].map(() => h!.client.listV3("/projects", { "filter[org_id]": ORG_ID })),
    );
    expect(lists.map((l) => l.length)).toEqual([60, 60, 60]);
    const reqs = await h.requests();
    expect(reqs.some((r) => r.fault !== undefined)).toBe(true);
  });

  it("treats a 404 on a retried DELETE as done (the first attempt committed, then failed)", async () => {
    h = await startHarness(baseSeed({ contexts: [{ id: CTX, name: "doomed" }] }));
    await h.script([
      { method: "DELETE", path: `/api/v3/contexts/${CTX}`, commit: true, status: 500, json: {} },
    ]);
    await h.client.delete("v3", `/contexts/${CTX}`);
    const dels = (await h.requests()).filter((r) => r.method === "DELETE");
    expect(dels.map((r) => r.status)).toEqual([500, 404]);
    // A first-attempt 404 is still an error.
    const err = await rejectionOf(h.client.delete("v3", `/contexts/${CTX}`));
    expect((err as ApiError).status).toBe(404);
  });

  it("aborts a request waiting out a pause", async () => {
    h = await startHarness();
    await h.script([
      {
        method: "GET",
        path: `/api/v3/orgs/${ORG_ID}`,
        status: 429,
        headers: { "retry-after": "60" },
      },
    ]);
    const controller = new AbortController();
    const pending = h.client.get("v3", `/orgs/${ORG_ID}`, undefined, { signal: controller.signal });
    setImmediate(() => controller.abort());
    const err = await rejectionOf(pending);
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect((err as RequestAbortedError).code).toBe("aborted");
  });

  it("fails typed after close()", async () => {
    h = await startHarness();
    const c = h.newClient();
    await c.close();
    const err = await rejectionOf(c.get("v3", `/orgs/${ORG_ID}`));
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).attempts).toBe(1);
  });
});

describe("API client against a misbehaving server (what the emulator cannot produce)", () => {
  it("reports a body shorter than its Content-Length as bad_response, after retries", async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"data": {"id": "x"');
      res.socket?.end();
      req.resume();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const clock = createFakeClock();
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      token: new Secret(TOKEN),
      clock,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    try {
      const err = await rejectionOf(client.get("v3", "/orgs"));
      expect(err).toBeInstanceOf(ResponseFormatError);
      expect((err as ResponseFormatError).code).toBe("bad_response");
      expect(err.message).toMatch(/cut off before its end \(after 2 attempts\)/);
      expect(hits).toBe(2);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
