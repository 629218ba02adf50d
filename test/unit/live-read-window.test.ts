import { describe, expect, it } from "vitest";
import { readWindow } from "../../src/live/read-window.js";

/** A task that runs until released, recording when it started. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
};

describe("the live reader's window of parents read at once", () => {
  it("starts at most its size, the rest in order as earlier ones end", async () => {
    const window = readWindow(2);
    const started: number[] = [];
    const gates = [0, 1, 2, 3, 4].map(() => gate());
    const done = gates.map((g, i) =>
      window(async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]?.open();
    await done[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.open();
    gates[2]?.open();
    await Promise.all([done[0], done[2]]);
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3]?.open();
    gates[4]?.open();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a task that fails rejects its own promise and frees its place", async () => {
    const window = readWindow(1);
    const failed = window(async () => {
      throw new Error("listing refused");
    });
    const next = window(async () => "read");
    await expect(failed).rejects.toThrow("listing refused");
    expect(await next).toBe("read");
  });

  it("a task not yet admitted has not started", async () => {
    const window = readWindow(1);
    const g = gate();
    let secondStarted = false;
    const first = window(() => g.opened);
    const second = window(async () => {
      secondStarted = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(secondStarted).toBe(false);
    g.open();
    await Promise.all([first, second]);
    expect(secondStarted).toBe(true);
  });
});
