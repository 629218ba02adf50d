/**
 * The two parts of undici the client uses — its `Agent` and its `request` API — loaded
 * without the package's index (issue 8: start-up cost).
 *
 * Why: `import { Agent } from "undici"` evaluates the whole package (fetch, WebSocket,
 * EventSource, cache, mocks…) and, through its cookies module, Node's own bundled copy of
 * undici as well: ~100 ms before the first request, measured with `node --cpu-prof`. The
 * Agent and request modules alone load in ~25 ms.
 *
 * Decision: undici 7 has no `exports` map, so its `lib/` files can be required; they are not
 * a documented entry point, though, so if a later undici moves them, this falls back to the
 * package index (slower start, same behaviour), and test/unit/undici-lean.test.ts fails so
 * the move is noticed rather than silently costing start-up time.
 */
import { createRequire } from "node:module";
import type { Agent, Dispatcher } from "undici";

export interface LeanUndici {
  /** Which way the modules were loaded: `lean` is the fast path. */
  readonly loadedFrom: "lean" | "index";
  readonly Agent: typeof Agent;
  readonly request: (
    dispatcher: Dispatcher,
    options: Dispatcher.RequestOptions,
  ) => Promise<Dispatcher.ResponseData>;
}

type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** Load undici's Agent and request API (Node's require cache makes later calls free). */
export const loadUndici = (): LeanUndici => {
  const require = createRequire(import.meta.url);
  try {
    const AgentClass = require("undici/lib/dispatcher/agent.js") as typeof Agent;
    const request = require("undici/lib/api/api-request.js") as RequestFn;
    if (typeof AgentClass !== "function" || typeof request !== "function") {
      throw new TypeError("unexpected undici module shape");
    }
    return {
      loadedFrom: "lean",
      Agent: AgentClass,
      // Without a callback, undici's request returns a promise (lib/api/api-request.js);
      // it only needs `this.dispatch`, which every Dispatcher has.
      request: (dispatcher, options) => request.call(dispatcher, options),
    };
  } catch {
    const undici = require("undici") as typeof import("undici");
    return {
      loadedFrom: "index",
      Agent: undici.Agent,
      request: (dispatcher, options) => dispatcher.request(options),
    };
  }
};
