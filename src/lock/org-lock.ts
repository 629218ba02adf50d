/**
 * The org lock (issue 15): an advisory lease held in the service itself, so that two applies
 * of one org never write at once. Claims are contexts (src/lock/claim.ts says why); this is
 * the I/O around them: take, renew, release, list, break.
 *
 * Taking it: list the claims; if another run's live claim is there, the lock is held (wait
 * up to `waitMs`, else fail naming the holder). Otherwise write our own claim, list again,
 * and hold the lock only when our claim is listed and no other live one is. When two runs
 * claim at once both see each other and step back; the one whose claim sorts first tries
 * again sooner (claim.ts `goesFirst`).
 *
 * Holding it: the claim lapses after `leaseMs` unless renewed; it is renewed every
 * `renewEveryMs` by writing a new claim, then deleting the old one (never unheld in
 * between). If renewal keeps failing until less than one renewal interval is left, `lost`
 * aborts: the run must stop starting work, as on Ctrl-C, since another run may take the
 * lock once the claim lapses. A run killed with SIGKILL leaves its claim behind until it
 * lapses, or until `waybill force-unlock` deletes it.
 */
import { setMaxListeners } from "node:events";
import { ApiError } from "../api/errors.js";
import type { Api, Clock, ReadOnlyApi } from "../api/types.js";
import { WaybillError } from "../core/errors.js";
import type { ContextAttributes } from "../core/wire.js";
import {
  type Claim,
  claimName,
  describeClaim,
  goesFirst,
  isExpired,
  type ListedClaim,
  LOCK_NAME_PREFIX,
  othersLive,
  parseClaimName,
  wholeSecond,
} from "./claim.js";

/** Another run holds the lock of an org. Exit 5: nothing was changed. */
export class OrgLockedError extends WaybillError {
  readonly code = "org_locked";
  readonly holders: readonly ListedClaim[];

  constructor(orgSlug: string, holders: readonly ListedClaim[], waitedMs: number) {
    const first = holders[0];
    super(
      `org ${orgSlug} is locked by another Waybill run: ${holders.map(describeClaim).join("; ")}. Nothing was changed${waitedMs > 0 ? ` (waited ${Math.round(waitedMs / 1000)} s)` : ""}. Wait for that run to finish, or pass --lock-timeout 5m to wait for it; if it is gone (killed), the lock lapses at its expiry, or break it now with \`waybill force-unlock ${first?.run ?? "RUN_ID"} --org ${orgSlug}\`.`,
    );
    this.holders = holders;
  }
}

/** The lock could not be taken, renewed or released for a reason other than another run. */
export class LockError extends WaybillError {
  readonly code = "lock_failed";
}

export interface Holder {
  readonly run: string;
  readonly pid: number;
  readonly host: string;
  readonly who: string;
}

export interface LockTiming {
  /** How long a claim lives unless renewed. */
  readonly leaseMs: number;
  /** How often the holder renews it. */
  readonly renewEveryMs: number;
  /** How long to wait for a held lock before failing (`--lock-timeout`; 0: do not wait). */
  readonly waitMs: number;
  /** How often to look again while waiting for a held lock. */
  readonly pollMs: number;
}

/**
 * Decision: a claim lives 2 minutes and is renewed every 30 s. A run killed without warning
 * blocks its org for at most 2 minutes (or until force-unlock); requests it had in flight
 * have long landed by then, so the next run's read sees them. Readers judge expiry by their
 * own clock: a holder's claim always has at least 90 s left, so clocks up to 90 s apart do
 * not let a second run in early.
 */
export const DEFAULT_LOCK_TIMING: LockTiming = {
  leaseMs: 120_000,
  renewEveryMs: 30_000,
  waitMs: 0,
  pollMs: 2_000,
};

/** Decision: after this many rounds of stepping back from a simultaneous claim, fail. */
const MAX_CONTENTION_ROUNDS = 6;

export interface LockDeps {
  readonly api: Api;
  readonly clock: Clock;
  /** In [0, 1): jitter for the waits after stepping back. */
  readonly random: () => number;
  readonly holder: Holder;
  readonly timing: LockTiming;
  /** Stop waiting (Ctrl-C, SIGTERM). */
  readonly signal?: AbortSignal;
  /** A line for stderr (e.g. an expired claim that was cleared). */
  readonly onNote?: (text: string) => void;
}

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

/**
 * The lock claims of an org. spec: api-v3.md Contexts: `filter[name]` is a case-insensitive
 * substring applied before paging, so the listing holds the claims (and any context whose
 * name merely contains the prefix, which the strict parse leaves out).
 */
export const listClaims = async (
  api: ReadOnlyApi,
  orgId: string,
  signal?: AbortSignal,
): Promise<ListedClaim[]> => {
  const listed = await api.listV3<ContextAttributes>(
    "/contexts",
    { "filter[org_id]": orgId, "filter[name]": LOCK_NAME_PREFIX },
    signal ? { signal } : {},
  );
  const claims: ListedClaim[] = [];
  for (const c of listed) {
    const claim = parseClaimName(c.attributes.name);
    if (claim && typeof c.id === "string")
      claims.push({ ...claim, contextId: c.id, name: c.attributes.name });
  }
  return claims;
};

/** True when an error says the request was surely not carried out (a 4xx answer). */
const definitelyRefused = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429;

const createClaim = async (api: Api, orgId: string, claim: Claim): Promise<void> => {
  // spec: api-v3.md Contexts: POST /contexts `{ data: { attributes: { name }, references:
  // { org: { id } } } }`.
  await api.post("v3", "/contexts", {
    data: { attributes: { name: claimName(claim) }, references: { org: { id: orgId } } },
  });
};

const deleteClaims = async (api: Api, claims: readonly ListedClaim[]): Promise<void> => {
  await Promise.all(
    claims.map(async (c) => {
      try {
        await api.delete("v3", `/contexts/${c.contextId}`);
      } catch (err) {
        // Already gone is what we wanted.
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }),
  );
};

/** A lock this run holds on one org. */
export interface HeldLock {
  readonly org: OrgRef;
  readonly run: string;
  /** Aborts when renewal failed for so long that the claim may lapse: stop starting work. */
  readonly lost: AbortSignal;
  /** Stop renewing and delete this run's claims. Safe to call twice. */
  release(): Promise<void>;
}

export const acquireOrgLock = async (deps: LockDeps, org: OrgRef): Promise<HeldLock> => {
  const { api, clock, holder, timing } = deps;
  const started = clock.now();
  const deadline = started + timing.waitMs;
  /** Claims of other runs seen at the last look, by context id: one seen twice is settled. */
  let seenBefore = new Set<string>();
  let rounds = 0;
  for (;;) {
    deps.signal?.throwIfAborted();
    const t0 = clock.now();
    const claims = await listClaims(api, org.id, deps.signal);
    const now = clock.now();
    // A settle wait covers another contender's whole round (list, claim, list, step back).
    const settleMs = Math.max(100, 4 * (now - t0));
    const held = othersLive(claims, holder.run, now);
    if (held.length > 0) {
      // A claim not seen before may be a contender that is about to step back: look again
      // once before calling the lock held.
      const settled = held.some((c) => seenBefore.has(c.contextId));
      seenBefore = new Set(held.map((c) => c.contextId));
      if (settled && now >= deadline) throw new OrgLockedError(org.slug, held, now - started);
      const soonest = Math.min(...held.map((c) => c.expiresAt));
      const wait = settled
        ? Math.max(0, Math.min(timing.pollMs, deadline - now, soonest - now))
        : settleMs;
      await clock.sleep(Math.max(wait, 1), deps.signal);
      continue;
    }
    const mine: Claim = {
      ...holder,
      takenAt: wholeSecond(now),
      expiresAt: wholeSecond(now + timing.leaseMs),
    };
    try {
      await createClaim(api, org.id, mine);
    } catch (err) {
      if (definitelyRefused(err)) {
        throw new LockError(
          `cannot take the lock of org ${org.slug}: ${err.message}. The lock is a context named ${LOCK_NAME_PREFIX}…; a token that cannot create contexts can run with --no-lock when nothing else applies to this org at the same time.`,
          { cause: err },
        );
      }
      // Outcome unknown: the listing below tells whether it landed; a second claim of the
      // same run, should both land, is harmless (release deletes every claim of the run).
    }
    // Not abortable: once a claim may exist, this round ends by holding or deleting it.
    const after = await listClaims(api, org.id);
    const afterNow = clock.now();
    const own = after.filter((c) => c.run === holder.run);
    const others = othersLive(after, holder.run, afterNow);
    if (own.length > 0 && others.length === 0) {
      await clearExpired(deps, org, after, afterNow);
      return startHolding(deps, org, own);
    }
    // Step back: delete our claim so the other run can hold the lock.
    await deleteClaims(api, own);
    rounds += 1;
    if (rounds >= MAX_CONTENTION_ROUNDS && others.length > 0) {
      throw new OrgLockedError(org.slug, others, afterNow - started);
    }
    const first = others.length === 0 || goesFirst(mine, others);
    const wait = first
      ? settleMs * (1 + deps.random())
      : settleMs * (4 + 4 * deps.random()) + 200 * rounds;
    await clock.sleep(wait, deps.signal);
  }
};

/**
 * Decision: once the lock is held, other runs' lapsed claims (left by killed runs) are
 * deleted, so the org's context list does not fill up with them; a failure here is only a
 * note.
 */
const clearExpired = async (
  deps: LockDeps,
  org: OrgRef,
  claims: readonly ListedClaim[],
  now: number,
): Promise<void> => {
  const lapsed = claims.filter((c) => c.run !== deps.holder.run && isExpired(c, now));
  if (lapsed.length === 0) return;
  try {
    await deleteClaims(deps.api, lapsed);
    for (const c of lapsed)
      deps.onNote?.(`Note: removed a lapsed lock of org ${org.slug}: ${describeClaim(c)}`);
  } catch {
    deps.onNote?.(`Note: could not remove ${lapsed.length} lapsed lock(s) of org ${org.slug}`);
  }
};

const startHolding = (deps: LockDeps, org: OrgRef, own: readonly ListedClaim[]): HeldLock => {
  const { api, clock, holder, timing } = deps;
  const stop = new AbortController();
  const lost = new AbortController();
  setMaxListeners(0, stop.signal, lost.signal);
  let expiresAt = Math.min(...own.map((c) => c.expiresAt));
  const renewing = (async () => {
    for (;;) {
      try {
        await clock.sleep(timing.renewEveryMs, stop.signal);
      } catch {
        return;
      }
      const now = clock.now();
      const next: Claim = {
        ...holder,
        takenAt: own[0]?.takenAt ?? wholeSecond(now),
        expiresAt: wholeSecond(now + timing.leaseMs),
      };
      try {
        await createClaim(api, org.id, next);
        const claims = await listClaims(api, org.id, stop.signal);
        const newest = claims.filter((c) => c.run === holder.run && c.expiresAt >= next.expiresAt);
        if (newest.length > 0) {
          expiresAt = next.expiresAt;
          await deleteClaims(
            api,
            claims.filter((c) => c.run === holder.run && c.expiresAt < next.expiresAt),
          );
        }
      } catch {
        // Tried again at the next interval; below, the run stops if the claim may lapse.
      }
      if (clock.now() >= expiresAt - timing.renewEveryMs && !lost.signal.aborted) {
        lost.abort(
          new LockError(
            `the lock of org ${org.slug} could not be renewed and lapses at ${new Date(expiresAt).toISOString()}: stopping so that no other run writes at the same time`,
          ),
        );
      }
    }
  })();
  let released: Promise<void> | undefined;
  return {
    org,
    run: holder.run,
    lost: lost.signal,
    release: () => {
      released ??= (async () => {
        stop.abort();
        await renewing;
        // Listed again: a renewal or an uncertain create may have added a claim since.
        const claims = await listClaims(api, org.id);
        await deleteClaims(
          api,
          claims.filter((c) => c.run === holder.run),
        );
      })();
      return released;
    },
  };
};

/**
 * `waybill force-unlock`: delete the claims of `run` (or of every run with `all`) on an org.
 * Resolves with the claims deleted.
 */
export const forceUnlock = async (
  api: Api,
  org: OrgRef,
  run: string | "all",
): Promise<ListedClaim[]> => {
  const claims = await listClaims(api, org.id);
  const chosen = claims.filter((c) => run === "all" || c.run === run);
  await deleteClaims(api, chosen);
  return chosen;
};
