/**
 * The planner's shared state and types: the run's accumulator, an org's planning context,
 * the walk's nodes and the collection spec the diff takes (the parts of src/plan/plan.ts).
 */

import type { KindEnv, ParentName, PlanParents, ResourceKind } from "../kinds/contract.js";
import { mergeOrgDeclarations } from "../kinds/org-merge.js";
import type { Kinds } from "../kinds/references.js";
import { ALL_KINDS } from "../kinds/registry.js";
import {
  type AddressSegment,
  ancestorsOf,
  childAddress,
  compileAddressGlob,
  normalAddress,
} from "../model/address.js";
import type { DesiredDeleteUnknown, DesiredMove, DesiredOrg } from "../model/desired.js";
import { type FieldIgnored, fieldIgnoredMatcher } from "./ignore-fields.js";
import type {
  Change,
  IgnoredField,
  KeptUnlisted,
  ParamValue,
  PlanOptions,
  UnknownItem,
} from "./types.js";

/**
 * Compiled address globs: a glob selects an address when it matches it or an ancestor.
 * Decision: `--force-secrets GLOB` and `ignore` use the same rule as `--target`, so
 * `context["prod"]` covers that context's env vars.
 */
export const globMatcher = (globs: readonly string[]): ((address: string) => boolean) => {
  const res = globs.map(compileAddressGlob);
  if (res.length === 0) return () => false;
  return (address) => {
    if (res.some((r) => r.test(address))) return true;
    return ancestorsOf(address).some((a) => res.some((r) => r.test(a)));
  };
};

/** What the whole run accumulates (local to one planChanges call). */
export interface Acc {
  readonly changes: Change[];
  readonly unverified: string[];
  readonly warnings: string[];
  skipped: number;
  unresolvedCreates: number;
  readonly collections: Map<string, { org: string; collection: string; live_count: number }>;
  /** Live items `keep_unlisted` kept from a delete (the plan's `kept_unlisted`). */
  readonly kept: KeptUnlisted[];
  /** Fields `ignore_fields` left out of a comparison though they differ (issue 41). */
  readonly ignoredFields: IgnoredField[];
  /** Live items no kind can name (the plan's `unknown`). */
  readonly unknown: UnknownItem[];
  /** The `delete_unknown` entries a delete was planned for (`deleteUnknownKey`). */
  readonly deletedUnknown: string[];
  /**
   * `org \0 id` of every live item read in a collection whose kind can hold unknown items
   * (named or not): tells a `delete_unknown` entry whose item is gone from one that names
   * something else.
   */
  readonly liveIdsOfUnknownKinds: string[];
}

export interface OrgCtx {
  readonly slug: string;
  /** The kinds the walk visits (the registry's unless a test gives its own). */
  readonly kinds: Kinds;
  readonly env: Omit<KindEnv, "forceSecrets">;
  readonly ignored: (address: string) => boolean;
  /** `ignore_fields` (issue 32): fields of existing items the plan leaves alone. */
  readonly fieldIgnored: FieldIgnored;
  /** `keep_unlisted`: an unlisted live item at this address is left alone, not deleted. */
  readonly keptUnlisted: (address: string) => boolean;
  /** `moved` entries by their `to` address. */
  readonly moves: ReadonlyMap<string, DesiredMove>;
  /** `delete_unknown` entries by `deleteUnknownKey` (address as the planner writes it, id). */
  readonly deleteUnknown: ReadonlyMap<string, DesiredDeleteUnknown>;
  readonly forced: (address: string) => boolean;
  readonly skipSecrets: boolean;
  readonly acc: Acc;
}

/** One collection to diff: a kind, its parent and its items. */
export interface CollectionSpec<D, L> {
  readonly kind: ResourceKind<D, L>;
  /** Collection name for guards (`contexts`, `context["x"].env`). */
  readonly collection: string;
  /** The item address from its key. */
  readonly address: (key: string) => string;
  /** The YAML key of a desired item (its address key). */
  readonly desiredAddressKey: (d: D) => string;
  /** undefined: the collection is not managed. */
  readonly desired: readonly D[] | undefined;
  /** undefined: not read (an error when managed, unless the parent is new). */
  readonly live: readonly L[] | undefined;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Address of a parent created or replaced by this plan. */
  readonly pendingParent?: string;
  /** Extra params per item (env var `name`). */
  readonly itemParams?: (key: string) => Readonly<Record<string, ParamValue>>;
  /** Overrides the kind's replace order (webhooks at the project maximum). */
  readonly replaceOrder?: "create_before_delete" | "delete_before_create";
  /** Matched items must be replaced for this reason (the parent is replaced). */
  readonly forcedReplace?: string;
  /** Reason for deleting an unmatched live item. */
  readonly deleteReason?: string;
  /** More to say on a delete (a context: the secrets it destroys), appended to its reason. */
  readonly deleteExtra?: (l: L) => { destroys_secrets: number | null; note: string };
  /**
   * False when the config does not own the collection (live items it does not list are
   * kept): several live items on one key are then an error for that item, never a guess.
   * Every collection planned today is owned (a present collection key is authoritative,
   * design.md §1 "Ownership").
   */
  readonly owned?: boolean;
  /**
   * How much of a live item would be lost by removing it (a context's env vars, a
   * pipeline's triggers): among same-key live items that match the config equally well,
   * the one holding more is kept.
   */
  readonly holds?: (l: L) => number;
}

export interface Matched<D, L> {
  readonly desired: D;
  readonly live: L | undefined;
  readonly address: string;
  readonly action: "create" | "update" | "replace" | "none";
}

/**
 * Merge several `DesiredOrg` entries with one slug (a folder of files sharing an org).
 * Decision: their collections are unioned (the loader has already refused an address
 * declared twice); a collection present in any of the files is managed.
 */
export const mergeOrgs = (orgs: readonly DesiredOrg[]): DesiredOrg[] => {
  const bySlug = new Map<string, DesiredOrg>();
  for (const o of orgs) {
    const prev = bySlug.get(o.slug);
    bySlug.set(o.slug, prev === undefined ? o : mergeOrgDeclarations(prev, o, "overlay"));
  }
  return [...bySlug.values()];
};

/** A parent of the walk: the org, a project, or a matched item of a kind with children. */
export interface WalkNode {
  readonly name: ParentName;
  readonly desired: PlanParents[ParentName]["desired"];
  /** The parent's live item; undefined when the plan creates it. */
  readonly live: PlanParents[ParentName]["live"] | undefined;
  /** The parent's address (`""` for the org). */
  readonly address: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** The parent's address when the plan creates or replaces it (its children wait for it). */
  readonly pending?: string;
  /** The parent is replaced: its live children cannot outlive the old one. */
  readonly replaced: boolean;
}

export type AnyKind = ResourceKind<unknown, unknown>;

export const itemAddress = (node: WalkNode, kind: AnyKind, key: string): string =>
  childAddress(
    node.address,
    kind.collection.segment.keyed
      ? { name: kind.collection.segment.name, key }
      : { name: kind.collection.segment.name },
  );

/** An empty accumulator. */
export const newAcc = (): Acc => ({
  changes: [],
  unverified: [],
  warnings: [],
  skipped: 0,
  unresolvedCreates: 0,
  collections: new Map(),
  kept: [],
  ignoredFields: [],
  unknown: [],
  deletedUnknown: [],
  liveIdsOfUnknownKinds: [],
});

/** Add what one project's planning accumulated to the whole run's (in place, in order). */
export const mergeAcc = (into: Acc, part: Acc): void => {
  for (const c of part.changes) into.changes.push(c);
  for (const u of part.unverified) into.unverified.push(u);
  for (const w of part.warnings) into.warnings.push(w);
  into.skipped += part.skipped;
  into.unresolvedCreates += part.unresolvedCreates;
  for (const [k, v] of part.collections) into.collections.set(k, v);
  for (const k of part.kept) into.kept.push(k);
  for (const f of part.ignoredFields) into.ignoredFields.push(f);
  for (const u of part.unknown) into.unknown.push(u);
  for (const k of part.deletedUnknown) into.deletedUnknown.push(k);
  for (const k of part.liveIdsOfUnknownKinds) into.liveIdsOfUnknownKinds.push(k);
};

/** A `delete_unknown` entry's key: the org, the address as the planner writes it, the id. */
export const deleteUnknownKey = (org: string, address: string, id: string): string =>
  `${org}\u0000${normalAddress(address)}\u0000${id}`;

/** The parts of an org's planning context that depend on the config and options only. */
export const orgStatics = (
  org: DesiredOrg,
  forced: (address: string) => boolean,
  options: PlanOptions,
): Omit<OrgCtx, "env" | "acc"> => ({
  slug: org.slug,
  kinds: options.kinds ?? ALL_KINDS,
  ignored: globMatcher(org.ignore),
  fieldIgnored: fieldIgnoredMatcher(org.ignore_fields),
  keptUnlisted: globMatcher(org.keep_unlisted ?? []),
  // Keyed by the address as the planner writes it, whatever spacing the config used.
  moves: new Map((org.moved ?? []).map((m) => [normalAddress(m.to), m])),
  deleteUnknown: new Map(
    (org.delete_unknown ?? []).map((e) => [deleteUnknownKey(org.slug, e.address, e.id), e]),
  ),
  forced,
  skipSecrets: options.skipSecrets ?? false,
});
