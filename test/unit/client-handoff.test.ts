import { describe, expect, it } from "vitest";
import { createHandoff } from "../../src/api/handoff.js";

// The client hands an answer over only after the sends it released are written: undici
// writes a request on a reused connection in the check phase (setImmediate), so the
// handoff must come after every immediate queued in the same turn (src/api/handoff.ts).
describe("handoff of an answer to its caller", () => {
  it("resolves after the immediates queued in the same turn", async () => {
    const handoff = createHandoff();
    const order: string[] = [];
    const answers = [1, 2, 3].map((n) =>
      handoff().then(() => {
        order.push(`answer ${n}`);
      }),
    );
    // Sends released by those answers, queued after the handoffs were asked for.
    for (const n of [1, 2, 3]) setImmediate(() => order.push(`send ${n}`));
    await Promise.all(answers);
    expect(order).toEqual(["send 1", "send 2", "send 3", "answer 1", "answer 2", "answer 3"]);
  });

  it("serves every answer of a turn with one timer, and later turns with another", async () => {
    const handoff = createHandoff();
    const realSetTimeout = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      timers++;
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout;
    try {
      await Promise.all([handoff(), handoff(), handoff()]);
      expect(timers).toBe(1);
      await handoff();
      expect(timers).toBe(2);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
  });
});
