/**
 * Issue 21: 401 and 403 are permanent. Apply stops starting operations after the first
 * refusal, says "the token cannot write; nothing was changed" when no write was accepted,
 * prints each failure once, and never claims that a re-run converges for a 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecrets, makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000bb";
const RW_TOKEN = "wbtok_readwrite_6c1e9a0f7d";
const RO_TOKEN = "wbtok_readonly_2b8d5e4c1a";
const CONTEXTS = 12;

const config = (): string => {
  const lines = ["org: gh/ro", "contexts:"];
  for (let c = 0; c < CONTEXTS; c++) {
    lines.push(`  ctx-${c}:`, "    env:", `      A: value-${c}-a`, `      B: value-${c}-b`);
  }
  return `${lines.join("\n")}\n`;
};

describe("apply with a token the service refuses", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let configPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({
      orgs: [{ id: ORG_ID, slug: "gh/ro", name: "ro", default_context_restriction: false }],
      tokens: [{ token: RW_TOKEN }, { token: RO_TOKEN, read_only: true }],
    });
    tmp = await makeTempDir();
    configPath = await tmp.write("waybill.yaml", config());
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  // --no-lock: this is about the plan's own writes meeting a refusal; with the org lock
  // (issue 15) a read-only token is refused at the lock's first write, before the plan.
  const apply = (token: string, parallelism: number) =>
    runInProcess(
      [
        "apply",
        "-c",
        configPath,
        "--auto-approve",
        "--parallelism",
        String(parallelism),
        "--no-lock",
      ],
      { SERVICE_BASE_URL: emulator.url, SERVICE_TOKEN: token },
    );

  it.each([1, 4])(
    "a read-only token (403): stops after the first refusal (parallelism %i), nothing changed",
    async (parallelism) => {
      const before = (await emulator.requests()).length;
      const r = await apply(RO_TOKEN, parallelism);
      expect(r.code, r.stderr).toBe(1);
      const writes = (await emulator.requests()).slice(before).filter((e) => e.method !== "GET");
      // Only the operations already running when the first 403 came were sent.
      expect(writes.length).toBeGreaterThanOrEqual(1);
      expect(writes.length).toBeLessThanOrEqual(parallelism);
      expect(writes.every((e) => e.status === 403)).toBe(true);
      expect(r.stdout).toContain("Apply stopped: the token cannot write; nothing was changed.");
      expect(r.stdout).toMatch(
        new RegExp(`0 done, ${writes.length} failed, ${CONTEXTS * 3 - writes.length} skipped`),
      );
      expect(r.stdout).toContain("not started: the service refused the token (403)");
      expect(r.stdout).not.toContain("converges");
      expect(r.stdout).toContain("A re-run alone will not fix");
      // Each failure's message once in all the output (the stderr line names the status;
      // each answer's own `[error id …]` is left out of the match).
      const message = /POST \/api\/v3\/contexts failed with 403[^\n[]*/.exec(r.stdout)?.[0];
      expect(message).toBeDefined();
      expect(`${r.stdout}${r.stderr}`.split(message!).length - 1).toBe(writes.length);
      expect(r.stderr).toMatch(
        /context\["ctx-\d+"\]: failed after [\d.]+s \(403\); see the summary/,
      );
      expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [RO_TOKEN]);
      const state = await emulator.state();
      expect(state.orgs?.[0]?.contexts ?? []).toEqual([]);
    },
  );

  it("an invalid token (401) fails the plan's first read once, without retries", async () => {
    const before = (await emulator.requests()).length;
    const r = await apply("wbtok_not_known_at_all_99", 4);
    expect(r.code).toBe(1);
    const sent = (await emulator.requests()).slice(before);
    expect(sent.map((e) => e.status)).toEqual([401]);
    expect(r.stderr).toMatch(/failed with 401/);
    expect(r.stderr).not.toMatch(/Retrying/);
  });

  it("a token file with a Windows line ending works; one with a line break inside is refused", async () => {
    const good = await tmp.write("good.token", `${RW_TOKEN}\r\n`);
    const bad = await tmp.write("bad.token", `${RW_TOKEN.slice(0, 8)}\r\n${RW_TOKEN.slice(8)}\r\n`);
    const before = (await emulator.requests()).length;
    const refused = await runInProcess(["plan", "-c", configPath, "--token-file", bad], {
      SERVICE_BASE_URL: emulator.url,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("has a line break inside it");
    expect((await emulator.requests()).length).toBe(before);
    expectNoSecrets({ stderr: refused.stderr, stdout: refused.stdout }, [RW_TOKEN.slice(8)]);
    const ok = await runInProcess(["plan", "-c", configPath, "--token-file", good], {
      SERVICE_BASE_URL: emulator.url,
    });
    expect(ok.code, ok.stderr).toBe(0);
  });
});
