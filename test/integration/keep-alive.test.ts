/**
 * Issue 22 §3: connections are reused. The emulator, like a strict front end, advertises
 * `Keep-Alive: timeout=1`; with undici's default 2 s safety margin the client closed every
 * connection after one response (one connection per request). The emulator counts the
 * connections that carried API requests; a plan must use a few, each for many requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrg } from "../../bench/generate.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";

const gen = generateOrg("small");
const PARALLELISM = 4;

describe("keep-alive against a server that advertises 1 s", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startTestEmulator(gen.seed);
    tmp = await makeTempDir();
    env = {
      ...gen.secrets,
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: gen.seed.tokens?.[0]?.token ?? "",
    };
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });

  it("the emulator advertises a 1 s keep-alive by default", async () => {
    const res = await fetch(`${emulator.url}/api/v3/me`, {
      headers: { authorization: `Bearer ${env.SERVICE_TOKEN}` },
    });
    await res.arrayBuffer();
    expect(res.headers.get("keep-alive")).toBe("timeout=1");
  });

  it("a plan reuses its connections: many requests per connection", async () => {
    const config = await tmp.write("waybill.yaml", gen.configYaml);
    await emulator.clearRequests();
    const r = await runInProcess(["plan", "-c", config, "--parallelism", String(PARALLELISM)], env);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const requests = (await emulator.requests()).length;
    const connections = await emulator.connections();
    expect(requests).toBeGreaterThan(100);
    expect(connections).toBeGreaterThan(0);
    // One connection per request before the fix. With reuse it is about the parallelism;
    // the bound leaves room for a connection the server closed while a busy machine stalled.
    expect(connections).toBeLessThanOrEqual(Math.ceil(requests / 5));
  });
});
