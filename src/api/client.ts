import type { Dispatcher } from "undici";
import { agentConnectionOptions } from "./agent-options.js";
import { type ApiClientOptions, resolveOptions } from "./client-options.js";
import { createDeprecationWarner } from "./deprecation-warning.js";
import { formatSeconds, ResponseFormatError } from "./errors.js";
import { createEtagCache } from "./etag-cache.js";
import { createListing } from "./listing.js";
import type { Call, Success } from "./request-call.js";
import { routeKey } from "./request-target.js";
import { createResponseErrors } from "./response-errors.js";
import { createRetryLoop } from "./retry-loop.js";
import { createRouteScheduler } from "./route-scheduler.js";
import { createSender } from "./send.js";
import { createSendSlots } from "./send-slots.js";
import type { Api, ApiGeneration, Query, ReadOnlyApi, RequestOptions, RouteLane } from "./types.js";
import { loadUndici } from "./undici-lean.js";

// The client's parts live in modules of their own: options and defaults
// (client-options.ts), one send (send.ts), transport failures (transport-failure.ts), the
// retry loop (retry-loop.ts), the request's time bound (request-bound.ts), typed errors
// (response-errors.ts), deprecation notices (deprecation-warning.ts), listing (listing.ts).
export {
  type ApiClientOptions,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type RetryNotice,
  type RetryOptions,
} from "./client-options.js";
export { requestTimeBoundMs } from "./request-bound.js";
export { formatSeconds };

/** The full client: the Api contract plus `close()`. */
export type ApiClient = Api;

/**
 * Create the API client (issue 2 §2). One undici Agent (keep-alive) per client, one ETag
 * cache, one route scheduler (a budget per route), one concurrency limit; nothing
 * is shared between clients. `close()` ends the Agent.
 */
export const createApiClient = (options: ApiClientOptions): ApiClient => {
  const o = resolveOptions(options);
  const { clock } = o;
  // Keep-alive with a margin that still reuses a 1 s server keep-alive, and a pool bounded
  // by the parallelism (src/api/agent-options.ts). undici never follows redirects unless a
  // redirect interceptor is installed, and none is.
  const ownAgent =
    options.dispatcher === undefined
      ? new (loadUndici().Agent)(agentConnectionOptions(o.maxConcurrentRequests))
      : undefined;
  const agent: Dispatcher = options.dispatcher ?? (ownAgent as Dispatcher);
  // `host:port` for messages: the base URL holds no credentials (src/api/base-url.ts).
  const host = new URL(o.base.origin).host;
  const slots = createSendSlots(o.maxConcurrentRequests);
  const cache = createEtagCache();
  const scheduler = createRouteScheduler({ clock, maxPauseMs: o.maxRetryAfterMs });
  let closing: Promise<void> | undefined;

  const errors = createResponseErrors({ o, host });
  const execute = createRetryLoop({
    o,
    slots,
    cache,
    scheduler,
    sendOnce: createSender({
      o,
      agent,
      host,
      // An injected dispatcher stays open after close(); this client sends nothing more.
      refusesSends: () => closing !== undefined && ownAgent === undefined,
    }),
    warnIfDeprecated: createDeprecationWarner(o),
    errors,
  });

  /** Run `execute`, turning any stray failure into a typed error (never a raw exception). */
  const run = async (call: Call): Promise<Success> => {
    try {
      return await execute(call);
    } catch (err) {
      throw errors.asTypedError(call, err);
    }
  };

  const get = async <T>(
    api: ApiGeneration,
    path: string,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({
      method: "GET",
      api,
      path,
      query,
      body: undefined,
      signal: options?.signal,
      ...(options?.notFoundIsAnswer === true ? { notFoundIsAnswer: true } : {}),
    });
    if (res.status === 404 && options?.notFoundIsAnswer === true) return undefined as T;
    // Decision: a GET that answers 2xx with an empty body is malformed: every V3 and V2 read
    // the client is used for returns a JSON document.
    if (res.body === undefined) {
      throw new ResponseFormatError({
        method: "GET",
        path: res.path,
        status: res.status,
        reason: "the body is empty",
      });
    }
    return res.body as T;
  };

  const { listV3, listV2 } = createListing({ o, run });

  const post = async <T>(
    api: ApiGeneration,
    path: string,
    body?: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({ method: "POST", api, path, query, body, signal: options?.signal });
    return res.body as T;
  };

  const put = async <T>(
    api: ApiGeneration,
    path: string,
    body: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T> => {
    const res = await run({ method: "PUT", api, path, query, body, signal: options?.signal });
    return res.body as T;
  };

  const del = async <T = unknown>(
    api: ApiGeneration,
    path: string,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T | undefined> => {
    const res = await run({
      method: "DELETE",
      api,
      path,
      query,
      body: undefined,
      signal: options?.signal,
    });
    return res.body as T | undefined;
  };

  /** A route's budget for apply's scheduler (src/api/types.ts RouteLane). */
  const lane = (method: string, api: ApiGeneration, path: string): RouteLane => {
    const key = routeKey(method, api, path);
    const v2 = api === "v2";
    return {
      key,
      available: () => scheduler.available(key, v2),
      whenAvailable: (signal) => scheduler.waitTurn(key, v2, signal),
    };
  };

  // A new object holding only the read methods: the write methods do not exist on it at
  // runtime, so a plan cannot write by construction (design.md §2), not merely by type.
  const readOnlyView: ReadOnlyApi = Object.freeze({ get, listV3, listV2 });

  return Object.freeze({
    get,
    listV3,
    listV2,
    post,
    put,
    delete: del,
    readOnly: () => readOnlyView,
    lane,
    close: () => {
      // Idempotent: a second close() waits for the first instead of failing.
      closing ??= ownAgent ? ownAgent.close() : Promise.resolve();
      return closing;
    },
  });
};
