/**
 * The plan: what `plan` prints and saves and `apply` runs (design.md §1 "Plans").
 * Plain JSON data (no Secret, no Map), so it renders, saves and compares as it is; every
 * secret is `(sensitive)`. `schemas/plan.schema.json` describes the same shape and a test
 * keeps the two in step.
 */

import type { ApiCall, FieldChange, ReplaceOrder, ResourceKind } from "../kinds/contract.js";
import type { JsonObject } from "../kinds/values.js";
import type { ResourceType } from "../model/address.js";
import type { BlockedGuard, PolicyViolation } from "../model/policy.js";
import type { PlanScope, ScopedAddress } from "./scope.js";

export type Action = "create" | "update" | "replace" | "delete";

/**
 * A value a call's `{placeholder}` takes: a literal (a live id, a name), or the id of an
 * item that another change of this plan creates (`{ pending: address }`), known only
 * once that change has run.
 */
export type ParamValue = string | { readonly pending: string };

interface ChangeBase {
  readonly address: string;
  readonly resource_type: ResourceType;
  /** The org slug the address lives in (addresses are unique within an org). */
  readonly org: string;
  /**
   * The collection the item belongs to, for the mass-delete guard and ownership
   * (`contexts`, `context["x"].env`, `project["p"].webhooks`, ...).
   */
  readonly collection: string;
  /** Why the change is planned, in one sentence. */
  readonly reason: string;
  readonly before: JsonObject | null;
  readonly after: JsonObject | null;
  readonly fields: readonly FieldChange[];
  /** Values of the calls' placeholders: org_id, project_id, context_id, pipeline_id, id, name. */
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Addresses of other changes this one needs first (parents created in the same apply). */
  readonly depends_on: readonly string[];
  /** The calls, in order. A replace holds its delete and create calls (see `phase`). */
  readonly calls: readonly ApiCall[];
  /**
   * Secret fields whose value was not resolved (`--skip-secrets`): on a create they are
   * still planned, but the plan cannot be saved or applied.
   */
  readonly unresolved_secrets?: readonly string[];
  /** What the plan says about the live item besides its fields (src/kinds/contract.ts). */
  readonly notes?: readonly string[];
}

export interface CreateChange extends ChangeBase {
  readonly action: "create";
  readonly before: null;
  readonly after: JsonObject;
}

export interface UpdateChange extends ChangeBase {
  readonly action: "update";
  readonly before: JsonObject;
  readonly after: JsonObject;
  /** The live id, when the kind has one. */
  readonly id?: string;
}

export interface ReplaceChange extends ChangeBase {
  readonly action: "replace";
  readonly before: JsonObject;
  readonly after: JsonObject;
  readonly id?: string;
  /** Which half runs first (src/plan/order.ts). */
  readonly replace_order: Exclude<ReplaceOrder, "never">;
}

export interface DeleteChange extends ChangeBase {
  readonly action: "delete";
  readonly before: JsonObject;
  readonly after: null;
  readonly id?: string;
  /** A context delete: how many env vars (secrets) it destroys; null when not known. */
  readonly destroys_secrets?: number | null;
}

export type Change = CreateChange | UpdateChange | ReplaceChange | DeleteChange;

export interface Summary {
  readonly create: number;
  readonly update: number;
  readonly replace: number;
  readonly delete: number;
}

/**
 * Mass-delete guard data of one collection (design.md §1 "Ownership"). Only collections
 * with a delete or a replace.
 */
export interface CollectionGuard {
  readonly org: string;
  readonly collection: string;
  readonly live_count: number;
  /** Live items the plan removes: its deletes and its replaces (a replace deletes the live item). */
  readonly delete_count: number;
  /** How many of `delete_count` are replaces; absent when none. */
  readonly replace_count?: number;
  /** More than 3 deletions and more than 25% of the live items: apply refuses (exit 4). */
  readonly exceeds: boolean;
}

/**
 * A delete or replace that destroys more than its item (a group's members and role grants,
 * issue 17; the kind's `destroys`): apply needs `--allow-mass-delete` for any of them.
 */
export interface DestroyGuard {
  readonly org: string;
  readonly address: string;
  readonly resource_type: ResourceType;
  readonly action: "delete" | "replace";
  /** What goes with it, in words. */
  readonly destroys: string;
}

/**
 * Issue 45: the updates (and replaces) of one org's collections of one shape, every parent
 * key as `*` (`project["*"].settings`: every project's settings), for the volume guard.
 * Only shapes with at least one update or replace.
 */
export interface UpdateVolume {
  readonly org: string;
  readonly collection: string;
  /** Live items of the shape that were read (the collections' sizes, summed). */
  readonly live_count: number;
  readonly update_count: number;
}

export interface Guards {
  /** Only collections with at least one deletion. */
  readonly mass_delete: readonly CollectionGuard[];
  /** True when any collection exceeds the limit: apply needs `--allow-mass-delete`. */
  readonly mass_delete_exceeded: boolean;
  /** Present when some change destroys more than its item; apply needs `--allow-mass-delete`. */
  readonly destroys?: readonly DestroyGuard[];
  /** Issue 45: update volume per collection shape; present when the plan updates anything. */
  readonly updates?: readonly UpdateVolume[];
  /**
   * Issue 45: what apply refuses (exit 4) unless a flag or `guards.allow` lets it through:
   * volume guards and risky transitions, risky ones first. Present when there are some.
   */
  readonly blocked?: readonly BlockedGuard[];
}

/**
 * A live item Waybill cannot name (design.md §5 "Reading the real service"): listed, never
 * updated or deleted; the kind's `unknown` says why.
 */
export interface UnknownItem {
  readonly address: string;
  readonly resource_type: ResourceType;
  readonly reason: string;
  /** Its live id, when it has one: with the address, what a `delete_unknown` entry names. */
  readonly id?: string;
}

/** A live item `keep_unlisted` left alone (issue 19): not in the config, not deleted. */
export interface KeptUnlisted {
  readonly address: string;
  readonly resource_type: ResourceType;
}

export interface Plan {
  readonly format_version: 1;
  /**
   * The plan digest (src/plan/digest.ts; design.md §5 "Scoped plans and the reviewed plan"): 32 hex digits naming the change set
   * and the config it was planned from, the same whatever the files' order. `apply
   * --expect-digest` applies only a plan with this digest. Empty only in a plan file saved
   * by a Waybill before it (src/apply/saved-plan.ts).
   */
  readonly digest: string;
  /** The orgs planned, slug and id. */
  readonly orgs: readonly { readonly slug: string; readonly id: string }[];
  readonly changes: readonly Change[];
  readonly summary: Summary;
  /** Secrets left alone because they cannot be verified (same last four, or not returned). */
  readonly unverified_secrets: number;
  /** Addresses and fields of the unverified secrets, `address#field`. */
  readonly unverified: readonly string[];
  /** Secrets not compared because they were not resolved (`--skip-secrets`). */
  readonly skipped_secrets: number;
  /** False when the plan was made without some secrets: it cannot be saved or applied. */
  readonly saveable: boolean;
  readonly warnings: readonly string[];
  readonly guards: Guards;
  /** The `--target` globs, when given. */
  readonly targets?: readonly string[];
  /** The `--exclude` globs, when given (design.md §5 "Scoped plans and the reviewed plan"). */
  readonly excludes?: readonly string[];
  /**
   * `--changed-since REF` (design.md §5): a partial plan's scope, the addresses changed since
   * REF; present only on a partial plan. Drift elsewhere was not read.
   */
  readonly scope?: PlanScope;
  /**
   * Live items the config does not list that `keep_unlisted` left alone (issue 19); present
   * only when there are some. Drift reports them as unmanaged.
   */
  readonly kept_unlisted?: readonly KeptUnlisted[];
  /**
   * Live items Waybill cannot name (`UnknownItem`), sorted by address; present only when
   * there are some. No change of the plan touches them.
   */
  readonly unknown?: readonly UnknownItem[];
  /**
   * Issue 45: what the config's `on: plan` policies and `--policy-cmd` found; present when
   * there are some (errors first).
   */
  readonly policy_violations?: readonly PolicyViolation[];
  /**
   * Fields that differ but `ignore_fields` leaves alone (issue 41), by address and field
   * path (never a value); present only when there are some. Drift counts them.
   */
  readonly ignored_fields?: readonly IgnoredField[];
}

/** A field of an existing item that differs and that `ignore_fields` leaves alone. */
export interface IgnoredField {
  readonly address: string;
  readonly path: string;
}

export interface PlanOptions {
  /**
   * The kinds the planner walks: the registry's (src/kinds/registry.ts) unless a test gives
   * a copy with a kind of its own (the fixture kind of test/unit/kind-references.test.ts).
   */
  readonly kinds?: readonly ResourceKind<unknown, unknown>[];
  /** `--target` globs: addresses and everything inside them, plus what they depend on. */
  readonly targets?: readonly string[];
  /** `--exclude` globs: addresses (and everything inside them) left out, with their dependents. */
  readonly excludes?: readonly string[];
  /**
   * `--changed-since` (src/plan/scope.ts): only the changes at these addresses (or inside
   * them) and what they depend on are kept; the plan carries the scope and its digest covers it.
   */
  readonly scope?: PlanScope;
  /**
   * Apply's re-read under the lock: the same selection by addresses as `scope`, but not part
   * of the plan (the plan it re-checks is the one shown, with the same digest).
   */
  readonly within?: readonly ScopedAddress[];
  /** `--force-secrets` globs: [] none, ["*"] all. */
  readonly forceSecrets?: readonly string[];
  /** `plan --skip-secrets`: unresolved secrets are allowed and the plan is unsaveable. */
  readonly skipSecrets?: boolean;
  /**
   * `plan --show-urls` (design.md §4 "Integration"): keep webhook URLs in full. Off by
   * default: every URL is masked in the plan (src/plan/mask-urls.ts).
   */
  readonly showUrls?: boolean;
  /**
   * `planConfigDigest(desired.orgs)` (src/plan/digest.ts), for the plan digest; computed
   * from the config when absent. The caller that plans several times computes it once.
   */
  readonly configDigest?: string;
}
