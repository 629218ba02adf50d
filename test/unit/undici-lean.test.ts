import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { loadUndici } from "../../src/api/undici-lean.js";

describe("loadUndici", () => {
  it("loads undici's Agent and request API without the package index", () => {
    // If this fails after an undici upgrade, its lib/ layout moved: update the paths in
    // src/api/undici-lean.ts (the client still works through the slower fallback).
    expect(loadUndici().loadedFrom).toBe("lean");
  });

  it("makes a real request through the lean Agent", async () => {
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ method: req.method, url: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const undici = loadUndici();
    const agent = new undici.Agent();
    try {
      const res = await undici.request(agent, {
        origin: `http://127.0.0.1:${port}`,
        path: "/api/v3/orgs?x=1",
        method: "GET",
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ method: "GET", url: "/api/v3/orgs?x=1" });
    } finally {
      await agent.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
