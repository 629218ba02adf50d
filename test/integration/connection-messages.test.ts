/**
 * Messages that say what to fix when the service cannot be used at all: a failed connection
 * names the host it tried, a base URL that already ends in an API path says it is the service
 * root, and a 401 points at where the token comes from (SERVICE_TOKEN / --token-file,
 * design.md §1 Commands). Driven through the CLI (in process) and the client.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { Dispatcher } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { NetworkError } from "../../src/api/errors.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000cc";
const TOKEN = "wbtok_messages_5d2c9e8a71";

let tmp: TempDir;
let configPath: string;
let emulator: TestEmulator;
beforeAll(async () => {
  tmp = await makeTempDir();
  configPath = await tmp.write("waybill.yaml", "org: gh/msg\ncontexts:\n  app:\n    env: {}\n");
  emulator = await startTestEmulator({
    orgs: [{ id: ORG_ID, slug: "gh/msg", name: "msg" }],
    tokens: [{ token: TOKEN }],
  });
});
afterAll(async () => {
  await emulator?.close();
  await tmp?.remove();
});

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A TCP server on loopback; `onData` decides what happens to each connection. */
const listen = async (
  onData: (socket: Socket) => void,
): Promise<{ port: number; connections: () => number }> => {
  let connections = 0;
  server = createServer((socket) => {
    connections += 1;
    sockets.push(socket);
    socket.on("error", () => {});
    socket.on("data", () => onData(socket));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, connections: () => connections };
};

/** A port nothing listens on (taken, then freed). */
const closedPort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
};

const plan = (env: Record<string, string>, extra: readonly string[] = []) =>
  runInProcess(["plan", "-c", configPath, ...extra], env, { clock: createFakeClock() });

describe("a failed connection names the host", () => {
  it("connection refused: plan says which host:port it could not reach, and where that comes from", async () => {
    const port = await closedPort();
    const r = await plan({ SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_TOKEN: TOKEN });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `could not reach 127.0.0.1:${port} (connection refused, ECONNREFUSED); check --base-url or SERVICE_BASE_URL`,
    );
  });

  it("a connection the server resets names the host too", async () => {
    const { port } = await listen((socket) => socket.resetAndDestroy());
    const r = await plan({ SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_TOKEN: TOKEN });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^Error: GET /api/v3/\\S+ failed: .*\\(\\w+\\) with 127\\.0\\.0\\.1:${port}`, "m"),
    );
  });

  it("an unknown host name (ENOTFOUND) is named, and not retried", async () => {
    // A transport that fails every request the way a DNS miss does (no real lookup).
    let dispatched = 0;
    const notFound = {
      dispatch(_options: unknown, handler: Dispatcher.DispatchHandler) {
        dispatched += 1;
        const error = Object.assign(new Error("getaddrinfo ENOTFOUND ci.example.invalid"), {
          code: "ENOTFOUND",
        });
        queueMicrotask(() => handler.onResponseError?.({} as Dispatcher.DispatchController, error));
        return true;
      },
    } as unknown as Dispatcher;
    const client = createApiClient({
      baseUrl: "https://ci.example.invalid",
      token: TOKEN,
      clock: createFakeClock(),
      dispatcher: notFound,
    });
    const err = await client.get("v3", "/me").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(
      "GET /api/v3/me failed: could not reach ci.example.invalid (host not found, ENOTFOUND); check --base-url or SERVICE_BASE_URL, and that the service runs there",
    );
    expect(dispatched).toBe(1);
  });
});

describe("a base URL that ends in an API path", () => {
  it.each(["/api/v3", "/api/v2/", "/API/V3"])(
    "%s: refused before any request, with the service root to use",
    async (suffix) => {
      // A server that answers 404 (as a service would to /api/v3/api/v3/...).
      const { port, connections } = await listen((socket) =>
        socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"),
      );
      const r = await plan({
        SERVICE_BASE_URL: `http://127.0.0.1:${port}${suffix}`,
        SERVICE_TOKEN: TOKEN,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("but it is the service root");
      expect(r.stderr).toContain(`use it without the trailing`);
      expect(r.stderr).toContain(`(http://127.0.0.1:${port})`);
      expect(connections()).toBe(0);
    },
  );
});

describe("a 401 points at where the token comes from", () => {
  it("from SERVICE_TOKEN", async () => {
    const r = await plan({
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: "wbtok_not_known_7f3e1a",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed with 401/);
    expect(r.stderr).toContain(
      "the service does not accept the API token (from SERVICE_TOKEN): set a valid token in SERVICE_TOKEN or pass --token-file PATH",
    );
  });

  it("from --token-file", async () => {
    const file = await tmp.write("bad.token", "wbtok_not_known_either_2b9\n", 0o600);
    const r = await plan({ SERVICE_BASE_URL: emulator.url }, ["--token-file", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`(read from --token-file ${file})`);
    expect(r.stderr).toContain("set a valid token in SERVICE_TOKEN or pass --token-file PATH");
  });
});
