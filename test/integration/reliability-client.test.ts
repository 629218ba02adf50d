/**
 * Issue 7, the client against the emulator's chaos option, in process: a body over the size
 * bound is cut off with a typed error naming the route; unknown members, huge-but-allowed and
 * slow bodies are read as if clean; an endless `page.next` stops at the page bound.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ResponseFormatError } from "../../src/api/errors.js";
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

const contexts = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `ctx-${i}` }));
const list = (c: Harness["client"]) =>
  c.listV3<{ name: string }>("/contexts", { "filter[org_id]": ORG_ID });

describe("the API client under chaos", () => {
  it("refuses a body over maxBodyBytes with a bad_response naming the route, without retrying", async () => {
    h = await startHarness(baseSeed({ contexts: contexts(3) }));
    await h.faults({ chaos: { rate: 1, kinds: ["huge"], huge_bytes: 200_000 } });
    const small = h.newClient({ maxBodyBytes: 100_000 });
    const err = await rejectionOf(list(small));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err.message).toMatch(
      /^GET \/api\/v3\/contexts\?\S+ returned an unusable response \(200\)/,
    );
    expect(err.message).toContain("larger than 100000 bytes");
    expect((await h.requests()).length).toBe(1);
    // The default bound reads the same answer, and ignores the padding.
    const items = await list(h.client);
    expect(items.map((c) => c.attributes.name).sort()).toEqual(["ctx-0", "ctx-1", "ctx-2"]);
  });

  it("reads unknown members and slow bodies as if clean", async () => {
    h = await startHarness(baseSeed({ contexts: contexts(45) }));
    const clean = await list(h.client);
    for (const kind of ["unknown_fields", "slow"] as const) {
      await h.faults({ chaos: { rate: 1, kinds: [kind], slow_ms: 20 } });
      const items = await list(h.client);
      expect(items.map((c) => c.id)).toEqual(clean.map((c) => c.id));
      expect(items.map((c) => c.attributes.name)).toEqual(clean.map((c) => c.attributes.name));
    }
  });

  it("stops an endless page.next at the page bound, returning nothing partial", async () => {
    h = await startHarness(baseSeed({ contexts: contexts(2) }));
    await h.faults({ chaos: { rate: 1, kinds: ["endless_next"] } });
    const err = await rejectionOf(list(h.newClient({ maxPages: 25 })));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err.message).toContain("more than 25 pages");
    expect((await h.requests()).length).toBe(25);
  });
});
