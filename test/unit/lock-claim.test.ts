/** The org lock's claims (src/lock/claim.ts), issue 15: pure rules. */
import { describe, expect, it } from "vitest";
import { parseDuration, whoIsRunning } from "../../src/cli/lock-options.js";
import {
  type Claim,
  claimName,
  goesFirst,
  isEmptyContent,
  isLockContextName,
  type ListedClaim,
  othersLive,
  parseClaimName,
} from "../../src/lock/claim.js";

const T0 = Date.UTC(2026, 10, 23, 18, 0, 0);
const claim = (over: Partial<Claim> = {}): Claim => ({
  run: "3f2a9c1e5d2b",
  takenAt: T0,
  expiresAt: T0 + 120_000,
  pid: 812,
  host: "ci-runner-7",
  who: "github:acme_infra#1234",
  ...over,
});
const listed = (c: Claim, id = "ctx", createdAt = c.takenAt): ListedClaim => ({
  ...c,
  contextId: id,
  name: claimName(c),
  createdAt,
});
const LEASE = 60_000;

describe("lock claims", () => {
  it("round-trip through a context name", () => {
    const c = claim();
    expect(claimName(c)).toBe(
      "waybill-lock--3f2a9c1e5d2b--20261123T180000Z--20261123T180200Z--812@ci-runner-7--github:acme_infra#1234",
    );
    expect(parseClaimName(claimName(c))).toEqual(c);
  });

  it("keep free text to safe characters and a bounded length", () => {
    const name = claimName(claim({ host: "host with spaces/and slashes", who: "x".repeat(200) }));
    expect(name).toMatch(/--812@host_with_spaces_and_slashes--x{48}$/);
    expect(isLockContextName(name)).toBe(true);
  });

  it("only names of the exact shape are claims (a look-alike context is the config's)", () => {
    expect(isLockContextName("waybill-lock")).toBe(false);
    expect(isLockContextName("waybill-lock--mine")).toBe(false);
    expect(isLockContextName(`${claimName(claim())} `)).toBe(false);
    expect(isLockContextName(claimName(claim()).replace("3f2a9c1e5d2b", "3F2A9C1E5D2B"))).toBe(
      false,
    );
    expect(
      isLockContextName(claimName(claim()).replace("20261123T180000Z", "20261399T180000Z")),
    ).toBe(false);
    expect(isLockContextName("deploy-prod")).toBe(false);
  });

  it("hold only when no other run's live claim is listed, judged by the service's created_at", () => {
    const mine = listed(claim(), "a");
    const other = listed(claim({ run: "000000000001" }), "b");
    const lapsed = listed(claim({ run: "000000000002" }), "c", T0 - LEASE);
    expect(othersLive([mine], mine.run, T0 + 1, LEASE)).toEqual([]);
    expect(othersLive([mine, other], mine.run, T0 + 1, LEASE)).toEqual([other]);
    expect(othersLive([mine, lapsed], mine.run, T0, LEASE)).toEqual([]);
    // The name's expiry is the writer's word: a claim naming 2099 lapses one lease after the
    // service wrote it, and one whose name says it lapsed is live while it is young.
    const far = listed(claim({ run: "000000000003", expiresAt: Date.UTC(2099, 0, 1) }), "d");
    expect(othersLive([mine, far], mine.run, T0 + LEASE, LEASE)).toEqual([]);
    const named = listed(claim({ run: "000000000004", expiresAt: T0 - 1000 }), "e", T0);
    expect(othersLive([mine, named], mine.run, T0 + 1000, LEASE)).toEqual([named]);
  });

  it("a name whose lifetime is longer than any Waybill claim is not a claim", () => {
    expect(isLockContextName(claimName(claim({ expiresAt: T0 + 120_000 })))).toBe(true);
    expect(isLockContextName(claimName(claim({ expiresAt: T0 + 121_000 })))).toBe(false);
    expect(isLockContextName(claimName(claim({ expiresAt: Date.UTC(2099, 0, 1) })))).toBe(false);
    expect(isLockContextName(claimName(claim({ expiresAt: T0 })))).toBe(false);
  });

  it("only an empty context is a claim (the service's all-members restriction aside)", () => {
    const org = "0a150000-0000-4000-8000-0000000000aa";
    expect(isEmptyContent(0, [], org)).toBe(true);
    expect(isEmptyContent(0, [{ restriction_type: "group", match_pattern: org }], org)).toBe(true);
    expect(isEmptyContent(1, [], org)).toBe(false);
    expect(isEmptyContent(0, [{ restriction_type: "expression", match_pattern: "x" }], org)).toBe(
      false,
    );
    expect(isEmptyContent(0, [{ restriction_type: "group", match_pattern: "g" }], org)).toBe(false);
  });

  it("the claim the service wrote first (then the smaller run id) tries again sooner", () => {
    const a = listed(claim({ run: "00000000000a" }));
    const b = listed(claim({ run: "00000000000b" }));
    expect(goesFirst(a, [b])).toBe(true);
    expect(goesFirst(b, [a])).toBe(false);
    expect(goesFirst(listed(claim({ run: "ffffffffffff" }), "x", T0 - 1000), [a])).toBe(true);
  });
});

describe("lock options", () => {
  it("parse --lock-timeout durations", () => {
    expect(parseDuration("0", "--lock-timeout")).toBe(0);
    expect(parseDuration("0s", "--lock-timeout")).toBe(0);
    expect(parseDuration("30s", "--lock-timeout")).toBe(30_000);
    expect(parseDuration("10m", "--lock-timeout")).toBe(600_000);
    expect(parseDuration("1.5h", "--lock-timeout")).toBe(5_400_000);
    expect(parseDuration("250ms", "--lock-timeout")).toBe(250);
    expect(() => parseDuration("soon", "--lock-timeout")).toThrow(
      "--lock-timeout must be a duration such as 30s, 5m or 0 (got soon)",
    );
  });

  it("name the CI job holding a lock, else the user", () => {
    expect(
      whoIsRunning({ GITHUB_ACTIONS: "true", GITHUB_REPOSITORY: "acme/infra", GITHUB_RUN_ID: "9" }),
    ).toBe("github:acme/infra#9");
    expect(whoIsRunning({ GITLAB_CI: "true", CI_PROJECT_PATH: "acme/infra", CI_JOB_ID: "7" })).toBe(
      "gitlab:acme/infra#7",
    );
    expect(whoIsRunning({ USER: "ada" })).toBe("user:ada");
  });
});
