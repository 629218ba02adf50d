import { MockAgent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { ApiError, NetworkError } from "../../src/api/errors.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";

// The client takes its transport as an injected undici Dispatcher (issue 16: policy apart
// from transport); here a MockAgent that allows no real connection.
let mock: MockAgent | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const BASE = "http://127.0.0.1:9";

describe("API client with an injected dispatcher", () => {
  it("sends through it, applies its retry policy, and leaves it open on close()", async () => {
    mock = new MockAgent();
    mock.disableNetConnect();
    const pool = mock.get(BASE);
    pool.intercept({ path: "/api/v3/orgs/o1", method: "GET" }).reply(503, {});
    pool
      .intercept({ path: "/api/v3/orgs/o1", method: "GET" })
      .reply(200, { data: { id: "o1" } }, { headers: { "content-type": "application/json" } });
    const clock = createFakeClock();
    const client = createApiClient({
      baseUrl: BASE,
      token: "tok-abcdef",
      clock,
      random: () => 0,
      dispatcher: mock,
    });
    await expect(client.get("v3", "/orgs/o1")).resolves.toEqual({ data: { id: "o1" } });
    expect(clock.waits).toEqual([0]);
    await client.close();
    // The caller's dispatcher still works; the closed client sends nothing more.
    pool.intercept({ path: "/api/v3/orgs/o1", method: "GET" }).reply(401, {});
    await expect(client.get("v3", "/orgs/o1")).rejects.toBeInstanceOf(NetworkError);
    const other = createApiClient({ baseUrl: BASE, token: "tok-abcdef", clock, dispatcher: mock });
    const err = await other.get("v3", "/orgs/o1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).attempts).toBe(1);
  });
});

describe("a listing's later pages go ahead of queued requests (issue 22)", () => {
  it("sends page 2 of a listing before the reads queued while page 1 was in flight", async () => {
    mock = new MockAgent();
    mock.disableNetConnect();
    const pool = mock.get(BASE);
    const order: string[] = [];
    const json = { headers: { "content-type": "application/json" } };
    pool
      .intercept({ path: (p) => p.startsWith("/api/v3/contexts"), method: "GET" })
      .reply((req) => {
        const second = String(req.path).includes("cursor");
        order.push(second ? "page-2" : "page-1");
        return {
          statusCode: 200,
          data: {
            data: [{ id: second ? "c2" : "c1", attributes: {} }],
            page: { next: second ? null : "k2" },
          },
          responseOptions: json,
        };
      })
      .times(2);
    pool
      .intercept({ path: (p) => p.startsWith("/api/v3/orgs/"), method: "GET" })
      .reply((req) => {
        order.push(String(req.path).replace("/api/v3/orgs/", "read-"));
        return { statusCode: 200, data: { data: {} }, responseOptions: json };
      })
      // Each read holds its slot a while (as a real round trip does), so page 2 is queued
      // while read-1 is on the wire, behind read-2 and read-3.
      .delay(30)
      .times(3);
    const client = createApiClient({
      baseUrl: BASE,
      token: "tok-abcdef",
      clock: createFakeClock(),
      dispatcher: mock,
      maxConcurrentRequests: 1,
    });
    const listing = client.listV3("/contexts", { "filter[org_id]": "o1" });
    const reads = ["1", "2", "3"].map((n) => client.get("v3", `/orgs/${n}`));
    await expect(listing).resolves.toHaveLength(2);
    await Promise.all(reads);
    // read-1 takes the slot page 1 frees; then page 2 goes first. First in first out would
    // be page-1, read-1, read-2, read-3, page-2: the walk of a listing that releases reads
    // would wait behind them.
    expect(order).toEqual(["page-1", "read-1", "page-2", "read-2", "read-3"]);
    await client.close();
  });
});
