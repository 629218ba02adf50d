/**
 * The org lock (issue 15, issue 29): an advisory lease held in the service itself, so that
 * two applies of one org never write at once. Claims are contexts (src/lock/claim.ts says
 * why); this is the I/O around them: take, renew, release, list, break.
 *
 * The service's clock, not the writer's word: a claim's age is the service's `created_at`
 * (src/lock/claim-content.ts), and the lease is this reader's constant. The service's "now"
 * is the `created_at` of a claim this run has just written, so a run judges ages only
 * after writing its own claim; while it waits, it estimates the service's time from that
 * write, and only ever decides to hold after writing again.
 *
 * Taking it: write our claim, list the claims, and hold the lock only when ours is listed
 * and no other run's live claim is. (Two contenders cannot both see none: each wrote before
 * it read.) Otherwise delete ours and wait (`waitMs`), printing who holds it and until when.
 *
 * Holding it: every `renewEveryMs` write a new claim, list the claims, and check that the
 * lock is still ours: our current claim is listed, and no other run's live claim was
 * written before the claim we took the lock with. Then delete the old claim. If the lock is
 * lost, or renewal keeps failing until less than one renewal interval of the lease is left,
 * `lost` aborts: the run starts nothing new, as on Ctrl-C.
 *
 * Only an empty context is a claim: a lock-named context holding env vars or restrictions is
 * neither honoured nor deleted; a claim is deleted by the id its create answered.
 */
import { setMaxListeners } from "node:events";
import { ApiError } from "../api/errors.js";
import type { Api, Clock, ReadOnlyApi } from "../api/types.js";
import { WaybillError } from "../core/errors.js";
import type { ContextAttributes } from "../core/wire.js";
import {
  type Claim,
  claimAt,
  claimName,
  describeClaim,
  describeListedClaim,
  goesFirst,
  isLive,
  type ListedClaim,
  LOCK_NAME_PREFIX,
  MAX_LEASE_MS,
  namedLifetimeOk,
  othersLive,
  parseClaimName,
  writtenBefore,
} from "./claim.js";
import { contextCreatedAt, holdsNothing } from "./claim-content.js";

/** Another run holds the lock of an org. Exit 5: nothing was changed. */
export class OrgLockedError extends WaybillError {
  readonly code = "org_locked";
  readonly holders: readonly ListedClaim[];

  constructor(orgSlug: string, holders: readonly ListedClaim[], waitedMs: number, leaseMs: number) {
    const first = holders[0];
    super(
      `org ${orgSlug} is locked by another Waybill run: ${holders.map((h) => describeListedClaim(h, leaseMs)).join("; ")}. Nothing was changed${waitedMs > 0 ? ` (waited ${Math.round(waitedMs / 1000)} s)` : ""}. That run is still renewing its claim, so it is alive: wait for it to finish (--lock-timeout 10m waits longer); if it is stuck, stop it, and its claim lapses ${Math.round(leaseMs / 1000)} s after its last renewal (or break it now with \`waybill force-unlock ${first?.run ?? "RUN_ID"} --org ${orgSlug}\`).`,
    );
    this.holders = holders;
  }
}

/** The lock could not be taken, renewed or released for a reason other than another run. */
export class LockError extends WaybillError {
  readonly code = "lock_failed";
}

/**
 * The service refused to write a claim (403): the token may not create contexts in the org.
 * `--lock auto` then applies without the lock, with a warning; `--lock required` fails.
 */
export class LockRefusedError extends WaybillError {
  readonly code = "lock_refused";
  readonly orgSlug: string;
  readonly refusal: ApiError;

  constructor(orgSlug: string, cause: ApiError, more = "") {
    super(
      `this token cannot create contexts in org ${orgSlug} (${cause.status}), so it cannot take the org lock (a context named ${LOCK_NAME_PREFIX}…)${more}`,
      { cause },
    );
    this.orgSlug = orgSlug;
    this.refusal = cause;
  }
}

export interface Holder {
  readonly run: string;
  readonly pid: number;
  readonly host: string;
  readonly who: string;
}

export interface LockTiming {
  /** How long a claim lives after the service wrote it (the reader's constant). */
  readonly leaseMs: number;
  /** How often the holder renews it. */
  readonly renewEveryMs: number;
  /** How long to wait for a held lock before failing (`--lock-timeout`; 0: do not wait). */
  readonly waitMs: number;
  /** How often to look again while waiting for a held lock. */
  readonly pollMs: number;
}

/**
 * Decision (design.md §4: the lease is at most 60 s): a claim lives 60 s and is renewed
 * every 15 s, so a renewal may fail twice before the holder stops. A run killed without
 * warning blocks its org for at most 60 s; requests it had in flight have long landed by
 * then, so the next run's read sees them. The default wait (`--lock-timeout`) is two
 * leases: longer than a killed run's claim lives, so the next apply waits for it instead of
 * failing.
 */
export const lockTiming = (leaseMs: number = MAX_LEASE_MS): LockTiming => ({
  leaseMs,
  renewEveryMs: Math.round(leaseMs / 4),
  waitMs: 2 * leaseMs,
  pollMs: Math.max(50, Math.round(leaseMs / 12)),
});

export const DEFAULT_LOCK_TIMING: LockTiming = lockTiming();

/** Decision: after this many rounds of stepping back from a simultaneous claim, fail. */
const MAX_CONTENTION_ROUNDS = 6;
/** Decision: a claim whose create gave no answer and that is not listed: try this often. */
const MAX_UNSEEN_CLAIMS = 3;

export interface LockDeps {
  readonly api: Api;
  readonly clock: Clock;
  /** In [0, 1): jitter for the waits after stepping back. */
  readonly random: () => number;
  readonly holder: Holder;
  readonly timing: LockTiming;
  /** Stop waiting (Ctrl-C, SIGTERM). */
  readonly signal?: AbortSignal;
  /** A line for stderr (a lapsed claim cleared, a waiting line, a look-alike context). */
  readonly onNote?: (text: string) => void;
}

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

/** A lock-named context that is not honoured as a claim, and why. */
export interface IgnoredClaim {
  readonly contextId: string;
  readonly name: string;
  readonly why: string;
}

/** What is known of a lock-named context: it never changes its `created_at`. */
interface Inspected {
  readonly createdAt: number | undefined;
  readonly empty: boolean;
}

/** Per lock: what earlier listings learned about each claim, by context id. */
export type ClaimCache = Map<string, Inspected>;

/**
 * The lock claims of an org, each with the service's `created_at`. spec: api-v3.md
 * Contexts: `filter[name]` is a case-insensitive substring applied before paging, so the
 * listing holds the claims (and any context whose name merely contains the prefix, which
 * the strict parse leaves out). A claim met for the first time costs two reads (its age,
 * its content); later listings reuse them.
 */
export const listClaims = async (
  api: ReadOnlyApi,
  org: OrgRef,
  cache: ClaimCache = new Map(),
  signal?: AbortSignal,
): Promise<{ claims: ListedClaim[]; ignored: IgnoredClaim[] }> => {
  const listed = await api.listV3<ContextAttributes>(
    "/contexts",
    { "filter[org_id]": org.id, "filter[name]": LOCK_NAME_PREFIX },
    signal ? { signal } : {},
  );
  const claims: ListedClaim[] = [];
  const ignored: IgnoredClaim[] = [];
  await Promise.all(
    listed.map(async (c) => {
      const name = c.attributes.name;
      const claim = parseClaimName(name);
      if (!claim || typeof c.id !== "string") return;
      const contextId = c.id;
      if (!namedLifetimeOk(claim)) {
        ignored.push({
          contextId,
          name,
          why: `its name says it lives until ${new Date(claim.expiresAt).toISOString()}, longer than any Waybill claim: not honoured as a lock`,
        });
        return;
      }
      let seen = cache.get(contextId);
      if (seen === undefined) {
        try {
          const [createdAt, empty] = await Promise.all([
            contextCreatedAt(api, contextId, signal),
            holdsNothing(api, org.id, contextId, signal),
          ]);
          seen = { createdAt, empty };
        } catch (err) {
          // Deleted between the listing and its reads: no longer a claim.
          if (err instanceof ApiError && err.status === 404) return;
          throw err;
        }
        cache.set(contextId, seen);
      }
      if (!seen.empty) {
        ignored.push({
          contextId,
          name,
          why: "it holds env vars or restrictions, so it is data, not a claim: never honoured or deleted by the lock (plan and drift show it)",
        });
        return;
      }
      if (seen.createdAt === undefined) {
        throw new LockError(
          `cannot tell when the service wrote the lock claim ${name} (GET /api/v2/context/${contextId} has no created_at), so its age cannot be judged`,
        );
      }
      claims.push({ ...claim, contextId, name, createdAt: seen.createdAt });
    }),
  );
  claims.sort((a, b) => (writtenBefore(a, b) ? -1 : 1));
  return { claims, ignored };
};

/**
 * Issue 42 "Time from the service only": a claim is live for one lease from
 * min(created_at, the service's now). A `created_at` later than the service's now (a
 * hostile or broken writer: a day, ten years ahead) counts as that now, the first time this
 * lock sees it, and keeps that time in `cache`, so the claim lapses one lease after it was
 * first seen instead of being honoured until its written time. `serviceNow` must be an
 * upper bound of the service's time when the listing was answered (a claim written during
 * the listing is not "in the future").
 */
export const settleFutureClaims = (
  claims: readonly ListedClaim[],
  cache: ClaimCache,
  serviceNow: number,
): ListedClaim[] =>
  claims
    .map((c) => {
      if (c.createdAt <= serviceNow) return c;
      const seen = cache.get(c.contextId);
      if (seen !== undefined) cache.set(c.contextId, { ...seen, createdAt: serviceNow });
      return { ...c, createdAt: serviceNow };
    })
    .sort((a, b) => (writtenBefore(a, b) ? -1 : 1));

/** True when an error says the request was surely not carried out (a 3xx or 4xx answer). */
const definitelyRefused = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status >= 300 && err.status < 500 && err.status !== 429;

/** Write a claim; resolves with the id the create answered (undefined if it had none). */
const createClaim = async (api: Api, orgId: string, claim: Claim): Promise<string | undefined> => {
  // spec: api-v3.md Contexts: POST /contexts `{ data: { attributes: { name }, references:
  // { org: { id } } } }`.
  const answer = await api.post<{ data?: { id?: unknown } } | undefined>("v3", "/contexts", {
    data: { attributes: { name: claimName(claim) }, references: { org: { id: orgId } } },
  });
  const id = answer?.data?.id;
  return typeof id === "string" ? id : undefined;
};

/**
 * Delete a claim by its id, and only while it holds nothing (a context someone filled in is
 * data, never the lock's to delete). Already gone is what we wanted.
 */
const deleteClaim = async (api: Api, orgId: string, contextId: string): Promise<void> => {
  try {
    if (!(await holdsNothing(api, orgId, contextId))) return;
    await api.delete("v3", `/contexts/${contextId}`);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
};

const deleteClaims = async (api: Api, orgId: string, ids: Iterable<string>): Promise<void> => {
  await Promise.all([...new Set(ids)].map((id) => deleteClaim(api, orgId, id)));
};

/** A lock this run holds on one org. */
export interface HeldLock {
  readonly org: OrgRef;
  readonly run: string;
  /** Aborts when the lock is lost or may lapse: stop starting work. */
  readonly lost: AbortSignal;
  /**
   * Issue 42: resolve when the lock is still ours, checked by a listing of the claims that
   * started no earlier than this call's moment or is in flight then (a caller that arrives
   * while one is in flight shares it: one listing per batch of writes, never one per write);
   * reject (and abort `lost`) when our claim is gone or an earlier live claim is listed.
   */
  confirm(): Promise<void>;
  /** Stop renewing and delete this run's claims. Safe to call twice. */
  release(): Promise<void>;
}

/** Report look-alike contexts once per lock. */
const noteIgnored = (
  deps: LockDeps,
  org: OrgRef,
  ignored: readonly IgnoredClaim[],
  told: Set<string>,
): void => {
  for (const i of ignored) {
    if (told.has(i.contextId)) continue;
    told.add(i.contextId);
    deps.onNote?.(`Warning: org ${org.slug} has a context named ${i.name}: ${i.why}.`);
  }
};

export const acquireOrgLock = async (deps: LockDeps, org: OrgRef): Promise<HeldLock> => {
  /** Every claim this attempt may have written, by id: deleted unless the lock is taken. */
  const mine = new Set<string>();
  try {
    return await takeOrgLock(deps, org, mine);
  } catch (err) {
    // Issue 42 "Leave nothing behind": whatever ended the attempt (another holder, a failed
    // or cut listing, Ctrl-C), every claim it wrote goes: by the ids the creates answered,
    // and by our run id in one more listing (a create whose answer was lost).
    await dropOwnClaims(deps.api, org, deps.holder.run, mine);
    throw err;
  }
};

/**
 * Delete this run's claims: `known` ids, plus those a listing shows under our run id. Never
 * throws (the caller is already failing; a claim left lapses within a lease).
 */
const dropOwnClaims = async (
  api: Api,
  org: OrgRef,
  run: string,
  known: Set<string>,
): Promise<void> => {
  try {
    const { claims } = await listClaims(api, org);
    for (const c of claims) if (c.run === run) known.add(c.contextId);
  } catch {
    // The listing failed: the ids the creates answered are still known.
  }
  await Promise.all(
    [...known].map(async (id) => {
      try {
        await deleteClaim(api, org.id, id);
        known.delete(id);
      } catch {
        // Lapses within a lease.
      }
    }),
  );
};

const takeOrgLock = async (deps: LockDeps, org: OrgRef, mine: Set<string>): Promise<HeldLock> => {
  const { api, clock, holder, timing } = deps;
  const started = clock.now();
  const deadline = started + timing.waitMs;
  const cache: ClaimCache = new Map();
  const told = new Set<string>();
  /** The service's time minus ours, learned from our last claim (undefined: none yet). */
  let offset: number | undefined;
  /** Claims of other runs seen at the last look, by context id: one seen twice is settled. */
  let seenBefore = new Set<string>();
  let lastProgress: { key: string; at: number } | undefined;
  let rounds = 0;
  let unseen = 0;
  /** Say who holds it and until when: when that changes, and every 15 s of waiting. */
  const progress = (held: readonly ListedClaim[], now: number): void => {
    const key = held.map((c) => c.contextId).join(",");
    if (lastProgress && lastProgress.key === key && now - lastProgress.at < 15_000) return;
    lastProgress = { key, at: now };
    deps.onNote?.(
      `Waiting for the lock of org ${org.slug}: held by ${held.map((c) => describeListedClaim(c, timing.leaseMs)).join("; ")} (waited ${Math.round((now - started) / 1000)} s of ${Math.round(timing.waitMs / 1000)} s)`,
    );
  };
  /** Wait while another run holds it; throws OrgLockedError once the wait is over. */
  const waitFor = async (held: readonly ListedClaim[], serviceNow: number): Promise<void> => {
    const now = clock.now();
    const settled = held.some((c) => seenBefore.has(c.contextId));
    seenBefore = new Set(held.map((c) => c.contextId));
    if (settled && now >= deadline) {
      throw new OrgLockedError(org.slug, held, now - started, timing.leaseMs);
    }
    if (settled) progress(held, now);
    // A claim not seen before may be a contender about to step back: look again soon.
    const lapse = Math.min(...held.map((c) => c.createdAt + timing.leaseMs)) - serviceNow;
    // At least 50 ms: the service time we estimate runs ahead by a request's latency, so
    // near a lapse the next write-and-check may still find the claim live.
    const wait = settled
      ? Math.min(timing.pollMs, Math.max(0, deadline - now), Math.max(0, lapse))
      : Math.min(timing.pollMs, 200);
    await clock.sleep(Math.max(wait, 50), deps.signal);
  };
  for (;;) {
    deps.signal?.throwIfAborted();
    if (offset !== undefined) {
      // Look before writing again: while another run's claim is live by the service time
      // we estimate, wait without writing.
      const listed = await listClaims(api, org, cache, deps.signal);
      noteIgnored(deps, org, listed.ignored, told);
      const serviceNow = clock.now() + offset;
      const claims = settleFutureClaims(listed.claims, cache, serviceNow);
      const held = othersLive(claims, holder.run, serviceNow, timing.leaseMs);
      if (held.length > 0) {
        await waitFor(held, serviceNow);
        continue;
      }
    }
    const now = clock.now();
    const claim = claimAt(holder, now, timing.leaseMs);
    let createdId: string | undefined;
    try {
      createdId = await createClaim(api, org.id, claim);
      if (createdId !== undefined) mine.add(createdId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) throw new LockRefusedError(org.slug, err);
      if (definitelyRefused(err)) {
        throw new LockError(
          `cannot take the lock of org ${org.slug}: ${err.message}${err.status < 400 ? " (a redirect: check --base-url / SERVICE_BASE_URL)" : ""}`,
          { cause: err },
        );
      }
      // Outcome unknown: the listing below tells whether it landed.
    }
    // Not abortable: once a claim may exist, this round ends by holding or deleting it (a
    // failure here deletes it too: acquireOrgLock).
    const listed = await listClaims(api, org, cache);
    noteIgnored(deps, org, listed.ignored, told);
    const own = listed.claims.filter((c) => c.run === holder.run);
    for (const c of own) mine.add(c.contextId);
    const found =
      own.find((c) => c.contextId === createdId) ??
      own.find((c) => c.name === claimName(claim) && createdId === undefined);
    if (found === undefined) {
      // Issue 42: a claim the listing does not show is still ours to delete, by the id its
      // create answered (a listing that hides claims left three behind).
      await deleteClaims(api, org.id, mine);
      mine.clear();
      unseen += 1;
      if (unseen >= MAX_UNSEEN_CLAIMS) {
        throw new LockError(
          `cannot take the lock of org ${org.slug}: the claim written ${unseen} times was never listed`,
        );
      }
      await clock.sleep(timing.pollMs, deps.signal);
      continue;
    }
    // Our claim was written just before this listing: its created_at is the service's now
    // (a lower bound, for judging ages: a claim looks younger, never older, than it is).
    const serviceNow = found.createdAt;
    offset = serviceNow - now;
    // An upper bound of the service's time when the listing was answered: only a claim
    // written after it is "in the future" (issue 42).
    const claims = settleFutureClaims(listed.claims, cache, serviceNow + (clock.now() - now));
    const current = claims.find((c) => c.contextId === found.contextId) ?? found;
    const others = othersLive(claims, holder.run, serviceNow, timing.leaseMs);
    if (others.length === 0) {
      await clearLapsed(deps, org, claims, serviceNow);
      // Any other claim of ours (an uncertain create of an earlier round) goes.
      const extra = [...mine].filter((id) => id !== current.contextId);
      await deleteClaims(api, org.id, extra);
      mine.clear();
      return startHolding(deps, org, current, now, cache, told);
    }
    // Step back: delete our claim so the other run can hold the lock.
    await deleteClaims(api, org.id, mine);
    mine.clear();
    rounds += 1;
    // Everyone else's claim newer than ours: contenders, who step back too.
    const contending = others.every((o) => writtenBefore(current, o));
    if (contending) {
      if (rounds >= MAX_CONTENTION_ROUNDS) {
        throw new OrgLockedError(org.slug, others, clock.now() - started, timing.leaseMs);
      }
      const settleMs = Math.max(100, 4 * (clock.now() - now));
      const wait = goesFirst(current, others)
        ? settleMs * (1 + deps.random())
        : settleMs * (4 + 4 * deps.random()) + 200 * rounds;
      await clock.sleep(wait, deps.signal);
      continue;
    }
    await waitFor(others, serviceNow);
  }
};

/**
 * Decision: once the lock is held, other runs' lapsed claims (left by killed runs) are
 * deleted, so the org's context list does not fill up with them; a failure here is only a
 * note. Lapsed by the service's clock (`serviceNow`: our claim's created_at).
 */
const clearLapsed = async (
  deps: LockDeps,
  org: OrgRef,
  claims: readonly ListedClaim[],
  serviceNow: number,
): Promise<void> => {
  const lapsed = claims.filter(
    (c) => c.run !== deps.holder.run && !isLive(c, serviceNow, deps.timing.leaseMs),
  );
  if (lapsed.length === 0) return;
  try {
    await deleteClaims(
      deps.api,
      org.id,
      lapsed.map((c) => c.contextId),
    );
    for (const c of lapsed)
      deps.onNote?.(`Note: removed a lapsed lock of org ${org.slug}: ${describeClaim(c)}`);
  } catch {
    deps.onNote?.(`Note: could not remove ${lapsed.length} lapsed lock(s) of org ${org.slug}`);
  }
};

const startHolding = (
  deps: LockDeps,
  org: OrgRef,
  first: ListedClaim,
  firstSentAt: number,
  cache: ClaimCache,
  told: Set<string>,
): HeldLock => {
  const { api, clock, holder, timing } = deps;
  const stop = new AbortController();
  const lost = new AbortController();
  setMaxListeners(0, stop.signal, lost.signal);
  /** The claim the lock was taken with: a claim written before it is an earlier holder. */
  const taken = { createdAt: first.createdAt, run: holder.run };
  let current = first;
  /** Our clock's time before the current claim was written: it lapses a lease after. */
  let currentSentAt = firstSentAt;
  /** Every claim of ours that may exist, by id (release deletes them all). */
  const mine = new Set<string>([first.contextId]);
  const lose = (why: string): void => {
    if (lost.signal.aborted) return;
    lost.abort(
      new LockError(
        `lost the lock of org ${org.slug}: ${why}; so that no other run writes at the same time`,
      ),
    );
  };
  /**
   * Renewals and ownership checks run one at a time: a check that listed while a renewal
   * swapped the current claim would find the old one gone.
   */
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  /**
   * Is the lock still ours, by this listing? Our current claim is listed, and no other run's
   * live claim was written before the claim we took the lock with. `serviceNow`: the
   * service's time as best known (the new claim's created_at, or estimated from ours).
   */
  const judge = (claims: readonly ListedClaim[], serviceNow: number): boolean => {
    if (!claims.some((c) => c.contextId === current.contextId)) {
      lose(
        `its claim ${current.name} is gone (deleted by force-unlock or by hand), and another run may hold the lock now`,
      );
      return false;
    }
    const earlier = claims.filter(
      (c) =>
        c.run !== holder.run && isLive(c, serviceNow, timing.leaseMs) && writtenBefore(c, taken),
    );
    if (earlier.length > 0) {
      lose(
        `another run holds a live claim written before ours: ${earlier.map((c) => describeListedClaim(c, timing.leaseMs)).join("; ")}`,
      );
      return false;
    }
    return true;
  };
  /** The service's time now, estimated from when our current claim was written. */
  const estimatedServiceNow = (): number => current.createdAt + (clock.now() - currentSentAt);
  const listed = async (): Promise<ListedClaim[]> => {
    const { claims, ignored } = await listClaims(api, org, cache, stop.signal);
    noteIgnored(deps, org, ignored, told);
    for (const c of claims) if (c.run === holder.run) mine.add(c.contextId);
    return settleFutureClaims(claims, cache, estimatedServiceNow());
  };
  const renewOnce = async (): Promise<void> => {
    const sentAt = clock.now();
    const next = claimAt(holder, sentAt, timing.leaseMs);
    let nextId: string | undefined;
    try {
      nextId = await createClaim(api, org.id, next);
      if (nextId !== undefined) mine.add(nextId);
    } catch {
      // Outcome unknown or refused: the listing tells; the old claim still holds.
    }
    const claims = await listed();
    const created =
      claims.find((c) => c.contextId === nextId) ??
      (nextId === undefined ? claims.find((c) => c.name === claimName(next)) : undefined);
    if (!judge(claims, created?.createdAt ?? estimatedServiceNow())) return;
    if (created !== undefined) {
      const old = current;
      current = created;
      currentSentAt = sentAt;
      await deleteClaim(api, org.id, old.contextId);
      mine.delete(old.contextId);
    }
  };
  /** One ownership check (issue 42): a listing, judged as a renewal's is. */
  const checkOnce = async (): Promise<void> => {
    judge(await listed(), estimatedServiceNow());
  };
  let checking: Promise<void> | undefined;
  const confirm = (): Promise<void> => {
    if (lost.signal.aborted) return Promise.reject(lost.signal.reason);
    // A check in flight started before this call: it is shared (see HeldLock.confirm for
    // why that still bounds an overlap to one request per slot).
    checking ??= exclusive(checkOnce).finally(() => {
      checking = undefined;
    });
    return checking.then(() => {
      if (lost.signal.aborted) throw lost.signal.reason;
    });
  };
  const renewing = (async () => {
    for (;;) {
      try {
        await clock.sleep(timing.renewEveryMs, stop.signal);
      } catch {
        return;
      }
      try {
        await exclusive(renewOnce);
      } catch {
        // Tried again at the next interval; below, the run stops if the claim may lapse.
      }
      if (lost.signal.aborted) return;
      const lapses = currentSentAt + timing.leaseMs;
      if (clock.now() >= lapses - timing.renewEveryMs) {
        lose(
          `the claim could not be renewed and lapses at about ${new Date(lapses).toISOString()}`,
        );
        return;
      }
    }
  })();
  let released: Promise<void> | undefined;
  return {
    org,
    run: holder.run,
    lost: lost.signal,
    confirm,
    release: () => {
      released ??= (async () => {
        stop.abort();
        await renewing;
        await queue;
        // Listed again: a renewal or an uncertain create may have added a claim since.
        // Issue 42: a failed listing still deletes the claims whose ids are known.
        try {
          const { claims } = await listClaims(api, org, cache);
          for (const c of claims) if (c.run === holder.run) mine.add(c.contextId);
        } finally {
          await deleteClaims(api, org.id, mine);
        }
      })();
      return released;
    },
  };
};

/**
 * Issue 42 "Restricted tokens still respect others": a run that cannot write a claim (403,
 * `--lock auto`) still lists the claims and waits while another run's claim may be live;
 * only when none is does it go on (without the lock, with the caller's warning). Throws
 * OrgLockedError when the wait (`timing.waitMs`) is over.
 *
 * Without a claim of its own the run does not learn the service's time, so it cannot judge
 * a claim's `created_at`. Decision: a claim counts as live for one lease from when this run
 * first saw it (measured on this run's clock: a duration, never compared with another
 * clock's time), which is never shorter than its true life (its `created_at` is before the
 * listing that first showed it). A holder's renewal is a new claim, so a renewing holder is
 * always waited for; a claim left by a killed run costs at most one lease of waiting.
 */
export const awaitNoLiveClaim = async (deps: LockDeps, org: OrgRef): Promise<void> => {
  const { api, clock, timing } = deps;
  const started = clock.now();
  const deadline = started + timing.waitMs;
  const cache: ClaimCache = new Map();
  const told = new Set<string>();
  const firstSeen = new Map<string, number>();
  let lastNote: { key: string; at: number } | undefined;
  for (;;) {
    deps.signal?.throwIfAborted();
    const { claims, ignored } = await listClaims(api, org, cache, deps.signal);
    noteIgnored(deps, org, ignored, told);
    const now = clock.now();
    for (const c of claims) if (!firstSeen.has(c.contextId)) firstSeen.set(c.contextId, now);
    const live = claims.filter(
      (c) =>
        c.run !== deps.holder.run && now - (firstSeen.get(c.contextId) ?? now) < timing.leaseMs,
    );
    if (live.length === 0) return;
    if (now >= deadline) throw new OrgLockedError(org.slug, live, now - started, timing.leaseMs);
    const key = live.map((c) => c.contextId).join(",");
    if (!lastNote || lastNote.key !== key || now - lastNote.at >= 15_000) {
      lastNote = { key, at: now };
      deps.onNote?.(
        `Waiting for the lock of org ${org.slug} (this token cannot write a claim, so it waits for the others' to go): held by ${live.map((c) => describeListedClaim(c, timing.leaseMs)).join("; ")} (waited ${Math.round((now - started) / 1000)} s of ${Math.round(timing.waitMs / 1000)} s)`,
      );
    }
    const lapse = Math.min(
      ...live.map((c) => (firstSeen.get(c.contextId) ?? now) + timing.leaseMs),
    );
    await clock.sleep(
      Math.max(50, Math.min(timing.pollMs, Math.max(0, deadline - now), lapse - now)),
      deps.signal,
    );
  }
};

/**
 * `waybill force-unlock`: delete the claims of `run` (or of every run with `all`) on an org.
 * Resolves with the claims deleted. A lock-named context that holds something is not a claim
 * and is never deleted.
 */
export const forceUnlock = async (
  api: Api,
  org: OrgRef,
  run: string | "all",
): Promise<ListedClaim[]> => {
  const { claims } = await listClaims(api, org);
  const chosen = claims.filter((c) => run === "all" || c.run === run);
  await deleteClaims(
    api,
    org.id,
    chosen.map((c) => c.contextId),
  );
  return chosen;
};
