/**
 * Issue 22 §3: connections are reused. The emulator, like a strict front end, advertises
 * `Keep-Alive: timeout=1`; with undici's default 2 s safety margin the client closed every
 * connection after one response (one connection per request). The emulator counts the
 * connections that carried API requests; a plan must use a few, each for many requests.
 */
import { describe, expect, it } from "vitest";
import { generateOrg } from "../../bench/generate.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const gen = generateOrg("small");
const TOKEN = gen.seed.tokens?.[0]?.token ?? "";

describe("keep-alive against a server that advertises 1 s", () => {
  const suite = useEmulatorSuite(() => gen.seed, {
    config: { name: "waybill.yaml", content: gen.configYaml },
  });

  it("the emulator advertises a 1 s keep-alive by default", async () => {
    const res = await fetch(`${suite.emulator.url}/api/v3/me`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await res.arrayBuffer();
    expect(res.headers.get("keep-alive")).toBe("timeout=1");
  });

  it("a plan reuses its connections: many requests per connection", async () => {
    const env = { ...gen.secrets, SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: TOKEN };
    const r = await runInProcess(["plan", "-c", suite.files.config, "--parallelism", "4"], env);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const requests = (await suite.emulator.requests()).length;
    const connections = await suite.emulator.connections();
    expect(requests).toBeGreaterThan(100);
    expect(connections).toBeGreaterThan(0);
    // One connection per request before the fix. With reuse it is about the parallelism;
    // the bound leaves room for a connection the server closed while a busy machine stalled.
    expect(connections).toBeLessThanOrEqual(Math.ceil(requests / 5));
  });
});
