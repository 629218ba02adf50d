/**
 * Scripted answers (`POST /__admin/script`): a FIFO the client's tests use for deterministic
 * 429 / 500 / HTML / dropped-connection scenarios. Each entry answers the next matching
 * request(s) (`times`, default 1) and is then removed. docs/emulator.md "Script".
 */
import { fromIssue } from "./errors.js";
import { check, type Schema, s } from "./validate.js";

export interface ScriptEntry {
  /** Match only this method (case-insensitive); any when absent. */
  readonly method?: string;
  /** Exact request path (no query), or a pattern with `*` wildcards; any when absent. */
  readonly path?: string;
  readonly times?: number;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Raw body, sent as is. */
  readonly body?: string;
  /** JSON body (wins over `body`). */
  readonly json?: unknown;
  /** Perform the real request first, then answer with this entry ("commit then fail"). */
  readonly commit?: boolean;
  /** Destroy the socket without answering (after committing, with `commit`). */
  readonly drop?: boolean;
  /**
   * Hold the request this long first. Alone (no status, body, json, drop or commit), the
   * real request then runs and is answered as usual: a slow create that lands after the
   * client's timeout (issue 15 item 2).
   */
  readonly delay_ms?: number;
  /**
   * Issue 15: answer the matching request as the service would (the real handling, no
   * random fault), then make these requests as another client of the same service would,
   * before any later request is handled: e.g. delete or insert an item between two page
   * reads of one listing.
   */
  readonly after?: readonly AfterRequest[];
  /**
   * Issue 42: answer with the real answer's body cut in half (status and headers kept, its
   * length the cut one): a listing whose JSON ends mid-way, as a proxy that gave up would
   * send it.
   */
  readonly cut?: boolean;
  /**
   * Issue 42: answer with the real answer, leaving out of its `data` every item whose
   * `attributes.name` contains this text (case-sensitive): a listing that does not show
   * what is there (a lagging replica).
   */
  readonly hide?: string;
}

/** A request another client makes (`after`): handled with full rights, never logged. */
export interface AfterRequest {
  readonly method: string;
  /** The API path (`/api/v3/webhooks/ID`), without query. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  /**
   * Move the row this request created to the front of its collection, as a service that
   * lists by name or newest first would place it: ahead of pages already read.
   */
  readonly to_front?: boolean;
  /**
   * Issue 42: make the request this long after the matching request was answered (a timer),
   * not before the next request: another client's change that lands while this client is
   * in the middle of its reads or writes.
   */
  readonly delay_ms?: number;
}

const entrySchema: Schema = s.obj({
  method: s.str({ nonEmpty: true }),
  path: s.str({ nonEmpty: true }),
  times: s.int(1),
  status: { kind: "number", integer: true, min: 100 },
  headers: s.record(s.str()),
  body: s.str(),
  json: s.any(),
  commit: s.bool(),
  drop: s.bool(),
  delay_ms: s.int(0),
  cut: s.bool(),
  hide: s.str({ nonEmpty: true }),
  after: s.arr(
    s.obj(
      {
        method: s.str({ oneOf: ["GET", "POST", "PUT", "DELETE"] }),
        path: s.str({ nonEmpty: true }),
        query: s.record(s.str()),
        json: s.any(),
        to_front: s.bool(),
        delay_ms: s.int(0),
      },
      ["method", "path"],
    ),
  ),
});
const scriptSchema: Schema = s.obj({ responses: s.arr(entrySchema) }, ["responses"]);

export const parseScript = (value: unknown): ScriptEntry[] => {
  const issue = check(scriptSchema, value);
  if (issue) throw fromIssue(issue);
  return [...(value as { responses: ScriptEntry[] }).responses];
};

const pathMatches = (pattern: string, path: string): boolean => {
  if (!pattern.includes("*")) return pattern === path;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(path);
};

/** A FIFO of script entries with their remaining use counts. */
export interface Script {
  add(entries: readonly ScriptEntry[]): void;
  clear(): void;
  /** Remaining entries, in order. */
  pending(): { entry: ScriptEntry; remaining: number }[];
  /** Consume the first entry matching the request, if any. */
  take(method: string, path: string): ScriptEntry | undefined;
}

export const createScript = (): Script => {
  let queue: { entry: ScriptEntry; remaining: number }[] = [];
  return {
    add(entries) {
      for (const entry of entries) queue.push({ entry, remaining: entry.times ?? 1 });
    },
    clear() {
      queue = [];
    },
    pending() {
      return queue.map((q) => ({ ...q }));
    },
    take(method, path) {
      const i = queue.findIndex(
        ({ entry }) =>
          (entry.method === undefined || entry.method.toUpperCase() === method.toUpperCase()) &&
          (entry.path === undefined || pathMatches(entry.path, path)),
      );
      if (i < 0) return undefined;
      const slot = queue[i]!;
      slot.remaining -= 1;
      if (slot.remaining <= 0) queue.splice(i, 1);
      return slot.entry;
    },
  };
};
