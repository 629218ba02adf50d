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
 * - With `laneOf` (issue 22): every node's first request takes a rate-limited route (its
 *   lane). A node starts only when its lane has budget, so a node whose route is held does
 *   not take one of the `parallelism` slots: while one route waits, nodes of routes that
 *   have budget run. Ready nodes start round-robin over their lanes, in order within each.
 *
 * Dependents are scheduled from the completion handler, outside the running node, so a
 * node never waits for a slot (which would deadlock at parallelism 1).
 */
export interface GraphNode<T> {
  readonly id: string;
  readonly dependsOn: readonly string[];
  readonly run: () => Promise<T>;
}

/**
 * The rate-limited route a node's first request takes (src/api/types.ts RouteLane): nodes
 * of one lane share its budget.
 */
export interface Lane {
  readonly key: string;
  /** Requests the lane could start now (`Infinity`: no limit known). */
  available(): number;
  /** Resolves once the lane could start one; rejects when `signal` aborts. */
  whenAvailable(signal?: AbortSignal): Promise<void>;
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
  /** The lane of a node, asked when it is ready (its dependencies are done). */
  readonly laneOf?: (id: string) => Lane | undefined;
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
  const parallelism = Math.max(1, options.parallelism);
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

  /** Ready nodes by lane, in the order lanes first had one (round-robin order). */
  interface LaneQueue {
    readonly lane: Lane | undefined;
    readonly ids: string[];
    /** Index of the next id to start (a head index: shift() is linear on long queues). */
    head: number;
    /** Nodes of this lane started and not finished. */
    running: number;
    /** A wait for the lane's budget is pending. */
    waking: boolean;
  }
  const queues = new Map<string, LaneQueue>();
  let running = 0;

  const ready = (id: string): void => {
    const lane = options.laneOf?.(id);
    const key = lane?.key ?? "";
    let q = queues.get(key);
    if (q === undefined) {
      q = { lane, ids: [], head: 0, running: 0, waking: false };
      queues.set(key, q);
    }
    q.ids.push(id);
  };

  /**
   * Whether one more node of the lane may start. Conservative: a started node whose request
   * is already sent is counted both in `running` and in the budget it took, so a lane may
   * start a little less than it could, never more (a node started beyond the budget would
   * hold a slot while it waits).
   */
  const admits = (q: LaneQueue): boolean =>
    q.lane === undefined || q.lane.available() - q.running >= 1;

  /** Wake the dispatcher when a held lane with nothing running has budget again. */
  const wake = (q: LaneQueue): void => {
    if (q.waking || q.running > 0 || q.lane === undefined) return;
    q.waking = true;
    const again = (): void => {
      q.waking = false;
      dispatch();
    };
    q.lane.whenAvailable(signal).then(again, again);
  };

  const dispatch = (): void => {
    if (signal?.aborted) {
      // Nothing new starts: every ready node, and what depends on it, is skipped.
      const because = stopReason(signal);
      for (const q of queues.values()) {
        for (; q.head < q.ids.length; q.head++) {
          const id = q.ids[q.head] as string;
          if (outcomes.has(id)) continue;
          record({ status: "skipped", id, because });
          skipDependents(id, because);
        }
      }
      return;
    }
    let started = true;
    while (running < parallelism && started) {
      started = false;
      for (const q of queues.values()) {
        if (running >= parallelism) break;
        if (q.head >= q.ids.length) continue;
        if (!admits(q)) {
          wake(q);
          continue;
        }
        const id = q.ids[q.head] as string;
        q.head += 1;
        if (q.head === q.ids.length) {
          q.ids.length = 0;
          q.head = 0;
        }
        run(id, q);
        started = true;
      }
    }
  };

  const run = (id: string, q: LaneQueue): void => {
    const node = byId.get(id)!;
    running += 1;
    q.running += 1;
    onEvent?.({ type: "started", id });
    const t0 = now();
    node
      .run()
      .then(
        (value): NodeOutcome<T> => ({ status: "done", id, value, ms: now() - t0 }),
        (error: unknown): NodeOutcome<T> => ({ status: "failed", id, error, ms: now() - t0 }),
      )
      .then((outcome) => {
        running -= 1;
        q.running -= 1;
        if (!outcomes.has(id)) {
          record(outcome);
          if (outcome.status === "done") {
            for (const d of dependents.get(id) ?? []) {
              const left = waitingOn.get(d)! - 1;
              waitingOn.set(d, left);
              if (left === 0 && !outcomes.has(d)) ready(d);
            }
          } else {
            skipDependents(id, id);
          }
        }
        dispatch();
      });
  };

  if (nodes.length === 0) return [];
  // After an abort, nothing new starts; running nodes finish, and every node still gets an
  // outcome (dispatch skips the ready ones, skipDependents the rest).
  const onAbort = (): void => dispatch();
  signal?.addEventListener("abort", onAbort, { once: true });
  for (const n of nodes) if (n.dependsOn.length === 0) ready(n.id);
  dispatch();
  await allSettled;
  signal?.removeEventListener("abort", onAbort);
  return nodes.map((n) => outcomes.get(n.id)!);
};
