import type { Family } from "../../emulator/src/family.js";
import { startEmulator } from "../../emulator/src/index.js";
import { type ApiClientOptions, createApiClient } from "../../src/api/client.js";
import type { Api, RequestLogEntry } from "../../src/api/types.js";
import { Secret } from "../../src/core/secret.js";
import { createFakeClock, type FakeClock } from "./client-fake-clock.js";

/**
 * The API client's integration harness: a real emulator on 127.0.0.1 with its admin API
 * (issue 2 §3 contract), a client with a virtual clock, and recorders for everything the
 * client logs or warns, so tests can assert that the token appears nowhere.
 */

export const TOKEN = "wbtok_live_7Hq2ZpX9vLm4Rt8Kc1Nd";
export const ORG_ID = "6f1c2b0e-3d4a-4b5c-8d9e-0a1b2c3d4e5f";
export const ORG_SLUG = "gh/acme";

export interface EmulatorLogEntry {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly status: number;
  readonly api: "v3" | "v2";
  readonly fault?: string;
}

export interface ScriptedResponse {
  readonly method?: string;
  readonly path?: string;
  readonly times?: number;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly json?: unknown;
  readonly commit?: boolean;
  readonly drop?: boolean;
}

export const baseSeed = (extra: Record<string, unknown> = {}) => ({
  tokens: [{ token: TOKEN }],
  orgs: [
    {
      id: ORG_ID,
      slug: ORG_SLUG,
      name: "Acme",
      ...extra,
    },
  ],
});

export interface Harness {
  readonly url: string;
  readonly clock: FakeClock;
  readonly client: Api;
  /** Every onRequest entry of the client. */
  readonly log: RequestLogEntry[];
  /** Every onRequest entry with the virtual time it was logged at. */
  readonly timedLog: { entry: RequestLogEntry; at: number }[];
  readonly warnings: string[];
  /** The emulator's request log (admin API). */
  requests(): Promise<EmulatorLogEntry[]>;
  script(responses: readonly ScriptedResponse[]): Promise<void>;
  faults(f: Record<string, unknown>): Promise<void>;
  state(): Promise<unknown>;
  /** Another client on the same emulator (same recorders, same clock unless overridden). */
  newClient(options?: Partial<ApiClientOptions>): Api;
  close(): Promise<void>;
}

const admin = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
  return text === "" ? undefined : (JSON.parse(text) as unknown);
};

export const startHarness = async (
  seed: unknown = baseSeed(),
  options: Partial<ApiClientOptions> = {},
  faults?: Record<string, unknown>,
  /** The emulator's families (a copy of the list with a test-only one); default every one. */
  families?: readonly Family[],
): Promise<Harness> => {
  const clock = createFakeClock();
  // The emulator shares the virtual clock, so its token bucket refills in virtual time as
  // the client's pauses advance it.
  const emulator = await startEmulator({
    seed: seed as never,
    admin: true,
    now: () => clock.now(),
    ...(faults !== undefined ? { faults: faults as never } : {}),
    ...(families !== undefined ? { families } : {}),
  });
  const url = emulator.url.replace(/\/$/, "");
  const log: RequestLogEntry[] = [];
  const timedLog: { entry: RequestLogEntry; at: number }[] = [];
  const warnings: string[] = [];
  const clients: Api[] = [];
  const newClient = (extra: Partial<ApiClientOptions> = {}): Api => {
    const c = createApiClient({
      baseUrl: url,
      token: new Secret(TOKEN, "env:SERVICE_TOKEN"),
      clock,
      random: () => 0.5,
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
      timeoutMs: 5000,
      onRequest: (entry) => {
        log.push(entry);
        timedLog.push({ entry, at: clock.now() });
      },
      onWarning: (m) => warnings.push(m),
      ...options,
      ...extra,
    });
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    url,
    clock,
    client,
    log,
    timedLog,
    warnings,
    requests: async () =>
      ((await admin(url, "GET", "/__admin/requests")) as { requests: EmulatorLogEntry[] }).requests,
    script: async (responses) => {
      await admin(url, "POST", "/__admin/script", { responses });
    },
    faults: async (f) => {
      await admin(url, "POST", "/__admin/faults", f);
    },
    state: () => admin(url, "GET", "/__admin/state"),
    newClient,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
};

/** The rejection of a promise (fails the test when it resolves). */
export const rejectionOf = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the promise to reject, but it resolved");
};
