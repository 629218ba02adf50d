import type { Dispatcher } from "undici";
import { isSecret } from "../core/secret.js";
import type { ResolvedOptions } from "./client-options.js";
import { startExchange } from "./exchange.js";
import type { Attempt, Call } from "./request-call.js";
import { classifyFailure } from "./transport-failure.js";

/** The body parsed as JSON, or undefined when it is empty or not JSON. */
export const tryParseJson = (text: string): { readonly value: unknown } | undefined => {
  if (text.trim() === "") return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
};

/**
 * JSON for a request body. Decision: a Secret anywhere in the body is revealed here and only here, so
 * kinds may put Secrets into bodies and nothing before the wire ever holds the value
 * (design.md §1 "Secrets"); `Secret.toJSON` alone would send "(sensitive)".
 */
export const serialiseBody = (body: unknown): string =>
  JSON.stringify(body, function (this: unknown, key: string, value: unknown) {
    const raw = (this as Record<string, unknown>)[key];
    return isSecret(raw) ? raw.reveal() : value;
  });

/**
 * Decision (issue 33, found at 2,000 projects): a send that comes after this client was
 * quiet for longer than this first lets the event loop reach its timers phase once.
 *
 * undici closes an idle connection on a timer (the server's `Keep-Alive: timeout` less our
 * margin, src/api/agent-options.ts), and sees the server's close as an I/O event. Neither
 * runs while the thread is busy: apply plans 40,000 items in one piece of work of a second
 * or more, then sends its first creates at once, and they went out on connections the
 * server had closed meanwhile (a 1 s keep-alive): "connection dropped", outcome unknown, a
 * failed apply. One hop through the timers phase (a 0 ms timer runs after every timer that
 * expired before it) and the poll phase (the server's close) retires those connections
 * first. After a quiet 250 ms only: a busy client's timers keep running between its
 * exchanges, and it pays nothing. (The bench's large-org apply is the evidence: a test that
 * blocks the thread and then sends did not reproduce the failure; bench/README.md.)
 */
const IDLE_BEFORE_HOP_MS = 250;

const nextLoopTurn = (): Promise<void> =>
  new Promise((resolve) => {
    // The timer for undici's keep-alive timers; the immediate after it for the poll phase
    // between them, where a close the server sent while we were busy is read.
    setTimeout(() => setImmediate(resolve), 0);
  });

/** What one send needs from its client. */
export interface SenderParts {
  readonly o: ResolvedOptions;
  /** The transport (the client's own Agent, or the caller's). */
  readonly agent: Dispatcher;
  /** `host:port` for messages: the base URL holds no credentials (src/api/base-url.ts). */
  readonly host: string;
  /** True once `close()` was called on a client whose dispatcher was injected. */
  readonly refusesSends: () => boolean;
}

/** One attempt on the wire: headers, the per-attempt timer, the answer classified. */
export const createSender = ({
  o,
  agent,
  host,
  refusesSends,
}: SenderParts): ((
  call: Call,
  fullPath: string,
  payload: string | undefined,
  etag: string | undefined,
  timeoutMs: number,
) => Promise<Attempt>) => {
  const decoder = new TextDecoder();
  // When this client last started or finished an exchange (performance.now()).
  let lastActivity = performance.now();

  const headersFor = (call: Call, etag: string | undefined): Record<string, string> => {
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": o.userAgent,
    };
    // spec: api-v3.md Authentication: V3 takes `Authorization: Bearer`, V2 `Service-Token`;
    // rule 1: never in a query parameter.
    if (call.api === "v3") headers.authorization = `Bearer ${o.token.reveal()}`;
    else headers["service-token"] = o.token.reveal();
    if (call.body !== undefined) headers["content-type"] = "application/json";
    if (etag !== undefined) headers["if-none-match"] = etag;
    return headers;
  };

  /** One send, inside the concurrency limit: never throws, always an Attempt. */
  const sendOnce = async (
    call: Call,
    fullPath: string,
    payload: string | undefined,
    etag: string | undefined,
    timeoutMs: number,
  ): Promise<Attempt> => {
    if (call.signal?.aborted) return { kind: "aborted" };
    if (refusesSends()) {
      // An injected dispatcher stays open after close(); this client sends nothing more.
      return {
        kind: "network",
        reason: "the client was closed",
        retriable: false,
        cause: undefined,
      };
    }
    if (performance.now() - lastActivity > IDLE_BEFORE_HOP_MS) {
      await nextLoopTurn();
      if (call.signal?.aborted) return { kind: "aborted" };
    }
    lastActivity = performance.now();
    const exchange = startExchange(
      agent,
      {
        origin: o.base.origin,
        path: `${o.base.pathPrefix}${fullPath}`,
        method: call.method,
        headers: headersFor(call, etag),
        body: payload,
      },
      o.maxBodyBytes,
    );
    let timedOut = false;
    const onAbort = (): void => exchange.abort();
    call.signal?.addEventListener("abort", onAbort, { once: true });
    // Decision: the per-attempt timeout is a real timer, not the injectable clock: it bounds
    // real network time, while the clock governs waits the client chooses (pauses, backoff).
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort();
    }, timeoutMs);
    try {
      const result = await exchange.done;
      switch (result.kind) {
        case "complete":
          return {
            kind: "response",
            status: result.status,
            headers: result.headers,
            // TextDecoder drops a UTF-8 BOM, as undici's body.text() does.
            body: decoder.decode(result.body),
          };
        case "too_large":
          return { kind: "too_large", status: result.status };
        case "aborted":
          return timedOut ? { kind: "timeout" } : { kind: "aborted" };
        case "failed":
          // The status line and headers arrived but the body broke off: a truncated answer.
          if (result.headersRead) return { kind: "truncated", cause: result.error };
          return classifyFailure(result.error, host);
      }
    } finally {
      lastActivity = performance.now();
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  };

  return sendOnce;
};
