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

/** A claim as listed: the context that carries it. */
export interface ListedClaim extends Claim {
  readonly contextId: string;
  readonly name: string;
}

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
 * True for a context that is a lock claim: it never appears in a plan, drift's unmanaged
 * list or an export, and an authoritative `contexts:` never deletes it.
 */
export const isLockContextName = (name: string): boolean => parseClaimName(name) !== undefined;

export const isExpired = (c: Claim, now: number): boolean => now >= c.expiresAt;

/**
 * After writing its own claim and reading them all: does `run` hold the lock? Only when no
 * other run's live claim is listed (see the file comment for why that is safe).
 */
export const othersLive = (
  claims: readonly ListedClaim[],
  run: string,
  now: number,
): ListedClaim[] => claims.filter((c) => c.run !== run && !isExpired(c, now));

/**
 * Decision: when two runs claim at once, each sees the other and steps back; the one whose
 * claim sorts first (taken earlier, then the smaller run id) tries again sooner, so in
 * practice it wins the next round, and the other then finds the lock held. This order only
 * decides who waits less, never who holds the lock, so a wrong clock cannot make two
 * holders.
 */
export const goesFirst = (mine: Claim, others: readonly Claim[]): boolean =>
  others.every((o) => (mine.takenAt !== o.takenAt ? mine.takenAt < o.takenAt : mine.run < o.run));

/** "run 3f2a… (pid 812 on ci-runner-7, github:acme/infra#1234), taken 2026-…, expires …" */
export const describeClaim = (c: Claim): string =>
  `run ${c.run} (pid ${c.pid} on ${c.host}, ${c.who}), taken ${new Date(c.takenAt).toISOString()}, expires ${new Date(c.expiresAt).toISOString()}`;
