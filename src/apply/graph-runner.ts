import pLimit from "p-limit";
import { WaybillError } from "../core/errors.js";

/**
 * Runs a dependency graph of tasks with bounded parallelism (issue 5: "Run it with p-limit at
 * --parallelism; never call the limiter from inside a limited task").
 *
 * - A node starts only after every node it depends on is done.
 * - A failed node skips everything that depends on it, transitively; independent nodes go on.
 * - After `signal` aborts (SIGINT), nothing new starts; running nodes finish; the rest are
 *   reported as skipped because of the interruption.
 * - Resolves once every node has an outcome, in the order of `nodes`.
 *
 * Dependents are scheduled from the completion handler, outside the limited function, so a
 * limited task never waits on the limiter (which would deadlock at parallelism 1).
 */
export interface GraphNode<T> {
  readonly id: string;
  readonly dependsOn: readonly string[];
  readonly run: () => Promise<T>;
}

export type NodeOutcome<T> =
  | { readonly status: "done"; readonly id: string; readonly value: T; readonly ms: number }
  | { readonly status: "failed"; readonly id: string; readonly error: unknown; readonly ms: number }
  | {
      readonly status: "skipped";
      readonly id: string;
      /** The id of the failed (or skipped) dependency, "interrupted", or the stop's reason. */
      readonly because: string;
    };

export type GraphEvent<T> =
  | { readonly type: "started"; readonly id: string }
  | { readonly type: "finished"; readonly outcome: NodeOutcome<T> };

export interface RunGraphOptions<T> {
  readonly parallelism: number;
  /** Stop starting new nodes once aborted. */
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: GraphEvent<T>) => void;
  /** Milliseconds, for durations; injectable so tests are deterministic. */
  readonly now?: () => number;
}

/** The operation graph is malformed: a bug in the planner, never a user error. */
export class GraphError extends WaybillError {
  readonly code = "graph_invalid";
}

/** Validate the graph: unique ids, known dependencies, no cycle. */
export const checkGraph = <T>(nodes: readonly GraphNode<T>[]): void => {
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) throw new GraphError(`duplicate node ${n.id}`);
    ids.add(n.id);
  }
  for (const n of nodes) {
    for (const d of n.dependsOn) {
      if (!ids.has(d)) throw new GraphError(`${n.id} depends on unknown node ${d}`);
    }
  }
  // Kahn's algorithm: a cycle leaves nodes that never reach in-degree zero.
  const indegree = new Map(nodes.map((n) => [n.id, n.dependsOn.length]));
  const dependents = dependentsOf(nodes);
  const ready = nodes.filter((n) => n.dependsOn.length === 0).map((n) => n.id);
  let seen = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    seen += 1;
    for (const d of dependents.get(id) ?? []) {
      const left = indegree.get(d)! - 1;
      indegree.set(d, left);
      if (left === 0) ready.push(d);
    }
  }
  if (seen !== nodes.length) {
    const stuck = [...indegree].filter(([, v]) => v > 0).map(([k]) => k);
    throw new GraphError(`dependency cycle among ${stuck.join(", ")}`);
  }
};

const dependentsOf = <T>(nodes: readonly GraphNode<T>[]): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (const n of nodes) {
    for (const d of n.dependsOn) {
      const list = out.get(d) ?? [];
      list.push(n.id);
      out.set(d, list);
    }
  }
  return out;
};

/**
 * Why nothing new starts: "interrupted" (Ctrl-C), or the reason the caller stopped the run
 * with, when it aborted with a string (apply stops after a refused token: src/apply/run-apply.ts).
 */
const stopReason = (signal: AbortSignal): string =>
  typeof signal.reason === "string" ? signal.reason : "interrupted";

export const runGraph = async <T>(
  nodes: readonly GraphNode<T>[],
  options: RunGraphOptions<T>,
): Promise<NodeOutcome<T>[]> => {
  checkGraph(nodes);
  const { signal, onEvent } = options;
  const now = options.now ?? (() => performance.now());
  const limit = pLimit(Math.max(1, options.parallelism));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const dependents = dependentsOf(nodes);
  const waitingOn = new Map(nodes.map((n) => [n.id, n.dependsOn.length]));
  const outcomes = new Map<string, NodeOutcome<T>>();

  let settle: () => void = () => {};
  const allSettled = new Promise<void>((resolve) => {
    settle = resolve;
  });

  const record = (outcome: NodeOutcome<T>): void => {
    outcomes.set(outcome.id, outcome);
    onEvent?.({ type: "finished", outcome });
    if (outcomes.size === nodes.length) settle();
  };

  const skipDependents = (id: string, because: string): void => {
    for (const d of dependents.get(id) ?? []) {
      if (outcomes.has(d)) continue;
      record({ status: "skipped", id: d, because });
      skipDependents(d, because);
    }
  };

  const start = (id: string): void => {
    const node = byId.get(id)!;
    void limit(async (): Promise<NodeOutcome<T>> => {
      if (signal?.aborted) return { status: "skipped", id, because: stopReason(signal) };
      onEvent?.({ type: "started", id });
      const t0 = now();
      try {
        const value = await node.run();
        return { status: "done", id, value, ms: now() - t0 };
      } catch (error) {
        return { status: "failed", id, error, ms: now() - t0 };
      }
    }).then((outcome) => {
      // Outside the limited task: record, then release or skip the dependents.
      if (outcomes.has(id)) return;
      record(outcome);
      if (outcome.status === "done") {
        for (const d of dependents.get(id) ?? []) {
          const left = waitingOn.get(d)! - 1;
          waitingOn.set(d, left);
          if (left === 0 && !outcomes.has(d)) start(d);
        }
      } else {
        skipDependents(id, outcome.status === "skipped" ? outcome.because : id);
      }
    });
  };

  if (nodes.length === 0) return [];
  // After an abort, tasks already queued in the limiter still run their wrapper, which sees
  // the signal and reports "skipped" without calling the node: nothing new starts, and
  // every node still gets an outcome.
  for (const n of nodes) if (n.dependsOn.length === 0) start(n.id);
  await allSettled;
  return nodes.map((n) => outcomes.get(n.id)!);
};
