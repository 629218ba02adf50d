/**
 * The contract of the API client (implemented in src/api/client.ts). Planning holds a
 * `ReadOnlyApi`, which has no method that writes, so a plan cannot write by construction
 * (design.md §2). Apply holds an `Api`.
 *
 * Paths are relative to the API root of their generation: `get("v3", "/contexts", ...)`
 * requests `{base_url}/api/v3/contexts`. Query values are encoded by the client; `filter[x]`
 * style names are passed as they are (`{ "filter[org_id]": id }`).
 *
 * Every method either resolves with the whole answer or rejects with an `ApiError`,
 * `NetworkError` or `TimeoutError` (src/api/errors.ts).
 */

export type ApiGeneration = "v3" | "v2";

export type QueryValue = string | number | boolean | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

export interface RequestOptions {
  /** Abort the request (and any wait before it). */
  readonly signal?: AbortSignal;
  /**
   * A GET whose 404 is an answer the caller expects, not a failure: the promise resolves
   * with `undefined` instead of rejecting with an ApiError (the synthetic-pipeline probe:
   * src/live/synthetic.ts). No error is built for it: at 2,000 projects the probe's 2,000
   * expected 404s each scrubbed the service's error text through the secret redactor and
   * captured a stack, in the read phase (issue 33). Clients that ignore it reject as usual.
   */
  readonly notFoundIsAnswer?: boolean;
}

/** Options of a collection read. */
export interface ListOptions<I> extends RequestOptions {
  /**
   * Called with each page's items as the page arrives, so work that hangs off the items can
   * start before the last page is read (issue 8). The promise still resolves with every item
   * or rejects: a caller that acted on early pages must treat a rejection as "nothing read".
   */
  readonly onPage?: (items: readonly I[]) => void;
  /**
   * Send the first page ahead of queued ordinary requests, as every later page is
   * (src/api/send-slots.ts: a page that gates more work goes first). For a re-read of a
   * listing already known to span pages (src/live/paged-list.ts).
   */
  readonly urgent?: boolean;
}

export interface ReadOnlyApi {
  /** GET one response body (JSON). Uses the ETag cache; retries per the retry policy. */
  get<T>(api: ApiGeneration, path: string, query?: Query, options?: RequestOptions): Promise<T>;

  /**
   * GET every page of a V3 collection and return all items, or reject: never a partial
   * list (design.md §1 "Ownership": never prune from a partial read). Sends the largest
   * documented `page[limit]` for the collection (PAGE_LIMIT_MAX) and follows `page.next`
   * as `page[cursor]` until it is null. A bounded number of pages; a repeated cursor is an
   * error.
   */
  listV3<A>(
    path: string,
    query?: Query,
    options?: ListOptions<import("../core/wire.js").V3Resource<A>>,
  ): Promise<import("../core/wire.js").V3Resource<A>[]>;

  /** GET every page of a V2 collection (`next_page_token` → `page-token`). */
  listV2<T>(path: string, query?: Query, options?: RequestOptions): Promise<T[]>;
}

export interface Api extends ReadOnlyApi {
  /**
   * POST. Never retried automatically except on 429 (spec: api-v3.md "Limits":
   * POST is not idempotent; a 429 was not processed). `body` undefined sends no body.
   */
  post<T>(
    api: ApiGeneration,
    path: string,
    body?: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T>;
  /** PUT, retried like GET. */
  put<T>(
    api: ApiGeneration,
    path: string,
    body: unknown,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T>;
  /** DELETE, retried like GET. Resolves with the parsed body, or undefined when empty. */
  delete<T = unknown>(
    api: ApiGeneration,
    path: string,
    query?: Query,
    options?: RequestOptions,
  ): Promise<T | undefined>;

  /** A view of this client that can only read (same cache, limiter and pause). */
  readOnly(): ReadOnlyApi;

  /**
   * The rate-limit budget of the route a request would take (issue 22; spec: api-v3.md
   * Limits: limits are per route): apply starts work on routes that have budget while
   * another route waits. Absent on clients that keep no budget.
   */
  lane?(method: string, api: ApiGeneration, path: string): RouteLane;

  /** End the client's keep-alive connections; requests after this fail with NetworkError. */
  close(): Promise<void>;
}

/** One route's budget, as the client estimates it (src/api/route-scheduler.ts). */
export interface RouteLane {
  /** `POST /api/v3/contexts/{id}/env-vars/{id}`: requests of one key share a budget. */
  readonly key: string;
  /** Requests that could be sent now without waiting (`Infinity`: no limit known). */
  available(): number;
  /** Resolves once one request could be sent; rejects when `signal` aborts. */
  whenAvailable(signal?: AbortSignal): Promise<void>;
}

/** One line of the `--verbose` request log. Never holds the token or a body. */
export interface RequestLogEntry {
  readonly method: string;
  /** Path with query string, as sent (secrets are never in query strings). */
  readonly path: string;
  readonly status: number | "error";
  readonly ms: number;
  readonly attempt: number;
}

/** Waits and time, injectable so tests do not sleep (conventions.md §8). */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
