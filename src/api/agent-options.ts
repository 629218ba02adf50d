/**
 * How the client's undici Agent keeps connections (issue 22 §3). The spec says nothing about
 * connections; these are the choices, each a `Decision:`.
 *
 * undici keeps an idle connection for the server's advertised `Keep-Alive: timeout=S` minus
 * `keepAliveTimeoutThreshold` (default 2 s), and closes the connection right after the
 * response when that is zero or less. Real front ends advertise 1 s or 5 s; at 1 s the
 * default margin closed every connection after one response (1,411 connections for 1,411
 * requests in a 200-project plan), and against HTTPS each new one is a TLS handshake.
 */

/** The Agent options the client sets (a subset of undici 7's Agent/Client options). */
export interface AgentConnectionOptions {
  /** Idle time when the server advertises none (ms). */
  readonly keepAliveTimeout: number;
  /** Margin taken off the server's advertised idle time (ms). */
  readonly keepAliveTimeoutThreshold: number;
  /** Longest idle time, whatever the server advertises (ms). */
  readonly keepAliveMaxTimeout: number;
  /** Connections per origin: the pool's bound. */
  readonly connections: number;
}

/**
 * Decision: a 500 ms margin. It must cover the server's idle timer starting before ours
 * (one response in transit) and our next request reaching it (one more): a round trip, which
 * is well under 500 ms for an API client, so a 1 s keep-alive still reuses connections for
 * 500 ms of idleness. A request written into a connection the server is closing anyway is
 * handled like any dropped connection: a read is retried, a create is re-listed and adopted.
 */
export const KEEP_ALIVE_MARGIN_MS = 500;

/**
 * Decision: 4 s when the server says nothing (below the common 5 s server default), at most
 * 30 s whatever it says (a CLI run needs no idle connection for longer; `close()` ends them
 * anyway), and one connection per request that may be in flight (`--parallelism`): more
 * would only be opened to sit idle, fewer would queue requests the client already limits.
 */
export const agentConnectionOptions = (maxConcurrentRequests: number): AgentConnectionOptions => ({
  keepAliveTimeout: 4_000,
  keepAliveTimeoutThreshold: KEEP_ALIVE_MARGIN_MS,
  keepAliveMaxTimeout: 30_000,
  connections: maxConcurrentRequests,
});
