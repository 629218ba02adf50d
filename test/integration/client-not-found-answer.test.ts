import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { probeSynthetic } from "../../src/live/synthetic.js";
import { type Harness, startHarness } from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const MISSING = "99999999-1111-4222-8333-444444444444";

/** A harness whose client counts the texts it scrubs (each error built scrubs some). */
const countingScrubs = async (): Promise<{ scrubbed: () => number }> => {
  let n = 0;
  h = await startHarness(undefined, {
    scrub: (text) => {
      n++;
      return text;
    },
  });
  return { scrubbed: () => n };
};

describe("a GET whose 404 is an expected answer (against the emulator)", () => {
  it("resolves undefined on a 404 and builds no error: nothing is scrubbed", async () => {
    const { scrubbed } = await countingScrubs();
    const got = await h!.client.get("v3", `/pipelines/${MISSING}`, undefined, {
      notFoundIsAnswer: true,
    });
    expect(got).toBeUndefined();
    expect(scrubbed()).toBe(0);
    const reqs = (await h!.requests()).filter((r) => r.path === `/api/v3/pipelines/${MISSING}`);
    expect(reqs.map((r) => r.status)).toEqual([404]);
  });

  it("without the option the same 404 rejects with the service's error, scrubbed", async () => {
    const { scrubbed } = await countingScrubs();
    const err = await h!.client.get("v3", `/pipelines/${MISSING}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect(scrubbed()).toBeGreaterThan(0);
  });

  it("other failures still reject with the option: a 400 is not an answer", async () => {
    h = await startHarness();
    // A listing without its required scope filter is 400 (api-v3.md Errors).
    const err = await h.client
      .get("v3", "/contexts", undefined, { notFoundIsAnswer: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
  });

  it("the synthetic-pipeline probe reads a 404 as synthetic, with and without the option's support", async () => {
    h = await startHarness();
    expect(await probeSynthetic(h.client, MISSING)).toBe(true);
    // A client that ignores the option (a wrapper, a stub) rejects with the 404 instead.
    const ignoring = {
      ...h.client,
      get: <T>(gen: "v3" | "v2", path: string) => h!.client.get<T>(gen, path),
    };
    expect(await probeSynthetic(ignoring, MISSING)).toBe(true);
  });
});
