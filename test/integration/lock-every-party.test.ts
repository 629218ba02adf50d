/**
 * The org lock against every party (issue 42): a holder whose claim is deleted stops
 * starting writes at its next write batch (not at its next renewal) and exits 5, so two
 * writers never overlap by more than one request per slot; a token that cannot write a
 * claim still waits for a live one; a claim whose created_at lies in the future lapses one
 * lease after it was first seen; an attempt leaves none of its claims behind, whether its
 * listing was cut or never showed the claim; force-unlock honours the allowed orgs.
 * Runs the CLI in-process against the emulator, with a short test lease; never a wall-clock
 * range assertion.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { SeedContext } from "../../emulator/src/families/contexts.js";
import type { Seed } from "../../emulator/src/seed.js";
import { createApiClient } from "../../src/api/client.js";
import { createSystemClock } from "../../src/api/clock.js";
import { Secret } from "../../src/core/secret.js";
import { claimName, isLockContextName } from "../../src/lock/claim.js";
import { acquireOrgLock, lockTiming } from "../../src/lock/org-lock.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
import { duplicates } from "./apply-fixture.js";

const ORG_ID = "0a420000-0000-4000-8000-0000000000bb";
const OTHER_ID = "0a420000-0000-4000-8000-0000000000cc";
const API_ID = "0b420000-0000-4000-8000-0000000000bb";
const LEASE_MS = 4_000;
const HOOKS = 24;
const RESTRICTED = "wb-test-token-no-contexts-42a1b2";

const claimed = (run: string, at: number): string =>
  claimName({ run, takenAt: at, expiresAt: at + 60_000, pid: 9, host: "ci-9", who: "other" });

const seed = (
  contexts: readonly SeedContext[] = [],
  otherContexts: readonly SeedContext[] = [],
): Seed => ({
  tokens: [{ token: TEST_TOKEN }, { token: RESTRICTED, write_contexts: false }],
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      contexts,
      projects: [{ id: API_ID, slug: "api" }],
    },
    { id: OTHER_ID, slug: "gh/other", name: "other", contexts: otherContexts },
  ],
});

const config = (hooks: number): string =>
  [
    "org: gh/acme",
    "projects:",
    "  gh/acme/api:",
    "    webhooks:",
    ...Array.from({ length: hooks }, (_, i) => [
      `      hook${i}:`,
      `        url: https://hooks.example.com/services/T42/${i}`,
      "        events: [workflow-completed]",
    ]).flat(),
    "",
  ].join("\n");

describe("the org lock against every party", () => {
  const suite = useEmulatorSuite(seed, {
    many: { name: "many.yaml", content: config(HOOKS) },
    one: { name: "one.yaml", content: config(1) },
  });
  beforeEach(async () => {
    await suite.emulator.setFaults({});
  });

  const run = (args: readonly string[], env: Record<string, string> = {}) =>
    runInProcess(
      args,
      {
        SERVICE_BASE_URL: suite.emulator.url,
        SERVICE_TOKEN: suite.emulator.token,
        WAYBILL_TEST_LOCK_LEASE_MS: String(LEASE_MS),
        NO_COLOR: "1",
        ...env,
      },
      { timeoutMs: 60_000 },
    );
  const claims = async (org = 0) =>
    ((await suite.emulator.state()).orgs?.[org]?.contexts ?? []).filter((c) =>
      isLockContextName(c.name),
    );
  const hooks = async () => (await suite.emulator.state()).orgs?.[0]?.projects?.[0]?.webhooks ?? [];
  const writes = async () => (await suite.emulator.requests()).filter((x) => x.method !== "GET");

  it("a holder whose claim is deleted stops at its next write batch and exits 5; after another run holds the lock, it starts at most one write per slot", async () => {
    // Slow enough answers that the apply is still writing when its claim goes.
    await suite.emulator.setFaults({ seed: 42, latency_ms: 20, jitter_ms: 20 });
    const holder = run(["apply", "-c", suite.files.many, "--auto-approve", "--parallelism", "2"], {
      // The default lease: a renewal only every 15 s, far after this apply's end, so only
      // the check before each write batch can notice.
      WAYBILL_TEST_LOCK_LEASE_MS: "",
    });
    let claimId: string | undefined;
    for (let i = 0; i < 400 && claimId === undefined; i++) {
      claimId = (await claims())[0]?.id;
      if (claimId === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    expect(claimId).toBeDefined();
    // Another party deletes the claim right after the holder's third webhook is created
    // (the first two entries only delay: they are answered as usual).
    await suite.emulator.script([
      { method: "POST", path: "/api/v3/webhooks", times: 2, delay_ms: 1 },
      {
        method: "POST",
        path: "/api/v3/webhooks",
        after: [{ method: "DELETE", path: `/api/v3/contexts/${claimId}` }],
      },
    ]);
    for (let i = 0; i < 2000 && (await claims()).some((c) => c.id === claimId); i++)
      await new Promise((r) => setTimeout(r, 5));
    // A second run takes the lock at once.
    const api = createApiClient({
      baseUrl: suite.emulator.url,
      token: new Secret(suite.emulator.token, "t"),
    });
    try {
      const second = await acquireOrgLock(
        {
          api,
          clock: createSystemClock(),
          random: Math.random,
          holder: { run: "0000000000b2", pid: 2, host: "h", who: "second" },
          timing: { ...lockTiming(60_000), waitMs: 0 },
        },
        { id: ORG_ID, slug: "gh/acme" },
      );
      const held = Math.max(...(await suite.emulator.requests()).map((x) => x.seq));
      const r = await holder;
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(
        /lost the lock of org gh\/acme: its claim waybill-lock--\S+ is gone/,
      );
      const after = (await suite.emulator.requests()).filter(
        (x) => x.seq > held && x.method === "POST" && x.path === "/api/v3/webhooks",
      );
      // One request per slot at most (--parallelism 2); before the check it wrote on.
      expect(after.length).toBeLessThanOrEqual(2);
      expect((await hooks()).length).toBeLessThan(HOOKS);
      await second.release();
    } finally {
      await api.close();
    }
    await suite.emulator.setFaults({});
    expect(await claims()).toEqual([]);
    // A re-run converges with no duplicate.
    const again = await run(["apply", "-c", suite.files.many, "--auto-approve"]);
    expect(again.code, again.stderr).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    expect((await hooks()).length).toBe(HOOKS);
  });

  it("a claim whose created_at lies a day or ten years ahead lapses one lease after it was first seen", async () => {
    const now = Date.now();
    await suite.emulator.reset(
      seed([
        {
          name: claimed("0d0d0d0d0d0d", now),
          created_at: new Date(now + 86_400_000).toISOString(),
        },
        {
          name: claimed("0e0e0e0e0e0e", now),
          created_at: new Date(now + 10 * 365 * 86_400_000).toISOString(),
        },
      ]),
    );
    // The default wait is two leases: long enough for a claim first seen now, never for
    // one honoured until its written time.
    const r = await run(["apply", "-c", suite.files.one, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Waiting for the lock of org gh/acme");
    expect(r.stderr).toContain("Note: removed a lapsed lock of org gh/acme: run 0d0d0d0d0d0d");
    expect(r.stderr).toContain("Note: removed a lapsed lock of org gh/acme: run 0e0e0e0e0e0e");
    expect(await claims()).toEqual([]);
    expect((await hooks()).map((w) => w.name)).toEqual(["hook0"]);
  });

  describe("a token that cannot write a claim (--lock auto)", () => {
    const live = () => [
      { name: claimed("0f0f0f0f0f0f", Date.now()), created_at: new Date().toISOString() },
    ];

    it("refuses at another run's live claim with --lock-timeout 0: exit 5, no write but the refused claim", async () => {
      await suite.emulator.reset(seed(live()));
      await suite.emulator.clearRequests();
      const r = await run(
        ["apply", "-c", suite.files.one, "--auto-approve", "--lock-timeout", "0"],
        {
          SERVICE_TOKEN: RESTRICTED,
        },
      );
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain("org gh/acme is locked by another Waybill run: run 0f0f0f0f0f0f");
      expect((await writes()).map((x) => `${x.method} ${x.path} ${x.status}`)).toEqual([
        "POST /api/v3/contexts 403",
      ]);
      expect(await hooks()).toEqual([]);
    });

    it("waits while the claim is there and applies, with the warning, once it is gone", async () => {
      await suite.emulator.reset(seed(live()));
      const [held] = await claims();
      // The holder releases its claim 600 ms after the restricted run's first look.
      await suite.emulator.script([
        {
          method: "GET",
          path: "/api/v3/contexts",
          after: [{ method: "DELETE", path: `/api/v3/contexts/${held?.id}`, delay_ms: 600 }],
        },
      ]);
      const r = await run(["apply", "-c", suite.files.one, "--auto-approve"], {
        SERVICE_TOKEN: RESTRICTED,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /Waiting for the lock of org gh\/acme \(this token cannot write a claim/,
      );
      expect(r.stderr).toContain("Applying WITHOUT the org lock");
      expect((await hooks()).map((w) => w.name)).toEqual(["hook0"]);
    });
  });

  describe("nothing left behind", () => {
    it("the listing after the claim's create is cut off: apply fails and deletes its claim", async () => {
      // Every claims listing answers half its JSON (the config reads no contexts, so these
      // are the lock's listings only), more often than the client retries.
      await suite.emulator.script([
        { method: "GET", path: "/api/v3/contexts", cut: true, times: 40 },
      ]);
      const r = await run(["apply", "-c", suite.files.one, "--auto-approve"]);
      expect(r.code, r.stderr).toBe(1);
      await suite.emulator.script([]);
      expect(await claims()).toEqual([]);
      expect(await hooks()).toEqual([]);
      expect((await writes()).filter((x) => x.method === "POST").length).toBe(1);
    });

    it("the listing never shows the claim: apply fails and deletes every claim it wrote", async () => {
      await suite.emulator.script([
        { method: "GET", path: "/api/v3/contexts", hide: "waybill-lock--", times: 40 },
      ]);
      const r = await run(["apply", "-c", suite.files.one, "--auto-approve"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /cannot take the lock of org gh\/acme: the claim written 3 times was never listed/,
      );
      expect(await claims()).toEqual([]);
      expect(await hooks()).toEqual([]);
    });
  });

  describe("force-unlock and the allowed orgs", () => {
    beforeEach(async () => {
      await suite.emulator.reset(
        seed(
          [],
          [{ name: claimed("0a0b0c0d0e0f", Date.now()), created_at: new Date().toISOString() }],
        ),
      );
      await suite.emulator.clearRequests();
    });

    it("--allowed-orgs refuses an --org outside it before any request", async () => {
      const r = await run([
        "force-unlock",
        "--all",
        "--org",
        "gh/other",
        "--allowed-orgs",
        "gh/acme",
      ]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('"gh/other" is not among the allowed orgs (gh/acme');
      expect(await suite.emulator.requests()).toEqual([]);
      expect(await claims(1)).toHaveLength(1);
    });

    it("WAYBILL_ALLOWED_ORGS does the same, for listing and for breaking", async () => {
      for (const args of [
        ["--org", "gh/other"],
        ["--all", "--org", "gh/other"],
      ]) {
        const r = await run(["force-unlock", ...args], { WAYBILL_ALLOWED_ORGS: "gh/acme" });
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain("WAYBILL_ALLOWED_ORGS");
      }
      expect(await suite.emulator.requests()).toEqual([]);
      expect(await claims(1)).toHaveLength(1);
      const allowed = await run(["force-unlock", "--all", "--org", "gh/other"], {
        WAYBILL_ALLOWED_ORGS: "gh/acme,gh/other",
      });
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(await claims(1)).toEqual([]);
    });
  });
});
