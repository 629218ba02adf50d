/**
 * The admin API under `/__admin/` (docs/emulator.md "Admin API"): reset with a seed, dump the
 * state (secret values included: test only), the request log, faults and the script. Off
 * unless the emulator was started with `admin: true` / `--admin`; never authenticated, never
 * faulted, never logged.
 */
import { EmulatorHttpError, SeedError } from "./errors.js";
import { parseFaultOptions } from "./faults.js";
import type { Reply } from "./http.js";
import { parseScript, type ScriptEntry } from "./script.js";
import type { FaultOptions, Seed } from "./seed.js";

export interface RequestLogEntry {
  readonly seq: number;
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Query as an object; values that look like a token are redacted. */
  readonly query: Readonly<Record<string, string>>;
  /** Decision: 0 when the connection was dropped without an answer. */
  readonly status: number;
  readonly api: "v3" | "v2";
  /**
   * The route the request matched (`POST /api/v3/contexts/:id/env-vars/set`; the path for
   * an unknown route): the key of its rate-limit bucket (faults.ts `take`), so the bench can
   * compute a rate-limited run's floor per route.
   */
  readonly route: string;
  /** Set when an injected fault or a scripted answer decided the response. */
  readonly fault?: string;
}

/** What the admin API can do to a running emulator. */
export interface AdminPort {
  reset(seed: Seed): void;
  dump(): Seed;
  requests(): readonly RequestLogEntry[];
  /** Connections that carried the logged API requests (issue 22 §3: is keep-alive reused?). */
  connections(): number;
  clearRequests(): void;
  setFaults(f: FaultOptions): void;
  faults(): FaultOptions;
  addScript(entries: readonly ScriptEntry[]): void;
  clearScript(): void;
  script(): unknown;
}

const noBody = (): Reply => ({ status: 204 });

/** Handle one admin request; undefined when no admin route matches. */
export const handleAdmin = (
  port: AdminPort,
  method: string,
  path: string,
  body: unknown,
): Reply | undefined => {
  const route = `${method} ${path}`;
  try {
    switch (route) {
      case "POST /__admin/reset":
        port.reset((body ?? {}) as Seed);
        return noBody();
      case "GET /__admin/state":
        return { status: 200, body: port.dump() };
      case "GET /__admin/requests":
        return {
          status: 200,
          body: { requests: port.requests(), connections: port.connections() },
        };
      case "DELETE /__admin/requests":
        port.clearRequests();
        return noBody();
      case "GET /__admin/faults":
        return { status: 200, body: port.faults() };
      case "POST /__admin/faults":
        port.setFaults(parseFaultOptions(body ?? {}));
        return { status: 200, body: port.faults() };
      case "GET /__admin/script":
        return { status: 200, body: { pending: port.script() } };
      // Decision: POST appends to the FIFO (DELETE clears it; GET shows what is left).
      case "POST /__admin/script":
        port.addScript(parseScript(body));
        return { status: 200, body: { pending: port.script() } };
      case "DELETE /__admin/script":
        port.clearScript();
        return noBody();
      default:
        return undefined;
    }
  } catch (err) {
    if (err instanceof SeedError) {
      return {
        status: 400,
        body: { error: { type: "invalid_seed", title: "Bad seed", detail: err.message } },
      };
    }
    if (err instanceof EmulatorHttpError) {
      return {
        status: err.status,
        body: {
          error: {
            type: err.type,
            title: err.title,
            detail: err.detail,
            source: err.pointer ? { pointer: err.pointer } : undefined,
          },
        },
      };
    }
    throw err;
  }
};
