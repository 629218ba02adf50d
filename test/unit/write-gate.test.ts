/**
 * The write gate (src/lock/write-gate.ts): every write goes on the word of an ownership
 * check, each check admits at most one batch counted from when it starts, and checks are
 * paced by the writes (one per batch when writes are slower than checks, not one per write).
 */
import { describe, expect, it } from "vitest";
import { WriteWithheldError, writeGate } from "../../src/lock/write-gate.js";

/** A clock the test moves, and a confirm that takes `checkMs` of it and counts its calls. */
const harness = (checkMs: number, answer: () => boolean = () => true) => {
  let t = 0;
  let checks = 0;
  const pending: { at: number; resolve: () => void }[] = [];
  const confirm = () =>
    new Promise<void>((resolve, reject) => {
      checks += 1;
      const ok = answer();
      pending.push({
        at: t + checkMs,
        resolve: ok ? resolve : () => reject(new Error("claim is gone")),
      });
    });
  /** Move the clock to `to`, answering the checks due by then. */
  const advance = async (to: number) => {
    t = to;
    const due = pending.filter((p) => p.at <= t);
    const later = pending.filter((p) => p.at > t);
    pending.splice(0, pending.length, ...later);
    for (const p of due) p.resolve();
    await new Promise((r) => setImmediate(r));
  };
  return { now: () => t, confirm, advance, checks: () => checks };
};

describe("write gate", () => {
  it("writes slower than checks: about one check per batch, not one per write", async () => {
    const h = harness(10);
    const admit = writeGate(h.confirm, 5, h.now);
    let t = 0;
    for (let i = 0; i < 100; i++) {
      const done = admit();
      // Checks answer within 10 ms; writes come every 100 ms.
      await h.advance(t + 10);
      await done;
      t += 100;
      await h.advance(t);
    }
    // 100 writes in batches of 5: 20 batches, plus the first check and the ones started
    // before the pace was measured.
    expect(h.checks()).toBeLessThanOrEqual(24);
    expect(h.checks()).toBeGreaterThanOrEqual(20);
  });

  it("sparse writes: a check older than the freshness bound is renewed beside the next write", async () => {
    const h = harness(10);
    const admit = writeGate(h.confirm, 5, h.now, 5_000);
    let t = 0;
    for (let i = 0; i < 6; i++) {
      const done = admit();
      await h.advance(t + 10);
      await done;
      // A write every 6 s: the pace alone would wait for the batch to run out.
      t += 6_000;
      await h.advance(t);
    }
    expect(h.checks()).toBeGreaterThanOrEqual(6);
  });

  it("never admits more than one batch on the word of one check", async () => {
    const h = harness(50);
    const admit = writeGate(h.confirm, 3, h.now);
    const first = admit();
    await h.advance(50);
    await first;
    // Ten writers at once: at most one batch (3) goes before the next check answers.
    const admitted: number[] = [];
    const waits = Array.from({ length: 10 }, (_, i) => admit().then(() => admitted.push(i)));
    await new Promise((r) => setImmediate(r));
    expect(admitted.length).toBeLessThanOrEqual(3);
    await h.advance(100);
    await h.advance(150);
    await h.advance(200);
    await h.advance(250);
    await Promise.all(waits);
    expect(admitted).toHaveLength(10);
  });

  it("a check that finds the claim gone withholds every later write", async () => {
    let gone = false;
    const h = harness(5, () => !gone);
    const admit = writeGate(h.confirm, 2, h.now);
    const first = admit();
    await h.advance(5);
    await first;
    gone = true;
    const later = Array.from({ length: 6 }, () =>
      admit().then(
        () => "sent",
        (e) => e,
      ),
    );
    for (let t = 10; t <= 60; t += 5) await h.advance(t);
    const outcomes = await Promise.all(later);
    const sent = outcomes.filter((o) => o === "sent").length;
    // The file comment's bound: after the claim goes, at most two writes per slot (the
    // batch of the check that still saw it, and one admitted while the next check runs).
    expect(sent).toBeLessThanOrEqual(4);
    expect(sent).toBeLessThan(outcomes.length);
    for (const o of outcomes.filter((o) => o !== "sent")) {
      expect(o).toBeInstanceOf(WriteWithheldError);
    }
  });
});
