/**
 * Volume guards and risky transitions (issue 45, design.md §5 "Rules and guards"): what
 * apply refuses (exit 4, before any write) unless one run is let through with a flag
 * (`--allow-mass-change`, `--allow-risky RULE`) or the org's `guards.allow` allows a risky
 * transition for good. Pure: the plan, the live state it was made from and the org's
 * `guards:`.
 *
 * Decision (the numbers; the spec is silent): updates and replaces of more than
 * 30% of a collection shape's live items, for shapes of 10 or more, and more than 20 secret
 * re-sets in one org. A template edit that rewrites every project's settings, or
 * `--force-secrets '*'`, is then a reviewed, deliberate act.
 */
import { compileAddressGlob, parseAddress } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import type {
  BlockedGuard,
  DesiredGuards,
  GuardThresholds,
  RiskyRule,
  VolumeRule,
} from "../model/policy.js";
import type { Change, Plan } from "../plan/types.js";

export const DEFAULT_MAX_UPDATE_PERCENT = 30;
export const DEFAULT_MIN_COLLECTION_SIZE = 10;
export const DEFAULT_MAX_SECRET_RESETS = 20;

const MASS_CHANGE_FLAG = "--allow-mass-change";

/** Whether `field` of the item becomes `value` with this change (it was not before). */
const becomes = (c: Change, field: string, value: unknown): boolean =>
  c.after !== null && c.after[field] === value && (c.before === null || c.before[field] !== value);

const ALL_MEMBERS_KEY = "group:all-members";

/** The risky transition a change makes, and in words what it does; undefined for none. */
const riskOf = (
  c: Change,
  live: LiveState | undefined,
): { readonly rule: RiskyRule; readonly what: string } | undefined => {
  switch (c.resource_type) {
    case "org_settings":
      if (becomes(c, "is_running_disabled", true))
        return {
          rule: "org-running-disabled",
          what: "stops every job of the org (is_running_disabled: true)",
        };
      if (becomes(c, "is_context_group_restriction_required", false))
        return {
          rule: "context-group-restriction-off",
          what: "lets contexts be used without a group restriction (is_context_group_restriction_required: false)",
        };
      return undefined;
    case "project_settings":
      return becomes(c, "can_pass_secrets_to_fork_pr_jobs", true)
        ? {
            rule: "fork-pr-secrets",
            what: "passes secrets to jobs of pull requests from forks (can_pass_secrets_to_fork_pr_jobs: true)",
          }
        : undefined;
    case "webhook":
      return becomes(c, "should_verify_tls", false)
        ? {
            rule: "webhook-tls-off",
            what: "sends to a receiver without verifying its TLS certificate (should_verify_tls: false)",
          }
        : undefined;
    case "sso_group_mappings": {
      const before = c.before?.mappings;
      const after = c.after?.mappings;
      return Array.isArray(before) &&
        before.length > 0 &&
        Array.isArray(after) &&
        after.length === 0
        ? {
            rule: "sso-mappings-emptied",
            what: `removes all ${before.length} SSO group mapping(s)`,
          }
        : undefined;
    }
    case "context_restriction":
      return c.action === "create" && widensContext(c, live)
        ? {
            rule: "context-all-members-added",
            what: "opens the context to every member of the org, where it had narrower restrictions",
          }
        : undefined;
    default:
      return undefined;
  }
};

/** An all-members restriction created on a context whose live restrictions were narrower. */
const widensContext = (c: Change, live: LiveState | undefined): boolean => {
  const segments = parseAddress(c.address);
  if (segments?.[1]?.key !== ALL_MEMBERS_KEY) return false;
  const name = segments[0]?.key;
  const org = live?.orgs.find((o) => o.slug === c.org);
  const context = org?.contexts?.find((x) => x.name === name);
  const restrictions = context?.restrictions ?? [];
  return restrictions.some((r) => `${r.restriction_type}:${r.key_value}` !== ALL_MEMBERS_KEY);
};

/** The thresholds for one collection shape: its own entry, else the org's, else the defaults. */
const thresholdsFor = (
  guards: DesiredGuards | undefined,
  collection: string,
): Required<GuardThresholds> => {
  const own = guards?.collections?.find((c) => compileAddressGlob(c.glob).test(collection));
  const pick = <K extends keyof GuardThresholds>(k: K, d: number): number =>
    own?.thresholds[k] ?? guards?.[k] ?? d;
  return {
    max_update_percent: pick("max_update_percent", DEFAULT_MAX_UPDATE_PERCENT),
    min_collection_size: pick("min_collection_size", DEFAULT_MIN_COLLECTION_SIZE),
  };
};

/** A change that re-sets a secret the service already holds. */
const resetsSecret = (c: Change): boolean =>
  (c.action === "update" || c.action === "replace") && c.fields.some((f) => f.sensitive === true);

/**
 * What apply refuses in this plan, risky transitions first (they are also listed first in
 * the plan), those an org's `guards.allow` allows left out.
 */
export const blockedGuards = (
  plan: Plan,
  live: LiveState | undefined,
  desired: DesiredConfig,
): BlockedGuard[] => {
  const guardsOf = new Map(desired.orgs.map((o) => [o.slug, o.guards]));
  const risky: BlockedGuard[] = [];
  const resets = new Map<string, number>();
  for (const c of plan.changes) {
    if (resetsSecret(c)) resets.set(c.org, (resets.get(c.org) ?? 0) + 1);
    const risk = riskOf(c, live);
    if (risk === undefined || guardsOf.get(c.org)?.allow?.includes(risk.rule)) continue;
    risky.push({
      rule: risk.rule,
      org: c.org,
      address: c.address,
      message: `${c.address}: the plan ${risk.what}`,
      allow_with: `--allow-risky ${risk.rule}`,
    });
  }
  const volume: BlockedGuard[] = [];
  const block = (rule: VolumeRule, org: string, message: string, collection?: string): void => {
    volume.push({
      rule,
      org,
      ...(collection === undefined ? {} : { collection }),
      message,
      allow_with: MASS_CHANGE_FLAG,
    });
  };
  for (const u of plan.guards.updates ?? []) {
    const t = thresholdsFor(guardsOf.get(u.org), u.collection);
    if (u.live_count < t.min_collection_size) continue;
    if (u.update_count * 100 <= u.live_count * t.max_update_percent) continue;
    block(
      "mass-update",
      u.org,
      `the plan updates or replaces ${u.update_count} of the ${u.live_count} items of ${u.collection} in ${u.org}, more than ${t.max_update_percent}%`,
      u.collection,
    );
  }
  for (const [org, n] of resets) {
    const max = guardsOf.get(org)?.max_secret_resets ?? DEFAULT_MAX_SECRET_RESETS;
    if (n <= max) continue;
    block("mass-secret-reset", org, `the plan re-sets ${n} secrets in ${org}, more than ${max}`);
  }
  return [...risky, ...volume];
};

/** What a run's flags do not let through. */
export const refusedGuards = (
  blocked: readonly BlockedGuard[],
  flags: { readonly allowMassChange: boolean; readonly allowRisky: readonly string[] },
): BlockedGuard[] =>
  blocked.filter((b) =>
    b.allow_with === MASS_CHANGE_FLAG ? !flags.allowMassChange : !flags.allowRisky.includes(b.rule),
  );
