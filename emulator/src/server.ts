/**
 * The HTTP shell around the pure store and route handlers: auth, the request log, scripted
 * answers, faults, ETags, and rendering errors as the V3 envelope or the V2 `{message}`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type AdminPort, handleAdmin, type RequestLogEntry } from "./admin.js";
import {
  type ChaosDelivery,
  chaosAnswer,
  isChaosCursor,
  nextChaosCursor,
  withNextCursor,
} from "./chaos.js";
import { EmulatorHttpError } from "./errors.js";
import { FAMILIES, ROUTES, routesOf } from "./families.js";
import type { Family } from "./family.js";
import { createFaults, type FaultDecision, type Faults, parseFaultOptions } from "./faults.js";
import {
  type ApiName,
  type Ctx,
  checkBody,
  isWriteRoute,
  type Reply,
  type Shapes,
  sparseCursors,
} from "./http.js";
import { hashUuid } from "./ids.js";
import { createRouter, type Match } from "./router.js";
import { type AfterRequest, createScript, type ScriptEntry } from "./script.js";
import type { FaultOptions, Seed } from "./seed.js";
import { type State, type TokenRow, tableOf, touch } from "./state.js";
import { createState, dumpState } from "./store.js";

export interface EmulatorOptions {
  /** 0 (default) picks a free port. The server listens on 127.0.0.1 only. */
  readonly port?: number;
  /** Default: no orgs and one read/write token `demo-token`. */
  readonly seed?: Seed;
  /** Enable the `/__admin/` API (off by default: 404). */
  readonly admin?: boolean;
  readonly faults?: FaultOptions;
  /** One line per API request: method, path (no query), status, fault. Never a token. */
  readonly log?: (line: string) => void;
  /** Clock (ms since epoch) for timestamps and the token bucket; tests inject it. */
  readonly now?: () => number;
  /**
   * How long an idle connection is kept, in ms, advertised in `Keep-Alive: timeout=S`
   * (whole seconds, rounded down). Default 1,000 (see KEEP_ALIVE_MS).
   */
  readonly keepAliveMs?: number;
  /**
   * The shapes of the answers (src http.ts `Shapes`): `sparse` (default), the sparest the
   * real service sends, or `full`, every member the spec names.
   */
  readonly shapes?: Shapes;
  /**
   * The families it serves (default: `FAMILIES`, emulator/src/families.ts): a test serves a
   * test-only family by adding it to a copy of the list (docs/adding-a-kind.md), with no
   * edit to the emulator.
   */
  readonly families?: readonly Family[];
}

/**
 * Decision (issue 22 §3): the spec says nothing about connections, so the emulator takes the
 * less forgiving reading of what real front ends do: it keeps an idle connection 1 s and says
 * so (`Keep-Alive: timeout=1`), where Node's default is 5 s. A client that keeps a 2 s safety
 * margin (undici's default) then closes every connection after one response, and the
 * connection count in `GET /__admin/requests` shows it.
 */
export const KEEP_ALIVE_MS = 1_000;

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT`: the service root (clients add `/api/v3`, `/api/v2`). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Decision: without a seed the emulator has no orgs and one read/write token, `demo-token`. */
export const DEFAULT_SEED: Seed = { tokens: [{ token: "demo-token" }] };

/** Query parameter names that carry a token on other APIs (V1 `circle-token` and the like). */
const TOKEN_PARAMS = new Set([
  "token",
  "access_token",
  "circle-token",
  "service-token",
  "api_key",
  "apikey",
  "api-key",
]);

const WRITE = new Set(["POST", "PUT", "DELETE", "PATCH"]);

/** The rights a token may be seeded without, every family's (family.ts TokenRight). */
const tokenRightsOf = (families: readonly Family[]) => families.flatMap((f) => f.tokenRights ?? []);
/** The tables a script's `to_front` may reorder (family.ts `toFront`). */
const toFrontOf = (families: readonly Family[]) => families.flatMap((f) => f.toFront ?? []);

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/**
 * True when the request carries no body (RFC 9112 §6.3: a request without Content-Length or
 * Transfer-Encoding has none), so there is nothing to read: most requests are such GETs.
 */
const hasNoBody = (req: IncomingMessage): boolean => {
  const length = req.headers["content-length"];
  return (length === undefined || length === "0") && req.headers["transfer-encoding"] === undefined;
};

const NO_BODY = Buffer.alloc(0);

/** A request waiting out injected latency; close() ends every wait at once. */
interface Wait {
  timer?: NodeJS.Timeout;
  readonly resolve: () => void;
}

/** Token value → its row; the first row wins, as a search of the seed's list would find. */
const tokenIndex = (st: State): ReadonlyMap<string, TokenRow> => {
  const index = new Map<string, TokenRow>();
  for (const t of st.tokens) if (!index.has(t.token)) index.set(t.token, t);
  return index;
};

/** A strong ETag: a hash of the exact body bytes (spec: api-v3.md "Limits": Caching). */
const etagOf = (body: string): string =>
  `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;

const ifNoneMatchHits = (header: string | undefined, etag: string): boolean => {
  if (!header) return false;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === "*" || t === etag);
};

/** True when the headers already say how the body is framed (scripted answers may). */
const namesFraming = (headers: Readonly<Record<string, string>>): boolean => {
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === "content-length" || lower === "transfer-encoding") return true;
  }
  return false;
};

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Raw body bytes; undefined for none. */
  body?: string;
  /** How to send it (chaos: truncated or slow); normal when absent. */
  delivery?: ChaosDelivery;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export const startServer = async (opts: EmulatorOptions): Promise<RunningEmulator> => {
  const now = opts.now ?? Date.now;
  const shapes: Shapes = opts.shapes ?? "sparse";
  const startFaults = opts.faults ? parseFaultOptions(opts.faults) : {};
  const families = opts.families ?? FAMILIES;
  const TOKEN_RIGHTS = tokenRightsOf(families);
  const TO_FRONT = toFrontOf(families);
  let state: State = createState(opts.seed ?? DEFAULT_SEED, families);
  // The tokens never change while a state lives: index them once, not on every request.
  let tokens: ReadonlyMap<string, TokenRow> = tokenIndex(state);
  let faults: Faults = createFaults(startFaults, now);
  const script = createScript();
  let requestLog: RequestLogEntry[] = [];
  /** Connections that carried an API request since the log was last cleared (admin ones not). */
  let apiSockets = new WeakSet<Socket>();
  let apiConnections = 0;
  let seq = 0;
  const cursorSecret = randomBytes(16).toString("hex");
  const router = createRouter(families === FAMILIES ? ROUTES : routesOf(families));
  const closing = new AbortController();
  const waits = new Set<Wait>();
  /**
   * Wait out injected latency; close() ends the wait. A plain set of timers rather than one
   * abort listener per request: cheaper, and no MaxListenersExceededWarning when busy.
   */
  const sleep = (ms: number): Promise<void> | undefined => {
    if (ms <= 0 || closing.signal.aborted) return undefined;
    return new Promise((resolve) => {
      const w: Wait = { resolve };
      w.timer = setTimeout(() => {
        waits.delete(w);
        resolve();
      }, ms);
      waits.add(w);
    });
  };
  const sockets = new Set<Socket>();
  /** A script's timed `after` requests still to come (close() cancels them). */
  const timers = new Set<NodeJS.Timeout>();

  const admin: AdminPort = {
    // Decision: reset restores the faults the emulator started with (PRNG restarted), and
    // clears the script and the request log (whose seq restarts at 1).
    reset(seed) {
      state = createState(seed, families);
      tokens = tokenIndex(state);
      faults = createFaults(startFaults, now);
      script.clear();
      requestLog = [];
      apiSockets = new WeakSet();
      apiConnections = 0;
      seq = 0;
    },
    dump: () => dumpState(state, families),
    requests: () => requestLog,
    connections: () => apiConnections,
    clearRequests() {
      requestLog = [];
      apiSockets = new WeakSet();
      apiConnections = 0;
    },
    setFaults(f) {
      faults = createFaults(f, now);
    },
    faults: () => faults.options,
    addScript: (entries: readonly ScriptEntry[]) => script.add(entries),
    clearScript: () => script.clear(),
    script: () => script.pending(),
  };

  /** Query as a log object; token-looking values are redacted (the log is never a leak). */
  const logQuery = (query: URLSearchParams): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of query)
      out[k] = TOKEN_PARAMS.has(k.toLowerCase()) || tokens.has(v) ? "(redacted)" : v;
    return out;
  };

  const errorAnswer = (api: ApiName, err: EmulatorHttpError, reqSeq: number): Answer => {
    if (api === "v2") return json(err.status, { message: err.detail ?? err.title });
    // docs/spec-notes.md "Reading the real service": the V3 401 answers `{ message }`.
    if (shapes === "sparse" && err.status === 401)
      return json(err.status, { message: err.detail ?? err.title });
    return json(err.status, {
      error: {
        type: err.type,
        id: hashUuid("error", cursorSecret, String(reqSeq)),
        title: err.title,
        ...(err.detail !== undefined ? { detail: err.detail } : {}),
        ...(err.pointer !== undefined ? { source: { pointer: err.pointer } } : {}),
      },
    });
  };

  /** Auth. spec: api-v3.md "Authentication": V3 Bearer, V2 Service-Token or Basic. */
  const authenticate = (api: ApiName, req: IncomingMessage, query: URLSearchParams): TokenRow => {
    // spec: Authentication rule 1: on V3 a token in a query parameter is rejected.
    // Decision: the same on V2 (only the legacy V1 accepts one).
    for (const [k, v] of query) {
      if (TOKEN_PARAMS.has(k.toLowerCase()) || tokens.has(v)) {
        throw new EmulatorHttpError(
          401,
          "unauthorized",
          "Unauthorized",
          "a token in the query string is rejected; send it in a header",
        );
      }
    }
    let token: string | undefined;
    const authz = req.headers.authorization;
    if (api === "v3") {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authz ?? "");
      token = m?.[1];
    } else {
      const st = req.headers["service-token"];
      if (typeof st === "string") token = st;
      const basic = /^Basic\s+(\S+)\s*$/i.exec(authz ?? "");
      if (token === undefined && basic?.[1])
        token = Buffer.from(basic[1], "base64").toString("utf8").split(":")[0];
    }
    const row = token === undefined ? undefined : tokens.get(token);
    if (!row) {
      throw new EmulatorHttpError(
        401,
        "unauthorized",
        "Unauthorized",
        api === "v3"
          ? "provide a valid Authorization: Bearer header"
          : "provide a valid Service-Token header",
      );
    }
    // spec: rule 5: insufficient permission is 403. A read-only token may only read.
    if (row.readOnly && req.method !== "GET") {
      throw new EmulatorHttpError(403, "forbidden", "Forbidden", "this token is read-only");
    }
    // A right the seed withheld (seed.ts SeedToken; family.ts TokenRight): its writes are 403.
    if (row.withheld.size > 0 && req.method !== "GET") {
      for (const right of TOKEN_RIGHTS) {
        if (row.withheld.has(right.flag) && right.writes.test(req.url ?? ""))
          throw new EmulatorHttpError(403, "forbidden", "Forbidden", right.detail);
      }
    }
    return row;
  };

  /**
   * The real handling: auth, route, body, handler. Never throws. Without `req` the request
   * is another client's (a script entry's `after`): no auth.
   */
  const handle = (
    api: ApiName,
    req: IncomingMessage | undefined,
    method: string,
    path: string,
    query: URLSearchParams,
    raw: Buffer,
    reqSeq: number,
    m: Match | undefined,
  ): Answer => {
    try {
      const token = req ? authenticate(api, req, query) : undefined;
      // Decision: an unknown method on a known path is 404 too (the spec lists no 405).
      if (!m)
        throw new EmulatorHttpError(404, "not_found", "Not found", `no route ${method} ${path}`);
      let parsed: unknown;
      if (method !== "GET" && raw.length > 0) {
        try {
          parsed = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new EmulatorHttpError(
            400,
            "invalid_json",
            "Bad request",
            "the body is not valid JSON",
            "/",
          );
        }
      }
      // Every write route's body is checked against the spec's shape before its handler.
      if (isWriteRoute(m.route)) checkBody(m.route.body, parsed);
      // Writes may change the rows: the read-side indexes must not outlive them.
      if (method !== "GET") touch(state);
      const ctx: Ctx = {
        state,
        api,
        method,
        path,
        params: m.params,
        query,
        body: parsed,
        nowIso: () => new Date(now()).toISOString(),
        cursorSecret,
        faults: faults.options,
        shapes,
        ...(token === undefined ? {} : { token }),
      };
      const reply: Reply = m.route.handler(ctx);
      if (shapes === "full" || reply.status >= 300 || reply.body === undefined)
        return json(reply.status, reply.body);
      const sparse = m.route.sparse ? m.route.sparse(reply.body, ctx) : reply.body;
      return json(reply.status, sparseCursors(sparse));
    } catch (err) {
      if (err instanceof EmulatorHttpError) return errorAnswer(api, err, reqSeq);
      const message = err instanceof Error ? err.message : String(err);
      opts.log?.(`emulator: internal error on ${method} ${path}: ${message}`);
      return errorAnswer(
        api,
        new EmulatorHttpError(500, "internal", "Internal error", "unexpected emulator error"),
        reqSeq,
      );
    }
  };

  /**
   * A script entry's `after` requests (docs/emulator.md "Script"), in order: another client
   * of the same service changes it between two of this client's requests.
   */
  const runAfter = (requests: readonly AfterRequest[], reqSeq: number): void => {
    const timed = requests.filter((r) => r.delay_ms !== undefined && r.delay_ms > 0);
    for (const r of timed) {
      // Issue 42: on a timer, as another client's change lands mid-run; close() cancels it.
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!closing.signal.aborted) runAfter([{ ...r, delay_ms: 0 }], reqSeq);
      }, r.delay_ms);
      timers.add(timer);
    }
    for (const r of requests) {
      if (r.delay_ms !== undefined && r.delay_ms > 0) continue;
      const api: ApiName = r.path.startsWith("/api/v2/") ? "v2" : "v3";
      const method = r.method.toUpperCase();
      const raw = r.json === undefined ? NO_BODY : Buffer.from(JSON.stringify(r.json), "utf8");
      const a = handle(
        api,
        undefined,
        method,
        r.path,
        new URLSearchParams(r.query ?? {}),
        raw,
        reqSeq,
        router.match(method, r.path),
      );
      if (!r.to_front || a.body === undefined || a.status >= 300) continue;
      const created = (JSON.parse(a.body) as { data?: { id?: unknown } }).data?.id;
      const toFront = <T extends { readonly id: string }>(rows: T[]): void => {
        const i = rows.findIndex((row) => row.id === created);
        if (i > 0) rows.unshift(...rows.splice(i, 1));
      };
      for (const table of TO_FRONT) toFront(tableOf(state, table) as { readonly id: string }[]);
      touch(state);
    }
  };

  const routeKey = (method: string, path: string, m: Match | undefined): string =>
    `${method} ${m ? m.route.pattern : path}`;

  const send = (res: ServerResponse, a: Answer): void => {
    const delivery = a.delivery ?? { kind: "normal" };
    if (a.body === undefined) {
      res.writeHead(a.status, a.headers);
      res.end();
      return;
    }
    if (delivery.kind === "normal") {
      // Decision: a body goes out with its Content-Length, in one write, rather than chunked
      // (cheaper per request; the framing is not part of the contract). A scripted answer
      // that names its own framing header keeps it; 204 and 304 never carry a body.
      if (a.status >= 200 && a.status !== 204 && a.status !== 304 && !namesFraming(a.headers))
        a.headers["Content-Length"] = String(Buffer.byteLength(a.body, "utf8"));
      res.writeHead(a.status, a.headers);
      res.end(a.body);
      return;
    }
    const bytes = Buffer.from(a.body, "utf8");
    res.writeHead(a.status, { ...a.headers, "Content-Length": String(bytes.length) });
    if (delivery.kind === "truncate") {
      // Announce the whole length, send half, then break the connection.
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
      return;
    }
    // Slow: five chunks spread over `ms`; close() ends the wait (the socket is destroyed).
    const parts = 5;
    const size = Math.ceil(bytes.length / parts);
    const step = Math.max(1, Math.floor(delivery.ms / parts));
    const writePart = (i: number): void => {
      if (closing.signal.aborted || res.destroyed) return;
      const chunk = bytes.subarray(i * size, (i + 1) * size);
      if (i >= parts - 1) {
        res.end(chunk);
        return;
      }
      res.write(chunk);
      setTimeout(() => writePart(i + 1), step);
    };
    writePart(0);
  };

  const drop = (req: IncomingMessage): void => {
    req.socket.destroy();
  };

  const scripted = (entry: ScriptEntry, real?: Answer): Answer => {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (entry.json !== undefined) {
      headers["Content-Type"] = "application/json; charset=utf-8";
      body = JSON.stringify(entry.json);
    } else if (entry.body !== undefined) {
      headers["Content-Type"] = "text/plain; charset=utf-8";
      body = entry.body;
    } else if (real) {
      Object.assign(headers, real.headers);
      body = real.body;
    }
    Object.assign(headers, entry.headers ?? {});
    return {
      status: entry.status ?? real?.status ?? 200,
      headers,
      ...(body !== undefined ? { body } : {}),
    };
  };

  /** Issue 42: the real answer cut in half (`cut`) or with items left out (`hide`). */
  const reshaped = (entry: ScriptEntry, real: Answer): Answer => {
    if (real.body === undefined) return real;
    let body = real.body;
    const needle = entry.hide;
    if (needle !== undefined) {
      const parsed = JSON.parse(body) as { data?: unknown };
      if (Array.isArray(parsed.data)) {
        parsed.data = parsed.data.filter((item: { attributes?: { name?: unknown } }) => {
          const name = item?.attributes?.name;
          return !(typeof name === "string" && name.includes(needle));
        });
      }
      body = JSON.stringify(parsed);
    }
    if (entry.cut) body = body.slice(0, Math.floor(body.length / 2));
    return { ...real, headers: { ...real.headers }, body };
  };

  const onApiRequest = async (
    api: ApiName,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
    raw: Buffer,
  ): Promise<void> => {
    const method = (req.method ?? "GET").toUpperCase();
    if (!apiSockets.has(req.socket)) {
      apiSockets.add(req.socket);
      apiConnections += 1;
    }
    seq += 1;
    const reqSeq = seq;
    const started = Date.now();
    // Decide at arrival, so the fault sequence follows the request order.
    const entry = script.take(method, path);
    const decision: FaultDecision = entry ? { kind: "none" } : faults.draw(method);
    const activeFaults = faults;
    const wait = sleep(
      activeFaults.latencyMs() +
        (entry?.delay_ms ?? 0) +
        (decision.kind === "slow_commit" ? decision.ms : 0),
    );
    if (wait) await wait;
    if (closing.signal.aborted) return void drop(req);
    // A delay alone delays the real request, which then runs as any other.
    const delayOnly =
      entry?.delay_ms !== undefined &&
      !entry.commit &&
      !entry.drop &&
      entry.status === undefined &&
      entry.json === undefined &&
      entry.body === undefined;
    // Routed once: the rate-limit bucket key and the handler both need it.
    const m = router.match(method, path);

    let answer: Answer | undefined;
    let fault: string | undefined;
    let dropped = false;
    let rateHeaders: Readonly<Record<string, string>> = {};

    // Decision: a scripted answer stands in for the service's front end: it bypasses auth,
    // the token bucket and random faults (latency still applies). With `commit`, the real
    // request (auth included) runs first.
    if (entry?.after) {
      answer = handle(api, req, method, path, query, raw, reqSeq, m);
      fault = "script_after";
      runAfter(entry.after, reqSeq);
    } else if (entry?.cut || entry?.hide !== undefined) {
      answer = reshaped(entry, handle(api, req, method, path, query, raw, reqSeq, m));
      fault = entry.cut ? "script_cut" : "script_hide";
    } else if (entry && delayOnly) {
      fault = "script_delay";
      answer = handle(api, req, method, path, query, raw, reqSeq, m);
    } else if (entry && !entry.commit) {
      fault = "script";
      if (entry.drop) dropped = true;
      else answer = scripted(entry);
    } else if (entry?.commit) {
      const real = handle(api, req, method, path, query, raw, reqSeq, m);
      fault = "script_commit";
      if (entry.drop) dropped = true;
      else answer = scripted(entry, real);
    } else {
      const verdict = activeFaults.take(routeKey(method, path, m));
      if (verdict) rateHeaders = verdict.headers;
      if (verdict && !verdict.allowed) {
        fault = "rate_limit";
        answer = errorAnswer(
          api,
          new EmulatorHttpError(
            429,
            "rate_limited",
            "Too many requests",
            "route rate limit reached",
          ),
          reqSeq,
        );
        answer.headers["Retry-After"] = String(verdict.retryAfter);
      } else if (decision.kind === "429") {
        fault = "429";
        answer = errorAnswer(
          api,
          new EmulatorHttpError(429, "rate_limited", "Too many requests", "injected 429"),
          reqSeq,
        );
        answer.headers["Retry-After"] = String(decision.retryAfter);
      } else if (decision.kind === "500") {
        fault = "500";
        answer = errorAnswer(
          api,
          new EmulatorHttpError(500, "internal", "Internal error", "injected 500"),
          reqSeq,
        );
      } else if (decision.kind === "drop") {
        fault = "drop";
        dropped = true;
      } else {
        // Chaos cursors (endless / repeating pages) are not the service's: answer them as
        // the first page, carrying the next chaos cursor (docs/emulator.md "Chaos").
        const cursorParam = api === "v2" ? "page-token" : "page[cursor]";
        const chaosCursor = method === "GET" ? query.get(cursorParam) : null;
        let handled = query;
        if (chaosCursor !== null && isChaosCursor(chaosCursor)) {
          handled = new URLSearchParams(query);
          handled.delete(cursorParam);
        }
        answer = handle(api, req, method, path, handled, raw, reqSeq, m);
        if (chaosCursor !== null && isChaosCursor(chaosCursor) && answer.status === 200) {
          fault = "chaos_cursor";
          const body: unknown = answer.body === undefined ? undefined : JSON.parse(answer.body);
          if (typeof body === "object" && body !== null && !Array.isArray(body))
            answer.body = JSON.stringify(
              withNextCursor(body as Record<string, unknown>, nextChaosCursor(chaosCursor)),
            );
        }
        const chaos =
          answer.status === 200 && answer.body !== undefined
            ? activeFaults.chaos(method)
            : undefined;
        if (chaos && answer.body !== undefined) {
          fault = `chaos_${chaos}`;
          const hostile = chaosAnswer(
            chaos,
            answer.body,
            activeFaults.options.chaos ?? { rate: 0 },
            reqSeq,
          );
          answer.body = hostile.body;
          answer.delivery = hostile.delivery;
        }
        if (decision.kind === "slow_commit") fault = "slow_commit";
        if (decision.kind === "commit_then_fail" && WRITE.has(method)) {
          // The write happened; the client only sees a failure.
          fault = `commit_then_${decision.failure}`;
          if (decision.failure === "drop") dropped = true;
          else
            answer = errorAnswer(
              api,
              new EmulatorHttpError(500, "internal", "Internal error", "injected 500 after commit"),
              reqSeq,
            );
        }
      }
    }

    let status = 0;
    if (!dropped && answer) {
      Object.assign(answer.headers, rateHeaders);
      // spec: api-v3.md "Limits": Caching: ETag and Cache-Control; If-None-Match → 304.
      if (
        method === "GET" &&
        answer.status === 200 &&
        answer.body !== undefined &&
        fault === undefined
      ) {
        const etag = etagOf(answer.body);
        answer.headers.ETag = etag;
        answer.headers["Cache-Control"] = "private, no-cache";
        const inm = req.headers["if-none-match"];
        if (ifNoneMatchHits(Array.isArray(inm) ? inm.join(",") : inm, etag)) {
          answer = {
            status: 304,
            headers: { ETag: etag, "Cache-Control": "private, no-cache", ...rateHeaders },
          };
        }
      }
      status = answer.status;
      send(res, answer);
    } else {
      drop(req);
    }
    requestLog.push({
      seq: reqSeq,
      method,
      path,
      query: logQuery(query),
      status,
      api,
      route: routeKey(method, path, m),
      ...(fault !== undefined ? { fault } : {}),
    });
    opts.log?.(
      `${method} ${path} ${status === 0 ? "dropped" : status}${fault ? ` [${fault}]` : ""} ${Date.now() - started}ms`,
    );
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const path = q < 0 ? url : url.slice(0, q);
      const query = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
      let raw: Buffer;
      try {
        raw = hasNoBody(req) ? NO_BODY : await readBody(req);
      } catch {
        return;
      }
      const method = (req.method ?? "GET").toUpperCase();
      if (path.startsWith("/__admin/")) {
        let parsed: unknown;
        try {
          parsed = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : undefined;
        } catch {
          return send(
            res,
            json(400, {
              error: {
                type: "invalid_json",
                title: "Bad request",
                detail: "the body is not valid JSON",
              },
            }),
          );
        }
        const reply = opts.admin ? handleAdmin(admin, method, path, parsed) : undefined;
        if (!reply)
          return send(res, json(404, { error: { type: "not_found", title: "Not found" } }));
        return send(res, json(reply.status, reply.body));
      }
      const api: ApiName | undefined = path.startsWith("/api/v3/")
        ? "v3"
        : path.startsWith("/api/v2/")
          ? "v2"
          : undefined;
      if (!api) {
        return send(
          res,
          json(404, {
            error: { type: "not_found", title: "Not found", detail: `no route ${method} ${path}` },
          }),
        );
      }
      await onApiRequest(api, req, res, path, query, raw);
    })().catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      opts.log?.(`emulator: request failed: ${message}`);
      if (!res.headersSent)
        send(res, json(500, { error: { type: "internal", title: "Internal error" } }));
    });
  });
  // Node advertises `Keep-Alive: timeout=<this in whole seconds>` and closes the idle socket
  // when it runs out.
  server.keepAliveTimeout = opts.keepAliveMs ?? KEEP_ALIVE_MS;
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const w of waits) {
          clearTimeout(w.timer);
          w.resolve();
        }
        waits.clear();
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open: destroy them (idle and busy).
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      }),
  };
};
