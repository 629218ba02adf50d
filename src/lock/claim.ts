/**
 * The org lock's claims, pure (issue 15 "Protection against concurrent runs"). The service
 * has no lock API, so a claim is a context of the org whose *name* carries the claim: the
 * run id, when it was taken, when it expires, and who holds it. Names, not env var values:
 * spec: api-v3.md "Context environment variable": values are never returned (only the last
 * four characters), while a context's name is returned by every read.
 *
 * Why a context, and why names unique per run: nothing in spec: api-v3.md Contexts makes
 * names unique, and "POST is replayable only where its own description says so", so no
 * create is a compare-and-set. The protocol (src/lock/org-lock.ts) therefore only needs
 * writes that land and reads that see them: every contender writes its own claim, then
 * reads all claims, and holds the lock only when it sees no other live claim. Two
 * contenders cannot both see none (each wrote before it read), so at most one holds it.
 *
 * Decision: the name is `waybill-lock--<run>--<taken>--<expires>--<pid>@<host>--<who>`, with
 * times as `YYYYMMDDTHHMMSSZ` (UTC) and only `[A-Za-z0-9._:@#+-]` in the free parts, so it
 * survives any naming rule a service is likely to have.
 */

export const LOCK_NAME_PREFIX = "waybill-lock--";

/** One claim on an org's lock, as its context name carries it. */
export interface Claim {
  /** The run that holds it: 12 lowercase hex characters. */
  readonly run: string;
  /** When the run took it (ms since the epoch, whole seconds). */
  readonly takenAt: number;
  /** When it lapses unless renewed (ms since the epoch, whole seconds). */
  readonly expiresAt: number;
  readonly pid: number;
  readonly host: string;
  /** A person or CI job, as far as the environment tells. */
  readonly who: string;
}

/**
 * A claim as listed: the context that carries it, and when the service wrote it. Issue 29:
 * the claim's age comes from the service's clock (`createdAt`), never from the name, so a
 * runner whose clock is fast cannot find a live claim lapsed, and a name that claims 2099
 * lapses like any other.
 */
export interface ListedClaim extends Claim {
  readonly contextId: string;
  readonly name: string;
  /** `created_at` of the context, as the service answered it (ms since the epoch). */
  readonly createdAt: number;
}

/**
 * Decision (design.md §4 "The org lock": the lease is at most 60 s): a claim lives one lease
 * from the moment the service wrote it, and the holder renews it well inside that.
 */
export const MAX_LEASE_MS = 60_000;

/**
 * Decision: a name may say the claim lives at most this long (`expires - taken`): 120 s, the
 * lease of the previous version (issue 15), so a run of that version is still honoured while
 * an org upgrades. A name that says longer is not a claim of any Waybill: it is reported,
 * not honoured (and, not being a claim, it is a context like any other for plan and drift).
 */
export const MAX_NAMED_LIFETIME_MS = 120_000;

const FREE_TEXT_MAX = 48;

/** Keep a free part of the name to safe characters and a bounded length. */
export const safePart = (text: string): string =>
  text.replace(/[^A-Za-z0-9._:@#+-]/g, "_").slice(0, FREE_TEXT_MAX) || "unknown";

/**
 * A claim's times are whole seconds, as its name holds them: a claim compared with its own
 * listed copy must be equal to it. (A renewal with millisecond times never found its new
 * claim in the listing, since the listed copy was up to a second earlier, so every apply
 * longer than about 90 s lost its lock; and two racers compared a millisecond time with a
 * listed whole second, each finding the other first.)
 */
export const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** The claim a holder writes at `now` (whole seconds), lasting one lease. */
export const claimAt = (
  holder: Omit<Claim, "takenAt" | "expiresAt">,
  now: number,
  leaseMs: number,
): Claim => ({
  ...holder,
  takenAt: wholeSecond(now),
  expiresAt: wholeSecond(now) + leaseMs,
});

const compactTime = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:]/g, "").replace(".000", "");

const parseCompactTime = (text: string): number | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  // Date.UTC rolls month 13 into the next year: only a time that formats back is one.
  return Number.isNaN(ms) || compactTime(ms) !== text ? undefined : ms;
};

export const claimName = (c: Claim): string =>
  `${LOCK_NAME_PREFIX}${c.run}--${compactTime(c.takenAt)}--${compactTime(c.expiresAt)}--${c.pid}@${safePart(c.host)}--${safePart(c.who)}`;

const NAME_RE =
  /^waybill-lock--([0-9a-f]{12})--(\d{8}T\d{6}Z)--(\d{8}T\d{6}Z)--(\d+)@([A-Za-z0-9._:@#+-]+)--([A-Za-z0-9._:@#+-]+)$/;

/** The claim a context name carries, or undefined when the context is not a lock claim. */
export const parseClaimName = (name: string): Claim | undefined => {
  const m = NAME_RE.exec(name);
  if (!m) return undefined;
  const takenAt = parseCompactTime(m[2]!);
  const expiresAt = parseCompactTime(m[3]!);
  if (takenAt === undefined || expiresAt === undefined) return undefined;
  return { run: m[1]!, takenAt, expiresAt, pid: Number(m[4]), host: m[5]!, who: m[6]! };
};

/**
 * True for a context *name* in the exact format of a claim, lifetime included. Only a name:
 * a context is a claim when it also holds nothing (`holdsNothing`, src/lock/claim-content.ts).
 */
export const isLockContextName = (name: string): boolean => {
  const c = parseClaimName(name);
  return c !== undefined && namedLifetimeOk(c);
};

/** The name's lifetime is that of a Waybill claim (see MAX_NAMED_LIFETIME_MS). */
export const namedLifetimeOk = (c: Claim): boolean =>
  c.expiresAt > c.takenAt && c.expiresAt - c.takenAt <= MAX_NAMED_LIFETIME_MS;

/** A restriction as the service lists it (spec: api-v3.md Context restriction). */
export interface RestrictionShape {
  readonly restriction_type: string;
  readonly match_pattern: string;
}

/**
 * Decision (issue 29): a claim holds nothing: no env var and no restriction but the one the
 * service adds to every new context, "every member of the org" (spec: api-v3.md Context
 * restriction: a group restriction whose match_pattern is the org id). A lock-named context
 * holding anything else is someone's data: the lock never honours or deletes it.
 */
export const isEmptyContent = (
  envCount: number,
  restrictions: readonly RestrictionShape[],
  orgId: string,
): boolean =>
  envCount === 0 &&
  restrictions.every((r) => r.restriction_type === "group" && r.match_pattern === orgId);

/** Live at `serviceNow` (the service's clock): written less than one lease ago. */
export const isLive = (c: ListedClaim, serviceNow: number, leaseMs: number): boolean =>
  serviceNow - c.createdAt < leaseMs;

/**
 * After writing its own claim and reading them all: does `run` hold the lock? Only when no
 * other run's live claim is listed (see the file comment for why that is safe).
 */
export const othersLive = (
  claims: readonly ListedClaim[],
  run: string,
  serviceNow: number,
  leaseMs: number,
): ListedClaim[] => claims.filter((c) => c.run !== run && isLive(c, serviceNow, leaseMs));

/** `a` was written before `b` (the service's order; the run id breaks a tie). */
export const writtenBefore = (a: ListedClaim, b: { createdAt: number; run: string }): boolean =>
  a.createdAt !== b.createdAt ? a.createdAt < b.createdAt : a.run < b.run;

/**
 * Decision: when two runs claim at once, each sees the other and steps back; the one whose
 * claim the service wrote first (then the smaller run id) tries again sooner, so in practice
 * it wins the next round, and the other then finds the lock held. This order only decides
 * who waits less, never who holds the lock.
 */
export const goesFirst = (mine: ListedClaim, others: readonly ListedClaim[]): boolean =>
  others.every((o) => writtenBefore(mine, o));

/** "run 3f2a… (pid 812 on ci-runner-7, github:acme/infra#1234), taken 2026-…, expires …" */
export const describeClaim = (c: Claim): string =>
  `run ${c.run} (pid ${c.pid} on ${c.host}, ${c.who}), taken ${new Date(c.takenAt).toISOString()}, expires ${new Date(c.expiresAt).toISOString()}`;

/** As describeClaim, with the lapse the service's clock says (`written + lease`). */
export const describeListedClaim = (c: ListedClaim, leaseMs: number): string =>
  `run ${c.run} (pid ${c.pid} on ${c.host}, ${c.who}), written ${new Date(c.createdAt).toISOString()}, lapses ${new Date(c.createdAt + leaseMs).toISOString()} unless renewed`;
