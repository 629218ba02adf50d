import type { ResolvedOptions } from "./client-options.js";
import {
  formatSeconds,
  InvalidRequestError,
  RequestAbortedError,
  ResponseFormatError,
} from "./errors.js";
import type { CachedResponse, createEtagCache } from "./etag-cache.js";
import { createHandoff } from "./handoff.js";
import { headerValue, type RawHeaders, readRateLimit } from "./headers.js";
import {
  boundEndedRequest,
  firstAttemptTimeoutMs,
  nextAttemptTimeoutMs,
  noTimeLeftForRetry,
  noticedBoundMs,
} from "./request-bound.js";
import type { Attempt, Call, Success } from "./request-call.js";
import { apiPath, routeKey } from "./request-target.js";
import type { createResponseErrors } from "./response-errors.js";
import {
  type AttemptResult,
  decideRetry,
  type Method,
  type RetryDecision,
} from "./retry-policy.js";
import type { createRouteScheduler } from "./route-scheduler.js";
import { type createSender, serialiseBody, tryParseJson } from "./send.js";
import type { createSendSlots } from "./send-slots.js";

/** What the retry loop drives: the client's shared parts (nothing here is per request). */
export interface RetryLoopParts {
  readonly o: ResolvedOptions;
  readonly slots: ReturnType<typeof createSendSlots>;
  readonly cache: ReturnType<typeof createEtagCache>;
  readonly scheduler: ReturnType<typeof createRouteScheduler>;
  readonly sendOnce: ReturnType<typeof createSender>;
  readonly warnIfDeprecated: (method: Method, fullPath: string, headers: RawHeaders) => void;
  readonly errors: ReturnType<typeof createResponseErrors>;
}

/** The request loop: wait for the route's turn, send in a slot, decide, retry or fail. */
export const createRetryLoop = ({
  o,
  slots,
  cache,
  scheduler,
  sendOnce,
  warnIfDeprecated,
  errors,
}: RetryLoopParts): ((call: Call) => Promise<Success>) => {
  const { clock } = o;
  const { parseJson, failure } = errors;
  const handoff = createHandoff();

  /**
   * What a response changes for every request of the client, applied inside the send's
   * concurrency slot: the ETag cache and the rate-limit pacing (a 429's pause is the
   * policy's `throttleMs`, applied by `execute`).
   */
  const steer = (
    sent: { readonly status: number; readonly headers: RawHeaders; readonly body: string },
    method: Method,
    fullPath: string,
    route: string,
  ): { readonly value: unknown } | undefined => {
    scheduler.observe(route, readRateLimit(sent.headers), sent.status);
    if (sent.status !== 200 || method !== "GET") return undefined;
    const etag = headerValue(sent.headers, "etag");
    if (etag === undefined) return undefined;
    // Only a JSON body is cached; the parse is handed back so the body is parsed once
    // (issue 8: JSON.parse of every page twice was a measurable share of a plan's CPU).
    const parsed = tryParseJson(sent.body);
    if (parsed !== undefined) cache.set(fullPath, { etag, body: sent.body });
    return parsed;
  };

  /** A 404 the caller takes as an answer (RequestOptions.notFoundIsAnswer). */
  const notFoundAnswer = (call: Call, sent: Attempt): boolean =>
    call.notFoundIsAnswer === true && sent.kind === "response" && sent.status === 404;

  /** A step the caller will work on: a success, a 304, or a 404 it takes as an answer. */
  const isAnswer = (
    call: Call,
    step: { readonly sent: Attempt; readonly decision: RetryDecision | undefined },
  ): boolean =>
    step.decision === undefined ||
    step.decision.action === "done" ||
    notFoundAnswer(call, step.sent);

  const waitOrAbort = async (wait: Promise<void>): Promise<boolean> => {
    try {
      await wait;
      return true;
    } catch {
      return false;
    }
  };

  /** The policy's view of one attempt (src/api/retry-policy.ts). */
  const policyResult = (a: Exclude<Attempt, { kind: "aborted" }>): AttemptResult => {
    switch (a.kind) {
      case "response":
        return { kind: "response", status: a.status, headers: a.headers };
      case "network":
        return { kind: "network", retriable: a.retriable };
      default:
        return { kind: a.kind };
    }
  };

  /**
   * Send with retries (issue 2 §2; spec: api-v3.md Limits, Idempotency). What to do after
   * each attempt is decided by `decideRetry` (src/api/retry-policy.ts); this loop only
   * waits, sends and builds the typed error. A 429 holds its route only (a V2 429: every V2
   * route, V2's limit being per token).
   */
  const execute = async (call: Call): Promise<Success> => {
    const fullPath = apiPath(call.api, call.path, call.query);
    let payload: string | undefined;
    try {
      payload = call.body === undefined ? undefined : serialiseBody(call.body);
    } catch (cause) {
      // Never echo the body: it may hold secrets. Only say what went wrong.
      throw new InvalidRequestError(
        `${call.method} ${fullPath}: the request body cannot be sent (${
          cause instanceof Error ? cause.message : "not serialisable"
        })`,
      );
    }
    const idempotent = call.method !== "POST";
    const aborted = (): RequestAbortedError =>
      new RequestAbortedError(`${call.method} ${fullPath} was aborted`);

    // Whether an earlier attempt may have been processed although no success was read
    // (a 5xx, a timeout, a dropped connection): see the DELETE 404 rule of the policy.
    let uncertain = false;
    let attempt = 1;
    // The request's bound (`requestTimeoutMs`): what its attempts and backoff waits used so
    // far, each attempt's own timeout (cut to what is left), and whether the bound ended it.
    let spentMs = 0;
    let attemptTimeoutMs = firstAttemptTimeoutMs(o);
    let boundEnded = false;
    // The route's budget is kept apart from every other route's (src/api/route-scheduler.ts).
    const route = routeKey(call.method, call.api, call.path);
    for (;;) {
      if (!(await waitOrAbort(scheduler.waitTurn(route, call.api === "v2", call.signal)))) {
        throw aborted();
      }
      let cached: CachedResponse | undefined;
      let started = clock.now();
      // Sends started when this answer arrived: more after its release means it let a
      // queued send go, which is written in the check phase (src/api/handoff.ts).
      let startedAtAnswer = Number.POSITIVE_INFINITY;
      const step = await slots.run(() => {
        // The send time is decided here, at the send: a 429 or a budget spent while this
        // request queued for a slot sends it back to wait.
        if (!scheduler.tryTake(route, call.api === "v2")) return Promise.resolve(undefined);
        // Read the cache at send time: a request queued behind an identical one then
        // revalidates the answer that one just stored.
        cached = call.method === "GET" ? cache.get(fullPath) : undefined;
        started = clock.now();
        // Real time, like the attempt's timer: the bound is about the user's wait.
        const sentAt = performance.now();
        return sendOnce(call, fullPath, payload, cached?.etag, attemptTimeoutMs).then((sent) => {
          startedAtAnswer = slots.started;
          spentMs += performance.now() - sentAt;
          if (sent.kind !== "response") scheduler.finished(route);
          if (sent.kind === "aborted") return { sent, decision: undefined };
          const decision =
            sent.kind === "response" && sent.status === 304 && call.method === "GET"
              ? undefined
              : decideRetry({
                  method: call.method,
                  idempotent,
                  attempt,
                  maxAttempts: o.maxAttempts,
                  result: policyResult(sent),
                  uncertainBefore: uncertain,
                  now: clock.now(),
                  jitter:
                    sent.kind === "response" && sent.status >= 200 && sent.status < 300
                      ? 0
                      : o.random(),
                  backoff: o.backoff,
                  maxRetryAfterMs: o.maxRetryAfterMs,
                });
          // Everything that steers the OTHER requests happens before the slot is released:
          // the slots start the next queued send as soon as this function settles, so a
          // pause set any later would let that send through into the limit (or the 429).
          if (decision !== undefined && "throttleMs" in decision && decision.throttleMs) {
            scheduler.throttle(route, decision.throttleMs, call.api === "v2");
          }
          if (sent.kind !== "response") return { sent, decision };
          const parsed = steer(sent, call.method, fullPath, route);
          scheduler.finished(route);
          return { sent: parsed === undefined ? sent : { ...sent, parsed }, decision };
        });
      }, call.urgent);
      // An answer for the caller whose release let a queued send go: let that send be
      // written before the caller works on the answer (src/api/handoff.ts). With nothing
      // queued (a chain of dependent writes) the caller goes on at once, as does a retry or
      // a failure: its next step is a wait, and a 429's hold must start then. A 404 the
      // caller takes as an answer is an answer (the synthetic-pipeline probe, often the
      // last read of a project, whose plan then runs).
      if (slots.started > startedAtAnswer && step !== undefined && isAnswer(call, step)) {
        await handoff();
      }
      if (step === undefined) continue;
      const { sent: result } = step;
      let { decision } = step;
      if (decision?.action === "retry" && decision.throttleMs === undefined) {
        // A retry starts only when enough of the bound is left for it (src/api/request-bound.ts).
        if (noTimeLeftForRetry(o, spentMs, decision.waitMs)) {
          boundEnded = true;
          decision = {
            action: "fail",
            outcome: decision.uncertain || uncertain ? "unknown" : "not_done",
            permanent: false,
          };
        }
      }
      o.onRequest({
        method: call.method,
        path: fullPath,
        status: result.kind === "response" ? result.status : "error",
        ms: Math.max(0, clock.now() - started),
        attempt,
      });
      if (result.kind === "aborted") throw aborted();
      if (result.kind === "response") warnIfDeprecated(call.method, fullPath, result.headers);

      if (decision === undefined) {
        // A 304 to a GET (spec: api-v3.md Errors: 304 "conditional request matched the ETag").
        // Decision: a 304 to a request that sent no validator cannot be served: bad_response.
        if (cached === undefined) {
          throw new ResponseFormatError({
            method: call.method,
            path: fullPath,
            status: 304,
            reason: "304 Not Modified to a request that sent no If-None-Match",
          });
        }
        return { path: fullPath, status: 200, body: parseJson(call, fullPath, 304, cached.body) };
      }
      if (decision.action === "retry") {
        if (decision.uncertain) uncertain = true;
        o.onRetry({
          method: call.method,
          path: fullPath,
          reason:
            result.kind === "timeout"
              ? `timed out after ${formatSeconds(attemptTimeoutMs)}`
              : result.kind === "network"
                ? result.reason
                : decision.reason,
          nextAttempt: attempt + 1,
          maxAttempts: o.maxAttempts,
          waitMs: decision.throttleMs ?? decision.waitMs,
          boundMs: noticedBoundMs(o),
        });
        if (decision.waitMs > 0 || decision.throttleMs === undefined) {
          if (!(await waitOrAbort(clock.sleep(decision.waitMs, call.signal)))) throw aborted();
          spentMs += decision.waitMs;
        }
        attemptTimeoutMs = nextAttemptTimeoutMs(o, spentMs);
        attempt++;
        continue;
      }
      if (decision.action === "done") {
        if (result.kind !== "response") throw new Error("unreachable: done without a response");
        if (decision.goneAlready) return { path: fullPath, status: result.status, body: undefined };
        const value = result.parsed
          ? result.parsed.value
          : parseJson(call, fullPath, result.status, result.body);
        return { path: fullPath, status: result.status, body: value };
      }
      if (notFoundAnswer(call, result)) return { path: fullPath, status: 404, body: undefined };
      throw failure(call, fullPath, attempt, result, decision, {
        attemptTimeoutMs,
        bound: boundEndedRequest(o, attemptTimeoutMs, boundEnded),
      });
    }
  };

  return execute;
};
