/**
 * The lock's command-line side (issue 15): `--lock-timeout`, `--no-lock`, who this run is,
 * and taking the locks of every org of a config (src/lock/org-lock.ts).
 */
import { randomBytes } from "node:crypto";
import { hostname, userInfo } from "node:os";
import type { Api } from "../api/types.js";
import { UsageError } from "../core/errors.js";
import type { OrgAttributes } from "../core/wire.js";
import { OrgNotVisibleError } from "../live/errors.js";
import { type Claim, describeClaim, isExpired, parseClaimName } from "../lock/claim.js";
import {
  acquireOrgLock,
  DEFAULT_LOCK_TIMING,
  type HeldLock,
  type Holder,
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

/**
 * Take the lock of every org, one after another in slug order (two runs of overlapping
 * configs then never each hold one org the other waits for). On failure the locks already
 * taken are released before the error goes on.
 */
export const lockOrgs = async (
  api: Api,
  slugs: readonly string[],
  io: CliIO,
  options: { readonly waitMs: number; readonly signal: AbortSignal; readonly holder: Holder },
): Promise<HeldLock[]> => {
  const held: HeldLock[] = [];
  try {
    for (const slug of [...new Set(slugs)].sort()) {
      const org = await resolveOrgRef(api, slug);
      held.push(
        await acquireOrgLock(
          {
            api,
            clock: clockOf(io),
            random: Math.random,
            holder: options.holder,
            timing: { ...DEFAULT_LOCK_TIMING, waitMs: options.waitMs },
            signal: options.signal,
            onNote: (text) => io.stderr.write(`${text}\n`),
          },
          org,
        ),
      );
    }
    return held;
  } catch (err) {
    await releaseAll(held, io);
    throw err;
  }
};

/** Release every lock; a failure is a warning that says how the lock ends anyway. */
export const releaseAll = async (held: readonly HeldLock[], io: CliIO): Promise<void> => {
  await Promise.all(
    held.map(async (lock) => {
      try {
        await lock.release();
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        io.stderr.write(
          `Warning: could not release the lock of org ${lock.org.slug} (${why}); it lapses within ${DEFAULT_LOCK_TIMING.leaseMs / 1000} s, or run \`waybill force-unlock ${lock.run} --org ${lock.org.slug}\`\n`,
        );
      }
    }),
  );
};

/**
 * Plan takes no lock (it only reads) but says when an apply holds one: what it shows may be
 * outdated by the time that apply ends. Only claims met in a contexts listing the plan made
 * anyway (src/live: `lockNames`): no extra request.
 */
export const lockNotes = (live: LiveState, now: number): string[] =>
  live.orgs.flatMap((org) =>
    (org.lockNames ?? [])
      .map(parseClaimName)
      .filter((c): c is Claim => c !== undefined && !isExpired(c, now))
      .map(
        (c) =>
          `Note: an apply holds the lock of org ${org.slug} (${describeClaim(c)}); this plan may be outdated when it finishes.`,
      ),
  );
