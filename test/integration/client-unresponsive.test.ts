/**
 * Issue 21, the client's side: an unresponsive server, a token with a line break and a TLS
 * failure. Real sockets on loopback; the backoff waits go through a virtual clock (nothing
 * sleeps but the short per-attempt timeouts).
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient, type RetryNotice, requestTimeBoundMs } from "../../src/api/client.js";
import { NetworkError, TimeoutError } from "../../src/api/errors.js";
import { UsageError } from "../../src/core/errors.js";
import { makeTempDir } from "../helpers/cli.js";
import { createFakeClock } from "../helpers/client-fake-clock.js";
import { runInProcess } from "../helpers/in-process.js";

const TOKEN = "wbtok_unresponsive_3f9a7c";

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A TCP server that accepts and reads, and answers `answer` (or nothing at all). */
const listen = async (answer?: string): Promise<{ url: string; connections: () => number }> => {
  let connections = 0;
  server = createServer((socket) => {
    connections += 1;
    sockets.push(socket);
    socket.on("data", () => {
      if (answer !== undefined) socket.end(answer);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { url: `127.0.0.1:${address.port}`, connections: () => connections };
};

describe("API client: an unresponsive server", () => {
  it("says each retry (operation, why, attempt n/N, wait) and gives up within the stated bound", async () => {
    const { url } = await listen();
    const clock = createFakeClock();
    const notices: RetryNotice[] = [];
    const client = createApiClient({
      baseUrl: `http://${url}`,
      token: TOKEN,
      clock,
      random: () => 0.5,
      timeoutMs: 60,
      onRetry: (n) => notices.push(n),
    });
    try {
      const err = await client.get("v3", "/orgs/o1").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect((err as TimeoutError).attempts).toBe(5);
      const bound = requestTimeBoundMs(60, 5, { baseDelayMs: 500, maxDelayMs: 30_000 });
      // 5 timeouts of 60 ms plus the backoff ceilings 0.5 + 1 + 2 + 4 s.
      expect(bound).toBe(5 * 60 + 7_500);
      expect(notices).toEqual(
        [2, 3, 4, 5].map((next, i) => ({
          method: "GET",
          path: "/api/v3/orgs/o1",
          reason: "timed out after 0.1 s",
          nextAttempt: next,
          maxAttempts: 5,
          waitMs: 250 * 2 ** i,
          boundMs: bound,
        })),
      );
      // The waits announced are the waits made.
      expect(clock.waits).toEqual([250, 500, 1000, 2000]);
    } finally {
      await client.close();
    }
  });
});

describe("plan and apply: a server that accepts and never answers", () => {
  it.each([["plan"], ["apply", "--auto-approve"]])(
    "%s reports it within --timeout (retries included) and names the host",
    async (...command) => {
      // The server also counts the requests it is sent: one, never a retry past the bound.
      let requests = 0;
      server = createServer((socket) => {
        sockets.push(socket);
        socket.on("data", () => {
          requests += 1;
        });
        socket.on("error", () => {});
      });
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as { port: number }).port;
      const tmp = await makeTempDir();
      try {
        const config = await tmp.write(
          "waybill.yaml",
          "org: gh/acme\ncontexts:\n  app:\n    env: {}\n",
        );
        const r = await runInProcess(
          [...command, "-c", config, "--timeout", "0.3"],
          { SERVICE_BASE_URL: `http://127.0.0.1:${port}`, SERVICE_TOKEN: TOKEN },
          // Backoff waits on a virtual clock: before the bound, 5 (apply: 8) attempts of
          // 0.3 s each were made, with a "Retrying" line for each.
          { clock: createFakeClock() },
        );
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^Error: GET /api/v3/\\S+ timed out: no answer from 127\\.0\\.0\\.1:${port} within 0\\.3 s \\(the --timeout bound, retries included\\)$`,
            "m",
          ),
        );
        expect(r.stderr).not.toMatch(/Retrying/);
        expect(requests).toBe(1);
      } finally {
        await tmp.remove();
      }
    },
  );

  it("--help says what --timeout bounds", async () => {
    for (const command of ["plan", "apply"]) {
      const r = await runInProcess([command, "--help"], {});
      expect(r.stdout.replace(/\s+/g, " ")).toContain(
        "--timeout <seconds> the longest one API request may wait for its answer, retries and the waits between them included",
      );
    }
  });
});

describe("API client: failures a retry cannot fix", () => {
  it.each([
    ["a line break in the middle", "wbtok_first\r\nwbtok_second", "a line break"],
    ["a lone carriage return", "wbtok_abc\rdef", "a line break"],
    ["a control character", "wbtok_abc\u0007def", "a control character"],
  ])(
    "a token with %s is refused before any request, without showing it",
    async (_n, token, what) => {
      const { url, connections } = await listen();
      let err: unknown;
      try {
        createApiClient({ baseUrl: `http://${url}`, token, clock: createFakeClock() });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UsageError);
      const message = (err as Error).message;
      expect(message).toContain(what);
      expect(message).toContain("nothing was sent");
      for (const part of token.split(/[\r\n\u0007]/).filter((p) => p !== ""))
        expect(message).not.toContain(part);
      expect(connections()).toBe(0);
    },
  );

  it("a TLS failure is not retried and says what to check", async () => {
    // An https:// URL to a server that speaks plain HTTP: the handshake fails.
    const { url, connections } = await listen("HTTP/1.1 400 Bad Request\r\n\r\n");
    const clock = createFakeClock();
    const notices: RetryNotice[] = [];
    const client = createApiClient({
      baseUrl: `https://${url}`,
      token: TOKEN,
      clock,
      onRetry: (n) => notices.push(n),
    });
    try {
      const err = await client.get("v3", "/orgs/o1").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).attempts).toBe(1);
      expect((err as Error).message).toMatch(
        /TLS failed with 127\.0\.0\.1:\d+: .*\(ERR_SSL_WRONG_VERSION_NUMBER|EPROTO/,
      );
      expect((err as Error).message).not.toContain(TOKEN);
      expect(notices).toEqual([]);
      expect(clock.waits).toEqual([]);
      expect(connections()).toBe(1);
    } finally {
      await client.close();
    }
  });
});
