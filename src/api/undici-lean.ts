/**
 * undici's `Agent`, loaded without the package's index (issue 8: start-up cost).
 *
 * Why: `import { Agent } from "undici"` evaluates the whole package (fetch, WebSocket,
 * EventSource, cache, mocks…) and, through its cookies module, Node's own bundled copy of
 * undici as well: ~100 ms before the first request, measured with `node --cpu-prof`. The
 * Agent module alone loads in ~25 ms. The client sends through `Agent.dispatch`
 * (src/api/exchange.ts), so the Agent is all it needs.
 *
 * Decision: undici 7 has no `exports` map, so its `lib/` files can be required; they are not
 * a documented entry point, though, so if a later undici moves the file, this falls back to
 * the package index (slower start, same behaviour); `npm run bench` prints which way it
 * loaded, so the move is noticed rather than silently costing start-up time.
 */
import { createRequire } from "node:module";
import type { Agent } from "undici";

export interface LeanUndici {
  /** Which way the Agent was loaded: `lean` is the fast path. */
  readonly loadedFrom: "lean" | "index";
  readonly Agent: typeof Agent;
}

/** Load undici's Agent (Node's require cache makes later calls free). */
export const loadUndici = (): LeanUndici => {
  const require = createRequire(import.meta.url);
  try {
    const AgentClass = require("undici/lib/dispatcher/agent.js") as typeof Agent;
    if (typeof AgentClass !== "function" || typeof AgentClass.prototype.dispatch !== "function") {
      throw new TypeError("unexpected undici module shape");
    }
    return { loadedFrom: "lean", Agent: AgentClass };
  } catch {
    const undici = require("undici") as typeof import("undici");
    return { loadedFrom: "index", Agent: undici.Agent };
  }
};
