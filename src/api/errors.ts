import { WaybillError } from "../core/errors.js";

/**
 * Typed errors of the API client (issue 2 §2, conventions.md §6). Every failure that leaves
 * the client is one of these, so the CLI can map it by `code` and print `message` without a
 * stack. No message or field ever holds the token or a request body; every text taken from
 * a response went through the client's scrubber first.
 */

/** What the service said about a failed request, read from its body (src/api/error-body.ts). */
export interface ErrorBodyFields {
  /** spec: api-v3.md Errors: `error.type`, a bare token distinguishing causes within one status. */
  readonly type?: string;
  /** spec: api-v3.md Errors: `error.id`, quoted in support requests. */
  readonly errorId?: string;
  readonly title?: string;
  readonly detail?: string;
  /** `error.source.pointer`: which member of the request body was wrong. */
  readonly pointer?: string;
  /**
   * `error.source.offset` and `error.source.error`: where in a sent text (a config, an
   * expression) the service found a fault, and what it is (docs/spec-notes.md "Reading the
   * real service").
   */
  readonly offset?: string;
  readonly sourceError?: string;
  /** spec: api-v2-v1.md Errors: V2 errors are `{ message }`. */
  readonly v2Message?: string;
  /** A short readable excerpt of a body that is neither (an HTML 502 page's title, ...). */
  readonly bodySnippet?: string;
}

export interface ApiErrorFields extends ErrorBodyFields {
  readonly method: string;
  /** The path as sent, from `/api/v3` or `/api/v2` on, with its query string. */
  readonly path: string;
  readonly status: number;
  /** A 3xx's `Location`: redirects are never followed (the token must not travel). */
  readonly location?: string;
  /** A 429's `Retry-After` that was longer than the client agrees to wait, in ms. */
  readonly retryAfterMs?: number;
  /** How many times the request was sent (1 when it was not retried). */
  readonly attempts?: number;
  /** What the user can do about it (a 401: where the token comes from). */
  readonly hint?: string;
}

const attemptsSuffix = (attempts: number | undefined): string =>
  attempts !== undefined && attempts > 1 ? ` (after ${attempts} attempts)` : "";

/** `(at offset 12: unexpected token)`: where a sent text was wrong, when the body says. */
const sourceSuffix = (f: ErrorBodyFields): string => {
  const parts = [
    f.offset === undefined ? undefined : `at offset ${f.offset}`,
    f.sourceError,
  ].filter((s): s is string => s !== undefined);
  return parts.length === 0 ? "" : ` (${parts.join(": ")})`;
};

/**
 * conventions.md §6: `POST /api/v3/webhooks failed with 400 (invalid_url): <title> — <detail>
 * at <pointer>`; absent parts are left out with their separators.
 */
export const formatApiErrorMessage = (f: ApiErrorFields): string => {
  const head = `${f.method} ${f.path} failed with ${f.status}${f.type ? ` (${f.type})` : ""}`;
  const envelope = [f.title, f.detail].filter((s): s is string => !!s).join(" — ");
  const redirect = f.location !== undefined ? `redirect to ${f.location} not followed` : undefined;
  const description = envelope || f.v2Message || f.bodySnippet || redirect;
  const retryAfter =
    f.retryAfterMs !== undefined
      ? ` (asked to wait ${Math.ceil(f.retryAfterMs / 1000)} s, longer than allowed)`
      : "";
  return (
    head +
    (description ? `: ${description}` : "") +
    (f.pointer ? ` at ${f.pointer}` : "") +
    sourceSuffix(f) +
    // spec: api-v3.md Errors: "`error.id` is quoted in support requests".
    (f.errorId ? ` [error id ${f.errorId}]` : "") +
    retryAfter +
    attemptsSuffix(f.attempts) +
    (f.hint ? `; ${f.hint}` : "")
  );
};

/** The service answered with a status that is not a success (and not a served 304). */
export class ApiError extends WaybillError implements ApiErrorFields {
  readonly code = "api_error";
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly type?: string;
  readonly errorId?: string;
  readonly title?: string;
  readonly detail?: string;
  readonly pointer?: string;
  readonly offset?: string;
  readonly sourceError?: string;
  readonly v2Message?: string;
  readonly bodySnippet?: string;
  readonly location?: string;
  readonly retryAfterMs?: number;
  readonly attempts?: number;
  readonly hint?: string;

  constructor(fields: ApiErrorFields) {
    super(formatApiErrorMessage(fields));
    this.method = fields.method;
    this.path = fields.path;
    this.status = fields.status;
    this.type = fields.type;
    this.errorId = fields.errorId;
    this.title = fields.title;
    this.detail = fields.detail;
    this.pointer = fields.pointer;
    this.offset = fields.offset;
    this.sourceError = fields.sourceError;
    this.v2Message = fields.v2Message;
    this.bodySnippet = fields.bodySnippet;
    this.location = fields.location;
    this.retryAfterMs = fields.retryAfterMs;
    this.attempts = fields.attempts;
    this.hint = fields.hint;
  }
}

/** Connection refused, reset or dropped before a whole answer arrived. */
export class NetworkError extends WaybillError {
  readonly code = "network_error";
  readonly method: string;
  readonly path: string;
  /** A short description: `connection refused (ECONNREFUSED)`, `connection dropped`. */
  readonly reason: string;
  readonly attempts: number;

  constructor(
    f: { method: string; path: string; reason: string; attempts: number },
    options?: { cause?: unknown },
  ) {
    super(`${f.method} ${f.path} failed: ${f.reason}${attemptsSuffix(f.attempts)}`, options);
    this.method = f.method;
    this.path = f.path;
    this.reason = f.reason;
    this.attempts = f.attempts;
  }
}

/** `30 s`, `0.5 s`: a duration for a message. */
export const formatSeconds = (ms: number): string =>
  `${ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10} s`;

/**
 * No whole answer in time: within the attempt's timeout, or (`boundMs`) within the bound of
 * the whole request, retries included (the CLI's `--timeout`).
 */
export class TimeoutError extends WaybillError {
  readonly code = "timeout";
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  /** Set when the request's bound (retries included) ended it. */
  readonly boundMs?: number;

  constructor(f: {
    method: string;
    path: string;
    timeoutMs: number;
    attempts: number;
    /** `host:port` that did not answer (no credentials: the base URL refuses them). */
    host?: string;
    boundMs?: number;
  }) {
    super(
      f.boundMs !== undefined
        ? `${f.method} ${f.path} timed out: no answer${f.host ? ` from ${f.host}` : ""} within ${formatSeconds(f.boundMs)} (the --timeout bound, retries included)${attemptsSuffix(f.attempts)}`
        : `${f.method} ${f.path} timed out after ${f.timeoutMs} ms${attemptsSuffix(f.attempts)}`,
    );
    this.method = f.method;
    this.path = f.path;
    this.timeoutMs = f.timeoutMs;
    this.attempts = f.attempts;
    this.boundMs = f.boundMs;
  }
}

/**
 * A success status whose body cannot be trusted: invalid JSON, a truncated body, the wrong
 * shape (no `data` list), a repeated cursor, too many pages. Never a partial result
 * (design.md §1 "Ownership": never prune from a partial read).
 */
export class ResponseFormatError extends WaybillError {
  readonly code = "bad_response";
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly reason: string;

  constructor(
    f: { method: string; path: string; status?: number; reason: string },
    options?: { cause?: unknown },
  ) {
    super(
      `${f.method} ${f.path} returned an unusable response${f.status !== undefined ? ` (${f.status})` : ""}: ${f.reason}`,
      options,
    );
    this.method = f.method;
    this.path = f.path;
    this.status = f.status;
    this.reason = f.reason;
  }
}

/** An `http://` base URL for a host that is not loopback: the token would travel in clear. */
export class InsecureBaseUrlError extends WaybillError {
  readonly code = "insecure_base_url";
}

/** A base URL that cannot be used at all (not a URL, another scheme, credentials in it). */
export class InvalidBaseUrlError extends WaybillError {
  readonly code = "invalid_base_url";
}

/**
 * The caller's AbortSignal fired (during a request or a wait before one). Decision: a typed
 * error of its own (code `aborted`), so Ctrl-C is not reported as a network failure.
 */
export class RequestAbortedError extends WaybillError {
  readonly code = "aborted";
}

/** A programming error in how the client was called (a path with a query string, ...). */
export class InvalidRequestError extends WaybillError {
  readonly code = "invalid_request";
}
