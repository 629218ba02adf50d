import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { startExchange } from "../../src/api/exchange.js";
import { loadUndici } from "../../src/api/undici-lean.js";

const withServer = async (
  handler: Parameters<typeof createServer>[1],
  fn: (origin: string) => Promise<void>,
): Promise<void> => {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await fn(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
};

describe("startExchange", () => {
  it("collects status, headers and the whole body", async () => {
    await withServer(
      (req, res) => {
        res.setHeader("content-type", "application/json");
        res.setHeader("x-seen", `${req.method} ${req.url} ${req.headers["x-test"]}`);
        // Three writes: the body arrives in more than one chunk.
        res.write('{"a":');
        res.write("1,");
        res.end('"b":"é"}');
      },
      async (origin) => {
        const agent = new (loadUndici().Agent)();
        try {
          const ex = startExchange(
            agent,
            { origin, path: "/api/v3/orgs?x=1", method: "GET", headers: { "x-test": "yes" } },
            1024,
          );
          const result = await ex.done;
          expect(result.kind).toBe("complete");
          if (result.kind !== "complete") return;
          expect(result.status).toBe(200);
          expect(result.headers["x-seen"]).toBe("GET /api/v3/orgs?x=1 yes");
          expect(JSON.parse(result.body.toString("utf8"))).toEqual({ a: 1, b: "é" });
        } finally {
          await agent.close();
        }
      },
    );
  });

  it("stops reading a body larger than the cap", async () => {
    await withServer(
      (_req, res) => {
        res.write("x".repeat(600));
        res.end("y".repeat(600));
      },
      async (origin) => {
        const agent = new (loadUndici().Agent)();
        try {
          const result = await startExchange(agent, { origin, path: "/", method: "GET" }, 1000)
            .done;
          expect(result).toEqual({ kind: "too_large", status: 200 });
        } finally {
          await agent.close();
        }
      },
    );
  });

  it("reports a body cut off after the headers as failed with headers read", async () => {
    await withServer(
      (_req, res) => {
        res.writeHead(200, { "content-length": "100" });
        res.write("partial");
        setImmediate(() => res.socket?.destroy());
      },
      async (origin) => {
        const agent = new (loadUndici().Agent)();
        try {
          const result = await startExchange(agent, { origin, path: "/", method: "GET" }, 1000)
            .done;
          expect(result.kind).toBe("failed");
          if (result.kind === "failed") expect(result.headersRead).toBe(true);
        } finally {
          await agent.close();
        }
      },
    );
  });

  it("settles as aborted at once when aborted while the server is silent", async () => {
    await withServer(
      () => {
        // never answers
      },
      async (origin) => {
        const agent = new (loadUndici().Agent)();
        try {
          const ex = startExchange(agent, { origin, path: "/", method: "GET" }, 1000);
          setImmediate(() => ex.abort());
          expect(await ex.done).toEqual({ kind: "aborted" });
        } finally {
          await agent.destroy();
        }
      },
    );
  });
});
