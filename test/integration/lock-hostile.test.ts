/**
 * The org lock against what other parties can do (issue 29): a claim deleted under its
 * holder, a claim naming 2099, a killed run's claim, a runner whose clock is fast, a
 * lock-named context holding a secret, a redirect to the claim's POST, a token that cannot
 * create contexts. Runs the CLI in-process against the emulator; waits use a short lease
 * (`WAYBILL_TEST_LOCK_LEASE_MS`), never a wall-clock range.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SeedContext } from "../../emulator/src/families/contexts.js";
import type { Seed } from "../../emulator/src/seed.js";
import { createApiClient } from "../../src/api/client.js";
import { createSystemClock } from "../../src/api/clock.js";
import type { Clock } from "../../src/api/types.js";
import { Secret } from "../../src/core/secret.js";
import { claimName, parseClaimName } from "../../src/lock/claim.js";
import { acquireOrgLock, lockTiming } from "../../src/lock/org-lock.js";
import { expectNoSecrets, makeTempDir, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from "../helpers/emulator.js";
import { runInProcess } from "../helpers/in-process.js";
import { createScaledClock } from "../helpers/scaled-clock.js";
import { duplicates } from "./apply-fixture.js";

const ORG_ID = "0a2a0000-0000-4000-8000-0000000000aa";
const API_ID = "0b2a0000-0000-4000-8000-0000000000aa";
const URL_ = "https://hooks.example.com/services/T2A";
const SECRET = "claim-held-secret-value-Z9090";
const LEASE_MS = 4_000;
const OLD = "2025-01-01T00:00:00.000Z";
const RESTRICTED = "wb-test-token-no-contexts-5d2b48";

const claimed = (run: string, takenAt: number, expiresAt = takenAt + 60_000): string =>
  claimName({ run, takenAt, expiresAt, pid: 4242, host: "ci-runner-7", who: "github:acme/x#1" });

const seed = (contexts: readonly SeedContext[] = [], restricted = false): Seed => ({
  tokens: [
    { token: TEST_TOKEN },
    ...(restricted ? [{ token: RESTRICTED, write_contexts: false }] : []),
  ],
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      contexts: [{ name: "legacy" }, ...contexts],
      projects: [{ id: API_ID, slug: "api" }],
    },
  ],
});

const config = [
  "org: gh/acme",
  "projects:",
  "  gh/acme/api:",
  "    settings:",
  "      enable_auto_cancel_redundant_workflows: true",
  "    webhooks:",
  "      hook0:",
  `        url: ${URL_}`,
  "        events: [workflow-completed]",
  "",
].join("\n");

describe("the org lock against other parties", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let path: string;
  let contextsPath: string;
  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    path = await tmp.write("waybill.yaml", config);
    contextsPath = await tmp.write("contexts.yaml", "org: gh/acme\ncontexts:\n  legacy: {}\n");
  });
  afterAll(async () => {
    await emulator.close();
    await tmp.remove();
  });
  beforeEach(async () => {
    await emulator.reset(seed());
    await emulator.clearRequests();
  });

  const run = async (
    args: readonly string[],
    options: { clock?: Clock; token?: string; timeoutMs?: number } = {},
  ) => {
    const r = await runInProcess(
      args,
      {
        SERVICE_BASE_URL: emulator.url,
        SERVICE_TOKEN: options.token ?? emulator.token,
        WAYBILL_TEST_LOCK_LEASE_MS: String(LEASE_MS),
        NO_COLOR: "1",
      },
      {
        ...(options.clock ? { clock: options.clock } : {}),
        timeoutMs: options.timeoutMs ?? 30_000,
      },
    );
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [emulator.token, SECRET]);
    return r;
  };
  const contexts = async () => (await emulator.state()).orgs?.[0]?.contexts ?? [];
  const claims = async () => (await contexts()).filter((c) => parseClaimName(c.name) !== undefined);

  it("a claim deleted under its holder: the holder loses the lock at its next renewal, the new holder keeps it", async () => {
    const api = createApiClient({ baseUrl: emulator.url, token: new Secret(emulator.token, "t") });
    // Both holders share one clock, 4 times faster than real time: a renewal every 250 ms
    // of real time instead of every second, with the lease's relations unchanged.
    const clock = createScaledClock(4);
    const deps = (run: string) => ({
      api,
      clock,
      random: Math.random,
      holder: { run, pid: 1, host: "h", who: run },
      timing: { ...lockTiming(LEASE_MS), waitMs: 0 },
    });
    const org = { id: ORG_ID, slug: "gh/acme" };
    try {
      const a = await acquireOrgLock(deps("00000000000a"), org);
      const [held] = await claims();
      await emulator.call("DELETE", `/api/v3/contexts/${held?.id}`);
      const b = await acquireOrgLock(deps("00000000000b"), org);
      // Within one renewal interval (a quarter lease) and a margin: A sees its claim gone.
      for (let i = 0; i < 60 && !a.lost.aborted; i++) await new Promise((r) => setTimeout(r, 50));
      expect(a.lost.aborted).toBe(true);
      expect(String(a.lost.reason)).toMatch(/lost the lock of org gh\/acme: its claim .* is gone/);
      // Half a lease on the holders' clock: B has renewed twice and still holds the lock.
      await clock.sleep(LEASE_MS / 2);
      expect(b.lost.aborted, String(b.lost.reason)).toBe(false);
      await a.release();
      // Only B's claims are left: one, or two for the instant of a renewal (B writes its new
      // claim before it deletes the old one), so the runs are compared as a set.
      const runs = new Set((await claims()).map((c) => parseClaimName(c.name)?.run));
      expect([...runs]).toEqual(["00000000000b"]);
      await b.release();
      expect(await claims()).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it("a claim whose name says 2099 lapses like any other; a name claiming a lifetime to 2099 is not honoured", async () => {
    const far = Date.UTC(2099, 0, 1);
    await emulator.reset(
      seed([
        { name: claimed("099999999999", far), created_at: OLD },
        { name: claimed("088888888888", Date.now(), far), created_at: new Date().toISOString() },
      ]),
    );
    const r = await run(["apply", "-c", path, "--auto-approve", "--lock-timeout", "0"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Note: removed a lapsed lock of org gh/acme: run 099999999999");
    expect(r.stderr).toMatch(
      /Warning: org gh\/acme has a context named waybill-lock--088888888888.*not honoured/,
    );
    // The look-alike is a context like any other: not deleted by the lock, shown by drift.
    expect((await contexts()).some((c) => c.name.startsWith("waybill-lock--088888888888"))).toBe(
      true,
    );
    const drift = await run(["drift", "-c", path, "--format", "json"]);
    expect(drift.stdout).toContain("waybill-lock--088888888888");
  });

  it("a killed run's claim: the next apply with default flags waits for it to lapse, says who holds it and until when, then applies", async () => {
    // Killed half a lease ago: the claim has 2 s to live when the apply starts, far more
    // than the plan before the lock takes, so the apply meets it live and must wait.
    const killedAt = Date.now() - LEASE_MS / 2;
    await emulator.reset(
      seed([
        {
          name: claimed("0badc0ffee00", killedAt),
          created_at: new Date(killedAt).toISOString(),
        },
      ]),
    );
    const r = await run(["apply", "-c", path, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Waiting for the lock of org gh\/acme: held by run 0badc0ffee00 \(pid 4242 on ci-runner-7, github:acme_x#1\), written \S+Z, lapses \S+Z unless renewed/,
    );
    expect(r.stderr).toContain("Note: removed a lapsed lock of org gh/acme: run 0badc0ffee00");
    expect(await claims()).toEqual([]);
    expect(duplicates(await emulator.state())).toEqual([]);
  });

  it("a runner whose clock is 200 s fast does not find a live claim lapsed", async () => {
    const now = Date.now();
    const name = claimed("0c0c0c0c0c0c", now);
    await emulator.reset(seed([{ name, created_at: new Date(now).toISOString() }]));
    const system = createSystemClock();
    const fast: Clock = { now: () => system.now() + 200_000, sleep: system.sleep };
    const r = await run(["apply", "-c", path, "--auto-approve", "--lock-timeout", "0"], {
      clock: fast,
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("org gh/acme is locked by another Waybill run: run 0c0c0c0c0c0c");
    expect((await claims()).map((c) => c.name)).toEqual([name]);
    const state = await emulator.state();
    expect(state.orgs?.[0]?.projects?.[0]?.webhooks ?? []).toEqual([]);
  });

  it("a lock-named context that holds an env var or a restriction is not a claim: never deleted, shown by drift and plan", async () => {
    const lapsed = Date.now() - 3_600_000;
    const withEnv = claimed("0e0e0e0e0e0e", lapsed);
    const withRule = claimed("0f0f0f0f0f0f", lapsed);
    await emulator.reset(
      seed([
        { name: withEnv, created_at: OLD, env: { TOKEN: SECRET } },
        {
          name: withRule,
          created_at: OLD,
          restrictions: [
            { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
          ],
        },
      ]),
    );
    const r = await run(["apply", "-c", path, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    const left = await contexts();
    expect(left.find((c) => c.name === withEnv)?.env).toEqual({ TOKEN: SECRET });
    expect(left.some((c) => c.name === withRule)).toBe(true);
    const drift = await run(["drift", "-c", path, "--format", "json"]);
    expect(drift.stdout).toContain("waybill-lock--0e0e0e0e0e0e");
    expect(drift.stdout).toContain("waybill-lock--0f0f0f0f0f0f");
    // An authoritative `contexts:` plans their delete, in the open (never silently).
    const plan = await run(["plan", "-c", contextsPath, "--format", "json"]);
    expect(plan.stdout).toContain("waybill-lock--0e0e0e0e0e0e");
  });

  it("a redirect answered to the claim's POST fails apply clearly, without hanging", async () => {
    await emulator.script([
      {
        method: "POST",
        path: "/api/v3/contexts",
        // Every claim POST: a client that retried it would loop (the old lock hung so).
        times: 20,
        status: 307,
        headers: { location: "https://elsewhere.example.com/api/v3/contexts" },
        body: "",
      },
    ]);
    const r = await run(["apply", "-c", path, "--auto-approve"], { timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/cannot take the lock of org gh\/acme: .*307.*redirect/);
    expect((await emulator.requests()).filter((x) => x.method !== "GET").length).toBe(1);
  });

  describe("a token that cannot create contexts", () => {
    beforeEach(async () => {
      await emulator.reset(seed([], true));
      await emulator.clearRequests();
    });

    it("--lock auto (the default) applies without the lock, with a warning that names the risk and the CI concurrency setting", async () => {
      const r = await run(["apply", "-c", path, "--auto-approve"], { token: RESTRICTED });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /Warning: this token cannot create contexts in org gh\/acme \(403\).*Applying WITHOUT the org lock: another apply .* could duplicate .*concurrency/,
      );
      expect(r.stderr).not.toContain("--no-lock");
      const hooks = (await emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
      expect(hooks.map((w) => w.name)).toEqual(["hook0"]);
    });

    it("--lock required refuses with zero writes but the refused claim, and suggests nothing that cannot help", async () => {
      const r = await run(["apply", "-c", path, "--auto-approve", "--lock", "required"], {
        token: RESTRICTED,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/--lock required refuses to apply without it\. Nothing was changed/);
      expect(r.stderr).not.toContain("--no-lock");
      const writes = (await emulator.requests()).filter((x) => x.method !== "GET");
      expect(writes.map((x) => `${x.method} ${x.path} ${x.status}`)).toEqual([
        "POST /api/v3/contexts 403",
      ]);
    });
  });
});
