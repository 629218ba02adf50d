/**
 * V2's rate limit is per token (spec: api-v2-v1.md Limits: "5000 requests per hour per
 * token"; Errors §2: "Throttled requests get 429, usually with Retry-After"), so a V2 429
 * holds every V2 route of the client for its Retry-After, not only the route that got it.
 * V3's limits are per route (api-v3.md Limits): a V3 request is not held by a V2 429.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  baseSeed,
  type Harness,
  ORG_ID,
  rejectionOf,
  startHarness,
} from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("API client: a V2 429 holds the token's V2 budget", () => {
  it("another V2 route waits out the Retry-After; a V3 route does not", async () => {
    // One attempt: the 429 ends the first request, and its hold stays for the next ones.
    h = await startHarness(baseSeed(), { retry: { maxAttempts: 1 } });
    await h.script([
      {
        method: "GET",
        path: "/api/v2/otel/exporters",
        status: 429,
        headers: { "retry-after": "4" },
        json: { message: "Rate limit exceeded" },
      },
      { method: "GET", path: "/api/v2/project/*/checkout-key", status: 200, json: { items: [] } },
    ]);
    const err = await rejectionOf(h.client.get("v2", "/otel/exporters"));
    expect(err.message).toMatch(/429/);
    const t0 = h.clock.now();
    // A V3 read goes at once: V3's limits are per route.
    await h.client.get("v3", `/orgs/${ORG_ID}`);
    expect(h.clock.now()).toBe(t0);
    expect(h.clock.waits).toEqual([]);
    // Another V2 route waits out the token's hold before it is sent.
    await h.client.get("v2", "/project/gh/acme/api/checkout-key");
    expect(h.clock.waits).toEqual([4_000]);
    const sent = h.timedLog.find((t) => t.entry.path.startsWith("/api/v2/project/"));
    expect(sent?.at).toBeGreaterThanOrEqual(t0 + 4_000);
    // During the hold the service saw no V2 request: the second V2 one came after it.
    const v2 = (await h.requests()).filter((r) => r.api === "v2");
    expect(v2.map((r) => r.status)).toEqual([429, 200]);
  });
});
