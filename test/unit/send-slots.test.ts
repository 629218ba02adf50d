/**
 * Issue 22: the client's send slots (src/api/send-slots.ts): at most `concurrency` tasks at
 * once, urgent ones ahead of queued ordinary ones, first in first out within each queue.
 * Tasks are settled by the test itself (deferred promises): no clocks.
 */
import { describe, expect, it } from "vitest";
import { createSendSlots } from "../../src/api/send-slots.js";

const deferred = () => {
  let resolve!: (v: string) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

const flush = () => new Promise<void>((r) => setImmediate(r));

describe("send slots", () => {
  it("runs at most `concurrency` tasks, and starts the next when one settles", async () => {
    const slots = createSendSlots(2);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const task = (name: string) => () => {
      started.push(name);
      const d = deferred();
      gates.set(name, d);
      return d.promise;
    };
    const results = ["a", "b", "c", "d"].map((n) => slots.run(task(n)));
    await flush();
    expect(started).toEqual(["a", "b"]);
    expect(slots.active).toBe(2);
    expect(slots.queued).toBe(2);
    gates.get("b")?.resolve("B");
    await expect(results[1]).resolves.toBe("B");
    await flush();
    expect(started).toEqual(["a", "b", "c"]);
    // A rejection releases its slot too, and reaches the caller.
    gates.get("a")?.reject(new Error("boom"));
    await expect(results[0]).rejects.toThrow("boom");
    await flush();
    expect(started).toEqual(["a", "b", "c", "d"]);
    gates.get("c")?.resolve("C");
    gates.get("d")?.resolve("D");
    await expect(Promise.all(results.slice(2))).resolves.toEqual(["C", "D"]);
    expect(slots.active).toBe(0);
  });

  it("starts an urgent task before every queued ordinary one, in order within each queue", async () => {
    const slots = createSendSlots(1);
    const started: string[] = [];
    const gate = deferred();
    const first = slots.run(() => {
      started.push("busy");
      return gate.promise;
    });
    const plain = (name: string) =>
      slots.run(async () => {
        started.push(name);
        return name;
      });
    const urgent = (name: string) =>
      slots.run(async () => {
        started.push(name);
        return name;
      }, true);
    const all = [
      plain("read-1"),
      plain("read-2"),
      urgent("page-2"),
      plain("read-3"),
      urgent("page-3"),
    ];
    await flush();
    gate.resolve("done");
    await Promise.all([first, ...all]);
    expect(started).toEqual(["busy", "page-2", "page-3", "read-1", "read-2", "read-3"]);
  });

  it("a task that throws synchronously rejects and frees its slot", async () => {
    const slots = createSendSlots(1);
    const bad = slots.run((): Promise<string> => {
      throw new Error("sync");
    });
    await expect(bad).rejects.toThrow("sync");
    await expect(slots.run(async () => "next")).resolves.toBe("next");
  });

  it("keeps first-in-first-out order over a long queue (compaction)", async () => {
    const slots = createSendSlots(1);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 5000 }, (_, i) =>
        slots.run(async () => {
          order.push(i);
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it("counts the tasks started: a release that lets a queued task go adds one, else none", async () => {
    const slots = createSendSlots(1);
    let finishFirst: () => void = () => {};
    const first = slots.run(() => new Promise<void>((r) => (finishFirst = r)));
    const second = slots.run(async () => {});
    expect(slots.started).toBe(1);
    // What the client reads when an answer arrives, then after its slot is released.
    const atAnswer = slots.started;
    finishFirst();
    await first;
    expect(slots.started).toBe(atAnswer + 1);
    await second;
    const atLast = slots.started;
    await slots.run(async () => {});
    // Nothing was queued behind the last task: its release started nothing more.
    expect(slots.started).toBe(atLast + 1);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => createSendSlots(0)).toThrow(RangeError);
    expect(() => createSendSlots(1.5)).toThrow(RangeError);
  });
});
