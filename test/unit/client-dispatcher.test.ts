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
