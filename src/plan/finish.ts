/**
 * The last step of planning: `--target` selection (with dependencies), the summary, and
 * the mass-delete guard data (design.md §1 "Ownership").
 */
import { PlanError } from "../core/errors.js";
import { V2_REQUESTS_PER_HOUR } from "../core/wire.js";
import { type Kinds, kindIn } from "../kinds/references.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { planDigest } from "./digest.js";
import { type PlanScope, type ScopedAddress, scopeIndex } from "./scope.js";
import { globMatcher } from "./state.js";
import type {
  Change,
  CollectionGuard,
  DestroyGuard,
  IgnoredField,
  KeptUnlisted,
  Plan,
  Summary,
  UnknownItem,
  UpdateVolume,
} from "./types.js";

export interface FinishInput {
  readonly orgs: readonly { slug: string; id: string }[];
  readonly changes: readonly Change[];
  readonly unverified: readonly string[];
  readonly skipped: number;
  readonly unresolvedCreates: number;
  readonly warnings: readonly string[];
  readonly collections: readonly { org: string; collection: string; live_count: number }[];
  readonly targets: readonly string[] | undefined;
  readonly matchTarget: ((address: string) => boolean) | undefined;
  /** `--exclude` globs (design.md §5 "Scoped plans and the reviewed plan"). */
  readonly excludes?: readonly string[];
  /** The kinds planned (the registry's unless a test gives its own). */
  readonly kinds?: Kinds;
  readonly skipSecrets: boolean;
  /** Live items `keep_unlisted` left alone. */
  readonly kept?: readonly KeptUnlisted[];
  readonly ignoredFields?: readonly IgnoredField[];
  /** `planConfigDigest` of the config planned (src/plan/digest.ts). */
  readonly configDigest: string;
  /** Live items no kind can name (design.md §5 "Reading the real service"). */
  readonly unknown?: readonly UnknownItem[];
  /** `--changed-since`'s scope (src/plan/scope.ts): kept in the plan, covered by its digest. */
  readonly scope?: PlanScope;
  /** Apply's re-read under the lock: the addresses its plan touches (not part of the plan). */
  readonly within?: readonly ScopedAddress[];
}

/** design.md §1 "Ownership": more than 3 deletions and more than 25% of the live items. */
export const exceedsMassDelete = (deleteCount: number, liveCount: number): boolean =>
  deleteCount > 3 && deleteCount > liveCount * 0.25;

const key = (org: string, address: string): string => `${org}\u0000${address}`;

/**
 * The changes `--target` selects: those whose address (or an ancestor) a glob matches,
 * plus, transitively, the changes they depend on (a new context for a targeted new env var,
 * a replaced pipeline for a targeted trigger).
 */
export const selectTargets = (
  changes: readonly Change[],
  match: (address: string) => boolean,
): Change[] => selectCovered(changes, (c) => match(c.address));

/**
 * The changes `covered` keeps, plus, transitively, the changes they depend on: `--target`'s
 * selection, and a scope's (src/plan/scope.ts: the addresses changed since REF, or what apply
 * re-reads under the lock).
 */
export const selectCovered = (
  changes: readonly Change[],
  covered: (c: Change) => boolean,
): Change[] => {
  const byAddress = new Map<string, Change>();
  for (const c of changes) byAddress.set(key(c.org, c.address), c);
  const selected = new Set<string>();
  const stack: Change[] = changes.filter(covered);
  while (stack.length > 0) {
    const c = stack.pop() as Change;
    const k = key(c.org, c.address);
    if (selected.has(k)) continue;
    selected.add(k);
    for (const dep of c.depends_on) {
      const d = byAddress.get(key(c.org, dep));
      if (d) stack.push(d);
    }
  }
  return changes.filter((c) => selected.has(key(c.org, c.address)));
};

/**
 * `--exclude` (design.md §5 "Scoped plans and the reviewed plan"; OpenTofu 1.9's -exclude):
 * the changes a glob matches (the address or an ancestor) are left out, and so is every
 * change that needs one of them first (`depends_on`, transitively), since it could not run.
 * A change `--target` names itself that would be left out so is an error naming both: the
 * user asked for it and, at once, for what it needs to be left out.
 */
export const selectExcludes = (
  changes: readonly Change[],
  excluded: (address: string) => boolean,
  targeted: ((address: string) => boolean) | undefined,
): Change[] => {
  const out = new Set<string>();
  for (const c of changes) if (excluded(c.address)) out.add(key(c.org, c.address));
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of changes) {
      const k = key(c.org, c.address);
      if (out.has(k)) continue;
      const dep = c.depends_on.find((d) => out.has(key(c.org, d)));
      if (dep === undefined) continue;
      if (targeted?.(c.address)) {
        throw new PlanError(
          `${c.address} is targeted (--target) but needs ${dep} first, which --exclude leaves out; exclude ${c.address} too, or do not exclude ${dep}`,
        );
      }
      out.add(k);
      grew = true;
    }
  }
  return changes.filter((c) => !out.has(key(c.org, c.address)));
};

export const summarise = (changes: readonly Change[]): Summary => ({
  create: changes.filter((c) => c.action === "create").length,
  update: changes.filter((c) => c.action === "update").length,
  replace: changes.filter((c) => c.action === "replace").length,
  delete: changes.filter((c) => c.action === "delete").length,
});

export const finishPlan = (input: FinishInput): Plan => {
  const warnings = [...input.warnings];
  // Decision: Terraform's order: by org (as declared), then by address, so a parent comes
  // right before its children and the order does not depend on the YAML's.
  const orgRank = new Map(input.orgs.map((o, i) => [o.slug, i]));
  let changes = [...input.changes].sort(
    (a, b) =>
      (orgRank.get(a.org) ?? 0) - (orgRank.get(b.org) ?? 0) ||
      (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
  );
  let unverified = [...input.unverified];
  // A scope first: what is outside it was not (fully) read, so nothing of it is a change.
  for (const addresses of [input.scope?.addresses, input.within]) {
    if (addresses === undefined) continue;
    const idx = scopeIndex(addresses);
    changes = selectCovered(changes, (c) => idx.covers(c.org, c.address));
    // Decision: an unverified secret names no org; it is kept when any org's scope covers it.
    const orgs = input.orgs.map((o) => o.slug);
    unverified = unverified.filter((u) =>
      orgs.some((o) => idx.covers(o, u.slice(0, u.indexOf("#")))),
    );
  }
  if (input.matchTarget !== undefined && input.targets !== undefined) {
    const match = input.matchTarget;
    changes = selectTargets(changes, match);
    unverified = unverified.filter((u) => match(u.slice(0, u.indexOf("#"))));
    if (changes.length === 0 && input.changes.length > 0) {
      warnings.push(`--target ${input.targets.join(", ")} selects none of the planned changes`);
    }
    if (changes.length < input.changes.length) {
      warnings.push(
        `the plan is limited by --target: ${input.changes.length - changes.length} other change(s) are left for a later apply`,
      );
    }
  }
  if (input.excludes !== undefined && input.excludes.length > 0) {
    const before = changes.length;
    changes = selectExcludes(changes, globMatcher(input.excludes), input.matchTarget);
    const match = globMatcher(input.excludes);
    unverified = unverified.filter((u) => !match(u.slice(0, u.indexOf("#"))));
    if (changes.length < before) {
      warnings.push(
        `the plan is limited by --exclude ${input.excludes.join(", ")}: ${before - changes.length} change(s) are left out`,
      );
    }
  }
  // Issue 17: a delete or replace of a kind whose removal takes more with it (a group's
  // members and role grants) says so in its reason, and is listed for apply's guard.
  const destroys: DestroyGuard[] = [];
  changes = changes.map((c) => {
    const what = kindIn(input.kinds ?? ALL_KINDS, c.resource_type).destroys;
    if (what === undefined || (c.action !== "delete" && c.action !== "replace")) return c;
    destroys.push({
      org: c.org,
      address: c.address,
      resource_type: c.resource_type,
      action: c.action,
      destroys: what,
    });
    return { ...c, reason: `${c.reason}; ${what}` };
  });
  const mass_delete: CollectionGuard[] = [];
  // Issue 28: a replace destroys what a delete destroys (the live item's id, its secrets,
  // a group's members): it counts as a deletion of the live item (re-creating 8 of 8
  // webhooks after a template change needed no flag).
  const deletes = new Map<string, number>();
  const replaces = new Map<string, number>();
  for (const c of changes) {
    if (c.action !== "delete" && c.action !== "replace") continue;
    const k = key(c.org, c.collection);
    deletes.set(k, (deletes.get(k) ?? 0) + 1);
    if (c.action === "replace") replaces.set(k, (replaces.get(k) ?? 0) + 1);
  }
  for (const col of input.collections) {
    const k = key(col.org, col.collection);
    const delete_count = deletes.get(k) ?? 0;
    if (delete_count === 0) continue;
    const replace_count = replaces.get(k) ?? 0;
    mass_delete.push({
      org: col.org,
      collection: col.collection,
      live_count: col.live_count,
      delete_count,
      ...(replace_count > 0 ? { replace_count } : {}),
      exceeds: exceedsMassDelete(delete_count, col.live_count),
    });
  }
  const updates = updateVolumes(changes, input.collections);
  const unresolved = changes.filter((c) => (c.unresolved_secrets?.length ?? 0) > 0).length;
  if (input.skipSecrets) {
    warnings.push(
      // Issue 46: the renderers say once that the plan cannot be saved or applied (`saveable`).
      "planned with --skip-secrets: secret values were not compared",
    );
  }
  if (unresolved > 0) {
    warnings.push(
      `${unresolved} change(s) create items whose secrets were not resolved (--skip-secrets)`,
    );
  }
  const v2 = v2BudgetWarning(changes);
  if (v2 !== undefined) warnings.push(v2);
  const orgs = input.orgs.map((o) => ({ slug: o.slug, id: o.id }));
  return {
    format_version: 1,
    digest: planDigest({
      orgs,
      changes,
      configDigest: input.configDigest,
      ...(input.scope === undefined ? {} : { scope: input.scope }),
    }),
    orgs,
    changes,
    summary: summarise(changes),
    unverified_secrets: unverified.length,
    unverified,
    skipped_secrets: input.skipped,
    saveable: !input.skipSecrets && unresolved === 0 && input.unresolvedCreates === 0,
    warnings,
    guards: {
      mass_delete,
      mass_delete_exceeded: mass_delete.some((g) => g.exceeds),
      ...(destroys.length > 0 ? { destroys } : {}),
      ...(updates.length > 0 ? { updates } : {}),
    },
    ...(input.scope === undefined ? {} : { scope: input.scope }),
    ...(input.targets === undefined ? {} : { targets: [...input.targets] }),
    ...(input.excludes === undefined || input.excludes.length === 0
      ? {}
      : { excludes: [...input.excludes] }),
    ...(input.kept === undefined || input.kept.length === 0
      ? {}
      : { kept_unlisted: [...input.kept].sort((a, b) => (a.address < b.address ? -1 : 1)) }),
    ...(input.ignoredFields === undefined || input.ignoredFields.length === 0
      ? {}
      : { ignored_fields: [...input.ignoredFields] }),
    ...(input.unknown === undefined || input.unknown.length === 0
      ? {}
      : { unknown: [...input.unknown].sort((a, b) => (a.address < b.address ? -1 : 1)) }),
  };
};

/** A collection's shape: every key of its parents as `*` (`project["*"].webhooks`). */
export const collectionShape = (collection: string): string =>
  collection.replace(/\["(?:[^"\\]|\\.)*"\]/g, '["*"]');

/**
 * Issue 45: updates and replaces per org and collection shape, against the live items of
 * that shape (a template edit that rewrites 300 of 1,000 projects' settings is 300 of
 * `project["*"].settings`' 1,000). Only shapes with an update; empty (and cheap: no pass
 * over the collections) when the plan updates nothing.
 */
const updateVolumes = (
  changes: readonly Change[],
  collections: FinishInput["collections"],
): UpdateVolume[] => {
  const counts = new Map<string, { org: string; collection: string; n: number }>();
  for (const c of changes) {
    if (c.action !== "update" && c.action !== "replace") continue;
    const shape = collectionShape(c.collection);
    const k = key(c.org, shape);
    const had = counts.get(k);
    if (had === undefined) counts.set(k, { org: c.org, collection: shape, n: 1 });
    else had.n += 1;
  }
  if (counts.size === 0) return [];
  const live = new Map<string, number>();
  for (const col of collections) {
    const k = key(col.org, collectionShape(col.collection));
    if (counts.has(k)) live.set(k, (live.get(k) ?? 0) + col.live_count);
  }
  return [...counts.entries()].map(([k, v]) => ({
    org: v.org,
    collection: v.collection,
    live_count: live.get(k) ?? 0,
    update_count: v.n,
  }));
};

/**
 * Issue 22: the V2 budget (spec: api-v2-v1.md Limits: 5,000 requests per hour per token) is
 * shared by every V2 call of an apply. When the plan's own V2 calls exceed it, say so: the
 * apply will not fail, it paces (src/api/route-scheduler.ts), and it takes at least an hour
 * per budget past the first. Decision: the count is the plan's calls only — the reads an
 * apply makes again and other users of the token spend the same budget, so the note says
 * "at least".
 */
export const v2BudgetWarning = (changes: readonly Change[]): string | undefined => {
  let calls = 0;
  for (const c of changes) for (const call of c.calls) if (call.api === "v2") calls += 1;
  if (calls <= V2_REQUESTS_PER_HOUR) return undefined;
  const hours = Math.ceil(calls / V2_REQUESTS_PER_HOUR) - 1;
  return (
    `this plan makes ${calls.toLocaleString("en-US")} V2 API calls; the service allows ` +
    `${V2_REQUESTS_PER_HOUR.toLocaleString("en-US")} an hour per token (the API reference, V2 "Limits"): ` +
    `apply paces them rather than fail, so it takes at least ${hours} hour${hours === 1 ? "" : "s"}` +
    " (apply's own reads and other users of the token spend the same budget)"
  );
};
