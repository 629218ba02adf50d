/**
 * Run a plan (design.md §1 "Apply"): the operation graph (src/plan/order.ts) through the
 * graph runner (src/apply/graph-runner.ts) at `parallelism`; a failed operation skips its
 * dependents and the rest goes on; after `signal` aborts nothing new starts and running
 * calls finish.
 */
import { setMaxListeners } from "node:events";
import { ApiError, NetworkError, RequestAbortedError, TimeoutError } from "../api/errors.js";
import { isCredentialStatus } from "../api/retry-policy.js";
import type { Api } from "../api/types.js";
import { WriteWithheldError } from "../lock/write-gate.js";
import type { DesiredConfig } from "../model/desired.js";
import { type Operation, type OperationPhase, orderOperations } from "../plan/order.js";
import type { Change, Plan } from "../plan/types.js";
import { indexDesired } from "./desired-index.js";
import {
  executeOperation,
  newIdRegistry,
  type OperationResult,
  type OperationVerb,
} from "./executor.js";
import { type GraphNode, type Lane, runGraph } from "./graph-runner.js";

/** What the API said about a failure (issue 5: status, title, detail and pointer). */
export interface FailureInfo {
  readonly message: string;
  readonly status?: number;
  readonly type?: string;
  readonly title?: string;
  readonly detail?: string;
  readonly pointer?: string;
  /**
   * Issue 28: what a re-run can do about it. `retryable`: a network failure, a timeout, a
   * 5xx, a 429 after its budget or an interrupted call: nothing is wrong with the request, so
   * a re-run converges. `refused`: the service answered 3xx/4xx (api-v3.md Errors): the same
   * request is refused again, the cause must be fixed first. `error`: anything else (a plan
   * that does not fit the config, an answer Waybill cannot read): not promised to converge.
   */
  readonly retry: "retryable" | "refused" | "error";
  /** The service's own words for a refusal: V3 `detail` or `title`, V2 `message`. */
  readonly reason?: string;
}

interface OutcomeBase {
  readonly op: string;
  readonly org: string;
  readonly address: string;
  readonly resource_type: Change["resource_type"];
  readonly action: Change["action"];
  readonly phase: OperationPhase;
}

export type OperationOutcome =
  | (OutcomeBase & {
      readonly status: "done";
      readonly verb: OperationVerb;
      readonly ms: number;
      readonly notes: readonly string[];
    })
  | (OutcomeBase & { readonly status: "failed"; readonly error: FailureInfo; readonly ms: number })
  | (OutcomeBase & { readonly status: "skipped"; readonly because: string });

export interface ApplyResult {
  readonly outcomes: readonly OperationOutcome[];
  readonly done: number;
  readonly failed: number;
  readonly skipped: number;
  readonly interrupted: boolean;
  /**
   * Set when apply stopped starting operations because the service refused the token (401
   * or 403: spec: api-v3.md Authentication rule 5): every later operation would be refused
   * too, so it is not sent (issue 21). Operations already running finished.
   */
  readonly stopped?: { readonly status: number; readonly reason: string };
}

export type ApplyEvent =
  | { readonly type: "started"; readonly total: number; readonly op: Operation }
  | { readonly type: "finished"; readonly total: number; readonly outcome: OperationOutcome };

export interface RunApplyOptions {
  readonly parallelism: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: ApplyEvent) => void;
  /** Milliseconds, for durations (injectable for tests). */
  readonly now?: () => number;
  /** The wait before re-listing after a timed-out create (injectable: tests never sleep). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Live ids this plan removes: deletes, the old half of replaces, same-key surplus. */
const idsDeleted = (plan: Plan): ReadonlySet<string> => {
  const out = new Set<string>();
  for (const c of plan.changes) {
    const id = c.params.id;
    if ((c.action === "delete" || c.action === "replace") && typeof id === "string") out.add(id);
  }
  return out;
};

/** The error and its causes, outermost first (a refusal wraps the service's answer). */
const causes = (err: unknown): unknown[] => {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && out.length < 6; ) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
};

const reasonOf = (api: ApiError): string | undefined => api.detail ?? api.v2Message ?? api.title;

/** How a failure is classed for the summary (FailureInfo.retry). */
export const retryClass = (err: unknown): FailureInfo["retry"] => {
  const chain = causes(err);
  const api = chain.find((e): e is ApiError => e instanceof ApiError);
  if (api !== undefined) {
    return api.status === 429 || api.status >= 500 ? "retryable" : "refused";
  }
  const transient = chain.some(
    (e) =>
      e instanceof NetworkError ||
      e instanceof TimeoutError ||
      e instanceof RequestAbortedError ||
      // Issue 42: withheld because the lock was lost: a re-run under the lock converges.
      e instanceof WriteWithheldError,
  );
  return transient ? "retryable" : "error";
};

/**
 * What the summary says of a failure: the top error's message (a refusal adds what it
 * means), and the service's fields from the answer beneath it, wherever it is wrapped.
 */
export const failureInfo = (err: unknown): FailureInfo => {
  const retry = retryClass(err);
  const api = causes(err).find((e): e is ApiError => e instanceof ApiError);
  const message = err instanceof Error ? err.message : String(err);
  if (api !== undefined) {
    return {
      message,
      status: api.status,
      ...(api.type !== undefined ? { type: api.type } : {}),
      ...(api.title !== undefined ? { title: api.title } : {}),
      ...(api.detail !== undefined ? { detail: api.detail } : {}),
      ...(api.pointer !== undefined ? { pointer: api.pointer } : {}),
      retry,
      ...(reasonOf(api) === undefined ? {} : { reason: reasonOf(api) as string }),
    };
  }
  return { message, retry };
};

export const runApply = async (
  api: Api,
  plan: Plan,
  desired: DesiredConfig,
  options: RunApplyOptions,
): Promise<ApplyResult> => {
  const { operations } = orderOperations(plan);
  const total = operations.length;
  const deps = {
    api,
    desired: indexDesired(desired),
    ids: newIdRegistry(),
    deleting: idsDeleted(plan),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };
  const byId = new Map(operations.map((o) => [o.id, o]));
  const base = (op: Operation): OutcomeBase => {
    const c = plan.changes[op.change] as Change;
    return {
      op: op.id,
      org: op.org,
      address: op.address,
      resource_type: c.resource_type,
      action: c.action,
      phase: op.phase,
    };
  };
  // Stops the graph after a refused token; the user's signal (Ctrl-C) stops it too.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  let stopped: ApplyResult["stopped"];
  const nodes: GraphNode<OperationResult>[] = operations.map((op) => ({
    id: op.id,
    dependsOn: op.after,
    run: async () => {
      try {
        return await executeOperation(deps, plan.changes[op.change] as Change, op.phase);
      } catch (err) {
        // Inside the running operation, before its parallelism slot is released: the
        // operation queued behind it sees the stop and is not started.
        if (stopped === undefined && err instanceof ApiError && isCredentialStatus(err.status)) {
          stopped = {
            status: err.status,
            reason: `not started: the service refused the token (${err.status}) on an earlier operation`,
          };
          stop.abort(stopped.reason);
        }
        throw err;
      }
    },
  }));
  const toOutcome = (
    o: Awaited<ReturnType<typeof runGraph<OperationResult>>>[number],
  ): OperationOutcome => {
    const op = byId.get(o.id) as Operation;
    switch (o.status) {
      case "done":
        return { ...base(op), status: "done", verb: o.value.verb, ms: o.ms, notes: o.value.notes };
      case "failed":
        return { ...base(op), status: "failed", error: failureInfo(o.error), ms: o.ms };
      case "skipped": {
        const dep = byId.get(o.because);
        return {
          ...base(op),
          status: "skipped",
          because:
            o.because === "interrupted"
              ? "interrupted"
              : dep
                ? `${dep.address} (${dep.phase}) failed`
                : o.because,
        };
      }
    }
  };
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // Issue 22: each operation waits for the budget of its first call's route outside the
  // parallelism slots, so a route the service holds (a 429, an empty RateLimit) does not stop
  // the operations of routes that have budget.
  const laneOf = (id: string): Lane | undefined => {
    const op = byId.get(id);
    if (op === undefined || api.lane === undefined) return undefined;
    const first = (plan.changes[op.change] as Change).calls.find((c) => c.phase === op.phase);
    return first === undefined ? undefined : api.lane(first.method, first.api, first.route);
  };
  const raw = await runGraph(nodes, {
    parallelism: options.parallelism,
    signal,
    laneOf,
    ...(options.now ? { now: options.now } : {}),
    onEvent: (e) => {
      if (!options.onEvent) return;
      if (e.type === "started") {
        options.onEvent({ type: "started", total, op: byId.get(e.id) as Operation });
      } else {
        options.onEvent({ type: "finished", total, outcome: toOutcome(e.outcome) });
      }
    },
  });
  const outcomes = raw.map(toOutcome);
  return {
    outcomes,
    done: outcomes.filter((o) => o.status === "done").length,
    failed: outcomes.filter((o) => o.status === "failed").length,
    skipped: outcomes.filter((o) => o.status === "skipped").length,
    interrupted: options.signal?.aborted === true,
    ...(stopped ? { stopped } : {}),
  };
};
