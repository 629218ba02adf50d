import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkGraph, type GraphNode, runGraph } from "../../src/apply/graph-runner.js";
import { propertyRuns } from "../helpers/property-runs.js";

const deferred = () => {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

const node = (id: string, dependsOn: string[], run: () => Promise<string>): GraphNode<string> => ({
  id,
  dependsOn,
  run,
});

describe("runGraph", () => {
  it("runs parents before children and returns outcomes in node order", async () => {
    const order: string[] = [];
    const mk = (id: string, deps: string[]) =>
      node(id, deps, async () => {
        order.push(id);
        return id;
      });
    const out = await runGraph([mk("env", ["ctx"]), mk("ctx", []), mk("r", ["ctx"])], {
      parallelism: 4,
    });
    expect(order[0]).toBe("ctx");
    expect(out.map((o) => `${o.id}:${o.status}`)).toEqual(["env:done", "ctx:done", "r:done"]);
  });

  it("never exceeds the parallelism", async () => {
    let running = 0;
    let peak = 0;
    const nodes = Array.from({ length: 20 }, (_, i) =>
      node(`n${i}`, [], async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running -= 1;
        return "";
      }),
    );
    await runGraph(nodes, { parallelism: 3 });
    expect(peak).toBe(3);
  });

  it("does not deadlock at parallelism 1 with deep chains", async () => {
    const nodes = Array.from({ length: 50 }, (_, i) =>
      node(`n${i}`, i === 0 ? [] : [`n${i - 1}`], async () => `n${i}`),
    );
    const out = await runGraph(nodes, { parallelism: 1 });
    expect(out.every((o) => o.status === "done")).toBe(true);
  });

  it("skips dependents of a failure, transitively, and goes on with the rest", async () => {
    const calls: string[] = [];
    const ok = (id: string, deps: string[] = []) =>
      node(id, deps, async () => {
        calls.push(id);
        return id;
      });
    const out = await runGraph(
      [
        node("ctx", [], async () => {
          throw new Error("boom");
        }),
        ok("env", ["ctx"]),
        ok("env-child", ["env"]),
        ok("other"),
      ],
      { parallelism: 2 },
    );
    expect(out.map((o) => o.status)).toEqual(["failed", "skipped", "skipped", "done"]);
    expect(out[1]).toMatchObject({ status: "skipped", because: "ctx" });
    expect(out[2]).toMatchObject({ status: "skipped", because: "ctx" });
    expect(calls).toEqual(["other"]);
  });

  it("starts nothing new after an abort, lets running nodes finish", async () => {
    const controller = new AbortController();
    const gate = deferred();
    const started: string[] = [];
    const nodes = [
      node("a", [], async () => {
        started.push("a");
        controller.abort();
        await gate.promise;
        return "a";
      }),
      node("b", [], async () => {
        started.push("b");
        return "b";
      }),
      node("c", ["a"], async () => {
        started.push("c");
        return "c";
      }),
    ];
    const running = runGraph(nodes, { parallelism: 1, signal: controller.signal });
    gate.resolve();
    const out = await running;
    expect(started).toEqual(["a"]);
    expect(out.map((o) => o.status)).toEqual(["done", "skipped", "skipped"]);
    expect(out[1]).toMatchObject({ because: "interrupted" });
    expect(out[2]).toMatchObject({ because: "interrupted" });
  });

  it("reports started and finished events", async () => {
    const events: string[] = [];
    await runGraph([node("a", [], async () => "a")], {
      parallelism: 1,
      onEvent: (e) => events.push(e.type === "started" ? `start ${e.id}` : `end ${e.outcome.id}`),
      now: () => 0,
    });
    expect(events).toEqual(["start a", "end a"]);
  });

  it("rejects cycles, unknown dependencies and duplicate ids", () => {
    const n = (id: string, deps: string[]) => node(id, deps, async () => id);
    expect(() => checkGraph([n("a", ["b"]), n("b", ["a"])])).toThrow(/cycle/);
    expect(() => checkGraph([n("a", ["zz"])])).toThrow(/unknown node zz/);
    expect(() => checkGraph([n("a", []), n("a", [])])).toThrow(/duplicate/);
  });

  it("property: every node gets one outcome and no child runs before its parents", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        async (spec, parallelism) => {
          // Node i may depend on one earlier node (a DAG by construction); some nodes fail.
          const finished = new Set<string>();
          const nodes = spec.map(([p, fails], i) => {
            const deps = i > 0 && p % 3 !== 0 ? [`n${p % i}`] : [];
            return node(`n${i}`, deps, async () => {
              for (const d of deps) expect(finished.has(d)).toBe(true);
              await new Promise((r) => setImmediate(r));
              finished.add(`n${i}`);
              if (fails && i % 4 === 0) throw new Error("x");
              return "";
            });
          });
          const out = await runGraph(nodes, { parallelism });
          expect(out).toHaveLength(nodes.length);
          for (const [i, o] of out.entries()) {
            const dep = nodes[i]!.dependsOn[0];
            if (dep && out.find((x) => x.id === dep)!.status !== "done") {
              expect(o.status).toBe("skipped");
            }
          }
        },
      ),
      { numRuns: propertyRuns(25) },
    );
  });
});

describe("runGraph with lanes (issue 22: a held route does not hold the slots)", () => {
  /** A lane whose budget the test sets; `whenAvailable` resolves when it is raised. */
  const heldLane = (key: string, budget: number) => {
    let left = budget;
    let opened = deferred();
    return {
      lane: {
        key,
        available: () => left,
        whenAvailable: () => opened.promise,
      },
      take: () => {
        left -= 1;
      },
      open: (n: number) => {
        left = n;
        opened.resolve();
        opened = deferred();
      },
    };
  };

  it("runs every node of a lane with budget while another lane is held, within the parallelism", async () => {
    const held = heldLane("POST /held", 0);
    const free = {
      key: "POST /free",
      available: () => Number.POSITIVE_INFINITY,
      whenAvailable: async () => {},
    };
    const order: string[] = [];
    let running = 0;
    let peak = 0;
    const mk = (id: string, onRun?: () => void) =>
      node(id, [], async () => {
        onRun?.();
        running += 1;
        peak = Math.max(peak, running);
        order.push(id);
        await new Promise((r) => setImmediate(r));
        running -= 1;
        return id;
      });
    // The held lane's nodes come first, as many as the slots: without lanes they would take
    // every slot and the free lane's nodes would wait behind them.
    const nodes = [
      ...Array.from({ length: 4 }, (_, i) => mk(`h${i}`, held.take)),
      ...Array.from({ length: 6 }, (_, i) => mk(`f${i}`)),
    ];
    const run = runGraph(nodes, {
      parallelism: 2,
      laneOf: (id) => (id.startsWith("h") ? held.lane : free),
    });
    // Let the free lane drain: every f node runs while the held lane has no budget.
    for (let i = 0; i < 50 && order.length < 6; i++) await new Promise((r) => setImmediate(r));
    expect(order).toEqual(["f0", "f1", "f2", "f3", "f4", "f5"]);
    held.open(4);
    const out = await run;
    expect(out.every((o) => o.status === "done")).toBe(true);
    expect(order.slice(6).sort()).toEqual(["h0", "h1", "h2", "h3"]);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it("starts no more nodes of a lane than its budget, and the rest when budget comes back", async () => {
    const held = heldLane("PUT /x", 1);
    const gate = deferred();
    let started = 0;
    const nodes = Array.from({ length: 3 }, (_, i) =>
      node(`n${i}`, [], async () => {
        started += 1;
        held.take();
        await gate.promise;
        return "";
      }),
    );
    const run = runGraph(nodes, { parallelism: 10, laneOf: () => held.lane });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(started).toBe(1);
    gate.resolve();
    held.open(5);
    const out = await run;
    expect(started).toBe(3);
    expect(out.every((o) => o.status === "done")).toBe(true);
  });

  it("after an abort, nodes waiting for their lane are skipped, never started", async () => {
    const held = heldLane("POST /held", 0);
    const controller = new AbortController();
    let started = 0;
    const nodes = [
      node("a", [], async () => {
        started += 1;
        return "";
      }),
      node("b", ["a"], async () => {
        started += 1;
        return "";
      }),
    ];
    const run = runGraph(nodes, {
      parallelism: 2,
      signal: controller.signal,
      laneOf: () => held.lane,
    });
    await new Promise((r) => setImmediate(r));
    controller.abort();
    const out = await run;
    expect(started).toBe(0);
    expect(out.map((o) => o.status)).toEqual(["skipped", "skipped"]);
  });
});
