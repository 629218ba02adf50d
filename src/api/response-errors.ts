import type { ResolvedOptions } from "./client-options.js";
import { describeErrorBody } from "./error-body.js";
import {
  ApiError,
  InvalidRequestError,
  NetworkError,
  RequestAbortedError,
  ResponseFormatError,
  TimeoutError,
} from "./errors.js";
import { headerValue } from "./headers.js";
import type { Attempt, Call } from "./request-call.js";
import { API_ROOT } from "./request-target.js";
import type { RetryDecision } from "./retry-policy.js";

/**
 * A 401's hint (spec: api-v3.md Authentication: 401 is a missing or invalid credential):
 * where this token came from and the two ways to give another (design.md §1 Commands).
 */
const tokenHint = (origin: string): string => {
  const from = origin.startsWith("file:")
    ? `read from --token-file ${origin.slice("file:".length)}`
    : origin.endsWith("SERVICE_TOKEN")
      ? "from SERVICE_TOKEN"
      : undefined;
  return `the service does not accept the API token${from ? ` (${from})` : ""}: set a valid token in SERVICE_TOKEN or pass --token-file PATH`;
};

/** The typed errors of a request: a body that is not JSON, a request the policy gave up on. */
export const createResponseErrors = ({ o, host }: { o: ResolvedOptions; host: string }) => {
  const parseJson = (call: Call, fullPath: string, status: number, text: string): unknown => {
    if (text.trim() === "") return undefined;
    try {
      return JSON.parse(text);
    } catch (cause) {
      const snippet = describeErrorBody(text, o.scrub).bodySnippet;
      throw new ResponseFormatError(
        {
          method: call.method,
          path: fullPath,
          status,
          reason: `the body is not valid JSON${snippet ? ` (it reads: ${snippet})` : ""}`,
        },
        { cause },
      );
    }
  };

  /** The typed error for a request the policy gave up on. */
  const failure = (
    call: Call,
    fullPath: string,
    attempt: number,
    result: Exclude<Attempt, { kind: "aborted" }>,
    decision: Extract<RetryDecision, { action: "fail" }>,
    timing: { readonly attemptTimeoutMs: number; readonly bound: boolean },
  ): Error => {
    switch (result.kind) {
      case "timeout":
        return new TimeoutError({
          method: call.method,
          path: fullPath,
          attempts: attempt,
          host,
          // The request's bound ended it (no time left for another attempt), or only the
          // attempt's own timeout did (a client with a shorter per-attempt timeout).
          ...(timing.bound
            ? { timeoutMs: o.requestTimeoutMs, boundMs: o.requestTimeoutMs }
            : { timeoutMs: timing.attemptTimeoutMs }),
        });
      case "network":
        return new NetworkError(
          { method: call.method, path: fullPath, reason: result.reason, attempts: attempt },
          { cause: result.cause },
        );
      case "truncated":
        // A body shorter than its Content-Length: the connection broke mid-answer.
        return new ResponseFormatError(
          {
            method: call.method,
            path: fullPath,
            reason: `the body was cut off before its end${attempt > 1 ? ` (after ${attempt} attempts)` : ""}`,
          },
          { cause: result.cause },
        );
      case "too_large":
        return new ResponseFormatError({
          method: call.method,
          path: fullPath,
          status: result.status,
          reason: `the body is larger than ${o.maxBodyBytes} bytes; not read further`,
        });
      case "response":
        break;
    }
    const { status, headers, body } = result;
    const fields = { method: call.method, path: fullPath, status, attempts: attempt };
    if (decision.retryAfterTooLong !== undefined) {
      return new ApiError({
        ...fields,
        ...describeErrorBody(body, o.scrub),
        retryAfterMs: decision.retryAfterTooLong,
      });
    }
    if (status >= 300 && status < 400) {
      // Never follow a redirect: the next hop could be another host, and the token would
      // go with it. The Location is shown so the user can fix the base URL.
      const location = headerValue(headers, "location");
      return new ApiError({
        ...fields,
        ...describeErrorBody(body, o.scrub),
        location: location !== undefined ? o.scrub(location) : "(no Location)",
      });
    }
    return new ApiError({
      ...fields,
      ...describeErrorBody(body, o.scrub),
      ...(status === 401 ? { hint: tokenHint(o.token.origin) } : {}),
    });
  };

  /** Any failure of a request as a typed error (never a raw exception). */
  const asTypedError = (call: Call, err: unknown): Error => {
    if (
      err instanceof ApiError ||
      err instanceof NetworkError ||
      err instanceof TimeoutError ||
      err instanceof ResponseFormatError ||
      err instanceof RequestAbortedError ||
      err instanceof InvalidRequestError
    ) {
      return err;
    }
    return new NetworkError(
      {
        method: call.method,
        path: `${API_ROOT[call.api]}${call.path}`,
        reason: `unexpected client failure: ${o.scrub(err instanceof Error ? err.message : String(err))}`,
        attempts: 1,
      },
      { cause: err },
    );
  };

  return { parseJson, failure, asTypedError };
};
