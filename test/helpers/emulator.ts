/**
 * Start the in-repo emulator for a test, seeded, with its admin API on, over real HTTP on
 * 127.0.0.1 (conventions.md §9: fakes that record; tests assert on the request log and the
 * final state, never on a mocked client).
 */
import type { RequestLogEntry } from "../../emulator/src/admin.js";
import { startEmulator } from "../../emulator/src/index.js";
import type { ScriptEntry } from "../../emulator/src/script.js";
import type { FaultOptions, Seed } from "../../emulator/src/seed.js";

/** The bearer token every test seed accepts (added to a seed that lists no tokens). */
export const TEST_TOKEN = "wb-test-token-7f3a9c1e5d2b4860";

/** One request as the emulator's admin API logged it (path without query; query apart). */
export type LoggedRequest = RequestLogEntry;

export interface TestEmulator {
  /** The service root, for SERVICE_BASE_URL / --base-url. */
  readonly url: string;
  readonly token: string;
  /** The whole state, secret values included (GET /__admin/state). */
  state(): Promise<Seed>;
  /** Every API request since start or the last `clearRequests` (admin requests are not logged). */
  requests(): Promise<LoggedRequest[]>;
  /** How many connections carried those requests (keep-alive reuse shows here). */
  connections(): Promise<number>;
  clearRequests(): Promise<void>;
  /**
   * Queue scripted answers (POST /__admin/script): each entry answers the next matching
   * request(s) instead of the emulator's own logic (docs/emulator.md "Script").
   */
  script(entries: readonly ScriptEntry[]): Promise<void>;
  /** Replace the whole state with a seed (POST /__admin/reset). */
  reset(seed: Seed): Promise<void>;
  /** Replace the injected faults (POST /__admin/faults; `{}` turns them off). */
  setFaults(faults: FaultOptions): Promise<void>;
  /**
   * Call the service's own API directly (as someone editing the service by hand would):
   * `call("POST", "/api/v3/webhooks/{id}/update", {...})`. The request appears in the log.
   */
  call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

const withToken = (seed: Seed): Seed =>
  seed.tokens && seed.tokens.length > 0 ? seed : { ...seed, tokens: [{ token: TEST_TOKEN }] };

export const startTestEmulator = async (
  seed: Seed,
  options: {
    readonly faults?: FaultOptions;
    readonly keepAliveMs?: number;
    /** The answers' shapes (docs/emulator.md "Shapes"); the emulator's default, sparse, if absent. */
    readonly shapes?: "sparse" | "full";
  } = {},
): Promise<TestEmulator> => {
  const seeded = withToken(seed);
  const emulator = await startEmulator({
    port: 0,
    seed: seeded,
    admin: true,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    ...(options.shapes !== undefined ? { shapes: options.shapes } : {}),
  });
  const url = emulator.url.replace(/\/+$/, "");
  const token = seeded.tokens?.[0]?.token ?? TEST_TOKEN;

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/__admin/${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok)
      throw new Error(`emulator admin ${method} ${path} failed with ${res.status}: ${text}`);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  };

  return {
    url,
    token,
    state: () => admin<Seed>("GET", "state"),
    requests: async () => {
      const body = await admin<{ requests: LoggedRequest[] }>("GET", "requests");
      return body.requests;
    },
    connections: async () => {
      const body = await admin<{ connections: number }>("GET", "requests");
      return body.connections;
    },
    clearRequests: async () => {
      await admin("DELETE", "requests");
    },
    script: async (entries) => {
      await admin("POST", "script", { responses: entries });
    },
    setFaults: async (faults) => {
      await admin("POST", "faults", faults);
    },
    reset: async (next) => {
      await admin("POST", "reset", withToken(next));
    },
    call: async <T>(method: string, path: string, body?: unknown) => {
      const v2 = path.startsWith("/api/v2");
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(v2 ? { "Service-Token": token } : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
    },
    close: () => emulator.close(),
  };
};
