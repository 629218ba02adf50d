/**
 * The lock's command-line side (issue 15, issue 29): `--lock auto|required|off`,
 * `--lock-timeout`, who this run is, and taking the locks of every org of a config
 * (src/lock/org-lock.ts).
 */
import { randomBytes } from "node:crypto";
import { hostname, userInfo } from "node:os";
import type { Api } from "../api/types.js";
import { UsageError } from "../core/errors.js";
import type { OrgAttributes } from "../core/wire.js";
import { OrgNotVisibleError } from "../live/errors.js";
import { type Claim, describeClaim, MAX_LEASE_MS, parseClaimName } from "../lock/claim.js";
import {
  acquireOrgLock,
  awaitNoLiveClaim,
  type HeldLock,
  type Holder,
  LockRefusedError,
  type LockTiming,
  lockTiming,
  type OrgRef,
} from "../lock/org-lock.js";
import type { LiveState } from "../model/live.js";
import { type CliIO, clockOf } from "./io.js";

/**
 * A duration such as `0`, `30s`, `5m`, `1h` (a bare number is seconds), in ms. Decision:
 * the Terraform `-lock-timeout` spelling, so CI authors need not learn a new one.
 */
export const parseDuration = (text: string, flag: string): number => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!m) throw new UsageError(`${flag} must be a duration such as 30s, 5m or 0 (got ${text})`);
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const scale = unit === "ms" ? 1 : unit === "s" ? 1_000 : unit === "m" ? 60_000 : 3_600_000;
  return Math.round(n * scale);
};

/** `--lock`: design.md §4 "The org lock". `--no-lock` is `off`. */
export type LockMode = "auto" | "required" | "off";

export const parseLockMode = (value: string | boolean | undefined): LockMode => {
  if (value === false) return "off";
  if (value === undefined || value === true) return "auto";
  if (value === "auto" || value === "required" || value === "off") return value;
  throw new UsageError(`--lock must be auto, required or off (got ${value})`);
};

/**
 * The lock's timing. `WAYBILL_TEST_LOCK_LEASE_MS` (tests only, undocumented) shortens the
 * lease so that tests which kill an apply need not wait a minute for its claim to lapse;
 * it can only shorten it (4 s to 60 s: a renewal every second or more, as claim names hold
 * whole seconds).
 */
export const lockTimingFor = (env: Readonly<Record<string, string | undefined>>): LockTiming => {
  const raw = Number(env.WAYBILL_TEST_LOCK_LEASE_MS);
  const lease =
    Number.isFinite(raw) && raw >= 4_000 && raw <= MAX_LEASE_MS ? Math.round(raw) : MAX_LEASE_MS;
  return lockTiming(lease);
};

/**
 * Who holds a lock, as far as the environment tells: the CI job when there is one (the
 * variables GitHub Actions, GitLab CI and CircleCI document), else the user name.
 */
export const whoIsRunning = (env: Readonly<Record<string, string | undefined>>): string => {
  if (env.GITHUB_ACTIONS === "true" && env.GITHUB_RUN_ID)
    return `github:${env.GITHUB_REPOSITORY ?? "?"}#${env.GITHUB_RUN_ID}`;
  if (env.GITLAB_CI === "true" && env.CI_JOB_ID)
    return `gitlab:${env.CI_PROJECT_PATH ?? "?"}#${env.CI_JOB_ID}`;
  if (env.CIRCLECI === "true" && env.CIRCLE_BUILD_NUM)
    return `circleci:${env.CIRCLE_PROJECT_REPONAME ?? "?"}#${env.CIRCLE_BUILD_NUM}`;
  const user = env.USER ?? env.USERNAME ?? safeUserName();
  return user ? `user:${user}` : "unknown";
};

const safeUserName = (): string | undefined => {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
};

export const thisRun = (io: CliIO): Holder => ({
  run: randomBytes(6).toString("hex"),
  pid: process.pid,
  host: hostname(),
  who: whoIsRunning(io.env),
});

/** An org slug → its id (spec: api-v3.md Orgs: `filter[slug]`, no match is empty). */
export const resolveOrgRef = async (api: Api, slug: string): Promise<OrgRef> => {
  const found = await api.listV3<OrgAttributes>("/orgs", { "filter[slug]": slug });
  const org =
    found.find((o) => o.attributes.slug === slug) ?? (found.length === 1 ? found[0] : undefined);
  if (!org?.id) {
    throw new OrgNotVisibleError(slug, `GET /api/v3/orgs?filter[slug]=${slug} returned no org`);
  }
  return { id: org.id, slug };
};

/** What taking the locks came to: held, or stepped aside for a token that cannot (auto). */
export interface LockOutcome {
  readonly held: HeldLock[];
  /** Orgs applied without the lock (`--lock auto`, the token cannot write a claim). */
  readonly unlocked: readonly string[];
}

/**
 * Decision (issue 29, design.md §4): a token that may not create contexts (403 on the claim)
 * cannot take the lock. `auto` applies anyway, with a warning that names the risk and what
 * stands in for the lock (one apply at a time per config, by the CI's concurrency setting);
 * `required` refuses. The warning names no flag that would not help.
 */
const refusedWarning = (err: LockRefusedError): string =>
  `Warning: ${err.message}. Applying WITHOUT the org lock: another apply of org ${err.orgSlug} at the same time could duplicate or undo changes. Make sure only one apply of this config runs at a time (a CI concurrency group: GitHub Actions \`concurrency:\`, GitLab \`resource_group:\`), or give the token the right to create contexts; \`--lock required\` refuses to apply without the lock.`;

const refusedError = (err: LockRefusedError): LockRefusedError =>
  new LockRefusedError(
    err.orgSlug,
    err.refusal,
    `, and --lock required refuses to apply without it. Nothing was changed. Use a token that may create contexts in org ${err.orgSlug}, or, where a CI concurrency group already runs one apply of this config at a time, --lock auto`,
  );

/**
 * Take the lock of every org, one after another in slug order (two runs of overlapping
 * configs then never each hold one org the other waits for). On failure the locks already
 * taken are released before the error goes on.
 */
export const lockOrgs = async (
  api: Api,
  slugs: readonly string[],
  io: CliIO,
  options: {
    readonly waitMs?: number;
    readonly signal: AbortSignal;
    readonly holder: Holder;
    readonly mode: Exclude<LockMode, "off">;
  },
): Promise<LockOutcome> => {
  const held: HeldLock[] = [];
  const unlocked: string[] = [];
  const base = lockTimingFor(io.env);
  const timing = { ...base, ...(options.waitMs !== undefined ? { waitMs: options.waitMs } : {}) };
  try {
    for (const slug of [...new Set(slugs)].sort()) {
      const org = await resolveOrgRef(api, slug);
      const deps = {
        api,
        clock: clockOf(io),
        random: Math.random,
        holder: options.holder,
        timing,
        signal: options.signal,
        onNote: (text: string) => io.stderr.write(`${text}\n`),
      };
      // Issue 46: a CI log says when apply takes the lock (the wait, if any, is told by
      // acquireOrgLock's own notes) and when it has it.
      io.stderr.write(`Taking the lock of org ${slug}…\n`);
      io.heartbeat?.doing(() => `Taking the lock of org ${slug}`);
      try {
        const lock = await acquireOrgLock(deps, org);
        held.push(lock);
        io.stderr.write(`Took the lock of org ${slug} (run ${lock.run}).\n`);
      } catch (err) {
        if (!(err instanceof LockRefusedError)) throw err;
        if (options.mode === "required") throw refusedError(err);
        // Issue 42: without a claim of its own the run still waits for (or refuses at)
        // another run's live claim; only then does it apply without the lock.
        await awaitNoLiveClaim(deps, org);
        io.stderr.write(`${refusedWarning(err)}\n`);
        unlocked.push(slug);
      }
    }
    return { held, unlocked };
  } catch (err) {
    await releaseAll(held, io);
    throw err;
  }
};

/** Release every lock; a failure is a warning that says how the lock ends anyway. */
export const releaseAll = async (held: readonly HeldLock[], io: CliIO): Promise<void> => {
  const leaseS = Math.round(lockTimingFor(io.env).leaseMs / 1000);
  if (held.length > 0) io.heartbeat?.doing(() => "Releasing the lock");
  await Promise.all(
    held.map(async (lock) => {
      try {
        await lock.release();
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        io.stderr.write(
          `Warning: could not release the lock of org ${lock.org.slug} (${why}); it lapses within ${leaseS} s, or run \`waybill force-unlock ${lock.run} --org ${lock.org.slug}\`\n`,
        );
      }
    }),
  );
};

/**
 * Plan takes no lock (it only reads) but says when a lock claim is there: what it shows may
 * be outdated by the time that apply ends. Only claims met in a contexts listing the plan
 * made anyway (src/live: `lockNames`, empty contexts in the exact format). Decision: plan
 * does not judge whether the claim is live (that needs the service's time of the claim,
 * src/lock/claim-content.ts); a claim is gone within a lease of its holder's end.
 */
export const lockNotes = (live: LiveState, _now?: number): string[] =>
  live.orgs.flatMap((org) =>
    (org.lockNames ?? [])
      .map(parseClaimName)
      .filter((c): c is Claim => c !== undefined)
      .map(
        (c) =>
          `Note: an apply may hold the lock of org ${org.slug} (${describeClaim(c)}); this plan may be outdated when it finishes.`,
      ),
  );
