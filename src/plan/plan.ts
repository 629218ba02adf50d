/**
 * The planner: desired × live → Plan. PURE: no I/O, no clock, no environment
 * (conventions.md §1). Rules from design.md §1: Identity, Ownership, Secrets, Plans.
 * Inputs are never mutated.
 */

import { formatLocation, PlanError } from "../core/errors.js";
import { resolvedSecretValues } from "../core/secret.js";
import { isUuid } from "../core/uuid.js";
import type {
  ApiCall,
  Comparison,
  KindEnv,
  ParentName,
  PlanParents,
  ResourceKind,
  Within,
} from "../kinds/contract.js";
import { mergeOrgDeclarations } from "../kinds/org-merge.js";
import { type Kinds, referenceResolver, referencesOnDeletedItems } from "../kinds/references.js";
import { ALL_KINDS, childKindsIn, KINDS } from "../kinds/registry.js";
import { maskLike } from "../kinds/values.js";
import {
  type AddressSegment,
  addr,
  ancestorsOf,
  compileAddressGlob,
  formatAddress,
  parseAddress,
} from "../model/address.js";
import type {
  DesiredConfig,
  DesiredMove,
  DesiredOrg,
  DesiredProject,
  Located,
} from "../model/desired.js";
import type { LiveOrg, LiveProject, LiveState, NotVisible } from "../model/live.js";
import { finishPlan } from "./finish.js";
import { type FieldIgnored, fieldIgnoredMatcher, withoutIgnoredFields } from "./ignore-fields.js";
import { ambiguityMessage, keyedDiff } from "./keyed-diff.js";
import { maskLiveSecrets } from "./mask-live.js";
import { maskPlanUrls } from "./mask-urls.js";
import type { Change, KeptUnlisted, ParamValue, Plan, PlanOptions } from "./types.js";

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
interface Acc {
  readonly changes: Change[];
  readonly unverified: string[];
  readonly warnings: string[];
  skipped: number;
  unresolvedCreates: number;
  readonly collections: Map<string, { org: string; collection: string; live_count: number }>;
  /** Live items `keep_unlisted` kept from a delete (the plan's `kept_unlisted`). */
  readonly kept: KeptUnlisted[];
}

interface OrgCtx {
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
  readonly forced: (address: string) => boolean;
  readonly skipSecrets: boolean;
  readonly acc: Acc;
}

/** One collection to diff: a kind, its parent and its items. */
interface CollectionSpec<D, L> {
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

interface Matched<D, L> {
  readonly desired: D;
  readonly live: L | undefined;
  readonly address: string;
  readonly action: "create" | "update" | "replace" | "none";
}

const DELETE_REASON = "not in the config, and the config manages this collection";

/**
 * Why a same-key live item is removed (design.md §1 "Identity"). Decision: the kept item is
 * the one whose fields equal the config, else the one needing the fewest changes (a replace
 * counts as more than any update), else the one holding more children (env vars,
 * triggers), else the lowest id. So the leftover of an interrupted replace (the new item
 * matches the config, the old one does not) converges to the new one, and a webhook whose
 * signing secret Waybill set is kept over one without a secret (a missing secret is a
 * field change, an unverifiable one is not).
 */
const surplusReason = (
  count: number,
  keptId: string | undefined,
  why: "equal" | "closer" | "tie",
): string =>
  `surplus: ${count} live items share this key; keeping ${keptId ?? "the best match"} (${
    why === "equal"
      ? "its fields equal the config"
      : why === "closer"
        ? "it needs fewer changes to match the config"
        : "it matches the config as well as this one, and has the lowest id"
  }) and removing this one, a leftover of an interrupted replace, a re-sent create or a concurrent run`;

const diffCollection = <D, L>(
  ctx: OrgCtx,
  spec: CollectionSpec<D, L>,
): {
  matched: Matched<D, L>[];
  deleted: { live: L; address: string }[];
  created: Change[];
} => {
  const { kind, acc } = { kind: spec.kind, acc: ctx.acc };
  if (spec.desired === undefined) return { matched: [], deleted: [], created: [] };
  if (spec.live === undefined && spec.pendingParent === undefined) {
    throw new PlanError(
      `${spec.collection}: the live collection was not read, so it cannot be planned`,
    );
  }
  // An ignored desired item still takes part in matching, so the live item it names is not
  // mistaken for an undeclared one (a vcs trigger's live address is not its YAML key);
  // both are then left out of the plan.
  const desired = spec.desired;
  const ignoredDesired = new Set<D>();
  // Decision: an item both declared and ignored is not planned (ignore wins) and the plan
  // warns, so a broad ignore glob cannot silently hide a config mistake.
  for (const d of desired) {
    const a = spec.address(spec.desiredAddressKey(d));
    if (!ctx.ignored(a)) continue;
    ignoredDesired.add(d);
    acc.warnings.push(`${a} is declared but excluded by \`ignore\`: it is not planned`);
  }
  const liveAll = spec.live ?? [];
  const live = liveAll.filter((l) => !ctx.ignored(spec.address(kind.liveAddressKey(l))));
  const guardKey = `${ctx.slug}\u0000${spec.collection}`;
  acc.collections.set(guardKey, {
    org: ctx.slug,
    collection: spec.collection,
    live_count: live.length,
  });

  const envOf = (d: D): KindEnv => ({
    ...ctx.env,
    forceSecrets: ctx.forced(spec.address(spec.desiredAddressKey(d))),
  });
  // Issue 19 `moved`: the live item at `from` takes the declared name before matching, so
  // it matches the item declared at `to` and is renamed in place (an update), not deleted
  // and created again.
  const moves = applyMoves(ctx, spec, desired, live);
  const diff = keyedDiff({
    desired,
    live: moves.live,
    desiredKey: (d) => kind.desiredKey(d, ctx.env),
    liveKey: (l) => kind.liveKey(l),
    liveId: (l) => kind.liveId(l),
    pinnedId: (d) => kind.pinnedId(d),
    ...(kind.tiebreak ? { tiebreak: (d: D, l: L) => kind.tiebreak?.(d, l) ?? false } : {}),
    describe: (d) => spec.address(spec.desiredAddressKey(d)),
    owned: spec.owned ?? true,
    rank: (d, l) => {
      const cmp = withoutIgnoredFields(
        kind.compare(d, l, envOf(d)),
        spec.address(spec.desiredAddressKey(d)),
        ctx.fieldIgnored,
      );
      return [cmp.replace_reasons.length > 0 ? 1 : 0, cmp.fields.length, -(spec.holds?.(l) ?? 0)];
    },
  });
  for (const a of diff.ambiguous) {
    // Unreachable while every planned collection is owned; kept so a collection that is
    // not owned can never guess.
    throw new PlanError(
      ambiguityMessage(spec.address(spec.desiredAddressKey(a.desired)), a.candidates, (l) =>
        kind.liveId(l),
      ),
    );
  }

  const base = (address: string, key: string) => ({
    address,
    resource_type: kind.type,
    org: ctx.slug,
    collection: spec.collection,
    depends_on: spec.pendingParent === undefined ? [] : [spec.pendingParent],
    params: { ...spec.params, ...(spec.itemParams?.(key) ?? {}) },
  });
  /**
   * Issue 17: the ids an item takes from other items (a restriction's or an SSO mapping's
   * group by name) join its params; one that this plan creates makes the change wait for it.
   */
  const withRefs = (
    b: Pick<Change, "params" | "depends_on">,
    d: D,
    env: KindEnv,
  ): Pick<Change, "params" | "depends_on"> => {
    const refs = kind.refParams?.(d, env) ?? {};
    const waits = Object.values(refs).flatMap((v) => (typeof v === "string" ? [] : [v.pending]));
    return { params: { ...b.params, ...refs }, depends_on: [...b.depends_on, ...waits] };
  };

  const matched: Matched<D, L>[] = [];
  const created: Change[] = [];
  for (const { desired: d, live: l } of diff.pairs) {
    if (ignoredDesired.has(d)) continue;
    const key = spec.desiredAddressKey(d);
    const address = spec.address(key);
    const env: KindEnv = { ...ctx.env, forceSecrets: ctx.forced(address) };
    const unresolved = kind.unresolvedSecrets(d);
    // Decision: an unresolved secret outside `--skip-secrets` is an error, never a guess
    // (the loader normally reports it first, listing every missing name).
    if (unresolved.length > 0 && !ctx.skipSecrets) {
      throw new PlanError(
        `${address}: ${unresolved.join(", ")} has no value (only \`plan --skip-secrets\` plans without secrets)`,
      );
    }
    if (l === undefined) {
      if (unresolved.length > 0) acc.unresolvedCreates += 1;
      const b = base(address, key);
      const change: Change = {
        ...b,
        ...withRefs(b, d, env),
        action: "create",
        reason: fromTemplate(d, "not in the live state"),
        before: null,
        after: kind.desiredView(d, env),
        fields: [],
        calls: kind.createCalls(d),
        ...(unresolved.length > 0 ? { unresolved_secrets: unresolved } : {}),
      };
      acc.changes.push(change);
      created.push(change);
      matched.push({ desired: d, live: undefined, address, action: "create" });
      continue;
    }
    const move = moves.renamed.get(l);
    const compared: Comparison = withoutIgnoredFields(
      kind.compare(d, l, env),
      address,
      ctx.fieldIgnored,
    );
    // A moved item: its name is one more field of the update (the kind's rename field).
    const cmp: Comparison =
      move === undefined
        ? compared
        : {
            ...compared,
            fields: [
              { path: move.field, before: move.fromKey, after: move.toKey },
              ...compared.fields,
            ],
            notes: [
              `renamed in place from ${move.from} (moved): it keeps its id ${kind.liveId(l) ?? ""}`.trimEnd(),
              ...(compared.notes ?? []),
            ],
          };
    const liveBefore = move?.original ?? l;
    const id = kind.liveId(l);
    const notes = cmp.notes ?? [];
    const noted = notes.length > 0 ? { notes } : {};
    const withNotes = (reason: string): string =>
      fromTemplate(d, notes.length > 0 ? `${reason}; ${notes.join("; ")}` : reason);
    const params = { ...base(address, key).params, ...(id === undefined ? {} : { id }) };
    const reasons = [...cmp.replace_reasons];
    if (spec.forcedReplace !== undefined) reasons.unshift(spec.forcedReplace);
    // A replaced item is created again with every secret, so none of them stays unverified.
    if (reasons.length === 0) {
      for (const path of cmp.unverified) acc.unverified.push(`${address}#${path}`);
    }
    acc.skipped += cmp.skipped.length;
    if (reasons.length > 0) {
      const order =
        spec.replaceOrder ??
        (kind.replaceOrder === "never" ? "delete_before_create" : kind.replaceOrder);
      const del = kind.deleteCalls();
      const create = kind.createCalls(d);
      const calls: ApiCall[] =
        order === "create_before_delete" ? [...create, ...del] : [...del, ...create];
      if (unresolved.length > 0) acc.unresolvedCreates += 1;
      acc.changes.push({
        ...base(address, key),
        params,
        action: "replace",
        reason: withNotes(reasons.join("; ")),
        before: maskLike(kind.liveView(liveBefore), kind.desiredView(d, env)),
        after: kind.desiredView(d, env),
        fields: cmp.fields,
        calls,
        replace_order: order,
        ...noted,
        ...(id === undefined ? {} : { id }),
        ...(unresolved.length > 0 ? { unresolved_secrets: unresolved } : {}),
      });
      matched.push({ desired: d, live: l, address, action: "replace" });
      continue;
    }
    if (cmp.fields.length > 0) {
      const b = base(address, key);
      acc.changes.push({
        ...b,
        ...withRefs({ ...b, params }, d, env),
        action: "update",
        reason: withNotes(
          `${cmp.fields.length === 1 ? "1 field differs" : `${cmp.fields.length} fields differ`}: ${cmp.fields.map((f) => f.path).join(", ")}`,
        ),
        before: maskLike(kind.liveView(liveBefore), kind.desiredView(d, env)),
        after: kind.desiredView(d, env),
        fields: cmp.fields,
        calls: kind.updateCalls(cmp.fields),
        ...noted,
        ...(id === undefined ? {} : { id }),
      });
      matched.push({ desired: d, live: l, address, action: "update" });
      continue;
    }
    matched.push({ desired: d, live: l, address, action: "none" });
  }

  const deleted: { live: L; address: string }[] = [];
  // Issue 19 `keep_unlisted`: a live item the config does not list, under one of its globs,
  // is left alone (drift reports it). Decision: a surplus duplicate of a listed key is still
  // deleted — the config lists its key, and it is a leftover of an interrupted replace.
  const unlisted = diff.unmatched.filter((l) => {
    const address = spec.address(kind.liveAddressKey(l));
    if (!ctx.keptUnlisted(address)) return true;
    acc.kept.push({ address, resource_type: kind.type });
    return false;
  });
  const gone: { live: L; reason: string; like?: D }[] = [
    ...unlisted.map((l) => ({ live: l, reason: spec.deleteReason ?? DELETE_REASON })),
    ...diff.surplus.map((sp) => {
      const count = diff.surplus.filter((o) => o.kept === sp.kept).length + 1;
      const keptCmp = kind.compare(sp.desired, sp.kept, envOf(sp.desired));
      const equal = keptCmp.fields.length === 0 && keptCmp.replace_reasons.length === 0;
      const why = sp.tie ? "tie" : equal ? "equal" : "closer";
      // Shown like the declared item it duplicates: a url that is a secret in the config
      // is masked on its surplus too.
      return {
        live: sp.live,
        reason: surplusReason(count, kind.liveId(sp.kept), why),
        like: sp.desired,
      };
    }),
  ];
  const seen = new Map<string, number>();
  for (const { live: l } of gone)
    seen.set(kind.liveAddressKey(l), (seen.get(kind.liveAddressKey(l)) ?? 0) + 1);
  const desiredKeys = new Set(desired.map((d) => spec.desiredAddressKey(d)));
  for (const { live: l, reason, like } of gone) {
    let key = kind.liveAddressKey(l);
    const id = kind.liveId(l);
    // Decision: a deleted live item whose key another item of the collection also has (two
    // undeclared duplicates, a surplus, or the one an `id:` pin left out) gets `#<id>` in
    // its address key, so every change has its own address.
    if (((seen.get(key) ?? 0) > 1 || desiredKeys.has(key)) && id !== undefined) {
      key = `${key}#${id}`;
    }
    const address = spec.address(key);
    const extra = spec.deleteExtra?.(l);
    acc.changes.push({
      ...base(address, key),
      params: { ...base(address, key).params, ...(id === undefined ? {} : { id }) },
      action: "delete",
      reason: extra === undefined ? reason : `${reason}; ${extra.note}`,
      ...(extra === undefined ? {} : { destroys_secrets: extra.destroys_secrets }),
      before:
        like === undefined
          ? kind.liveView(l)
          : maskLike(kind.liveView(l), kind.desiredView(like, envOf(like))),
      after: null,
      fields: [],
      calls: kind.deleteCalls(),
      ...(id === undefined ? {} : { id }),
    });
    deleted.push({ live: l, address });
  }
  renameHints(ctx, spec, diff.unmatched, created, desired);
  return { matched, deleted, created };
};

/**
 * Issue 19: the plan's "why" of an item that inherits from a template names both places:
 * the item's line and the template's (the loader's `source.via`). Desired items carry their
 * `source` (src/model/desired.ts Located); a kind's item without one is left as it is.
 */
const fromTemplate = (d: unknown, reason: string): string => {
  const source = (d as Partial<Located>).source;
  const via = source?.via;
  return via === undefined || source === undefined
    ? reason
    : `${reason} (declared at ${formatLocation(source)}, inherited from ${via})`;
};

/** A live item `moved` renamed for matching, and what it was. */
interface Renamed<L> {
  readonly original: L;
  readonly from: string;
  readonly fromKey: string;
  readonly toKey: string;
  /** The compared path of its name (the kind's `rename.field`). */
  readonly field: string;
}

/**
 * Issue 19 `moved`, for one collection: each declared item at a `to` address whose live item
 * still has the `from` key is matched with that live item, relabelled with the new name.
 * Decision (as Terraform): a `from` that no live item has is a no-op (the rename is done, or
 * the item is new), so entries may stay in the config; when both the `from` and the `to`
 * item exist live, the entry is ignored with a warning (a rename would clash).
 */
const applyMoves = <D, L>(
  ctx: OrgCtx,
  spec: CollectionSpec<D, L>,
  desired: readonly D[],
  live: readonly L[],
): { live: readonly L[]; renamed: ReadonlyMap<L, Renamed<L>> } => {
  const renamed = new Map<L, Renamed<L>>();
  const kind = spec.kind;
  if (ctx.moves.size === 0 || !kind.rename.can) return { live, renamed };
  const rename = kind.rename;
  const out = [...live];
  for (const d of desired) {
    const toKey = spec.desiredAddressKey(d);
    const move = ctx.moves.get(spec.address(toKey));
    if (move === undefined) continue;
    const fromKey = lastKey(move.from);
    if (fromKey === undefined) continue;
    const at = out.findIndex((l) => kind.liveAddressKey(l) === fromKey);
    if (at < 0) continue;
    if (out.some((l) => kind.liveAddressKey(l) === toKey)) {
      ctx.acc.warnings.push(
        `moved ${move.from} → ${move.to} is ignored: both exist live, so a rename would clash; delete one, or remove the entry`,
      );
      continue;
    }
    const original = out[at] as L;
    const relabelled = rename.relabel(original, toKey);
    if (kind.liveAddressKey(relabelled) !== toKey) {
      ctx.acc.warnings.push(
        `moved ${move.from} → ${move.to} is ignored: this ${kind.type} has no name the API can change (a vcs trigger is identified by its repo)`,
      );
      continue;
    }
    out[at] = relabelled;
    renamed.set(relabelled, {
      original,
      from: move.from,
      fromKey,
      toKey,
      field: rename.field(original),
    });
  }
  return { live: out, renamed };
};

/** An address as formatAddress writes it (the loader has checked that it parses). */
const normalAddress = (address: string): string => {
  const segments = parseAddress(address);
  return segments === undefined ? address : formatAddress(segments);
};

const lastKey = (address: string): string | undefined => {
  const segments = parseAddress(address);
  return segments?.[segments.length - 1]?.key;
};

/** Above this many deletes or creates in one collection, no rename hint is looked for. */
const RENAME_HINT_LIMIT = 50;

/**
 * Issue 19: a delete and a create in one collection whose items are the same but for the
 * name look like a rename; the plan says how to make it one (a `moved` entry), which keeps
 * the live id and any secret nobody can read back.
 */
const renameHints = <D, L>(
  ctx: OrgCtx,
  spec: CollectionSpec<D, L>,
  unmatched: readonly L[],
  created: readonly Change[],
  desired: readonly D[],
): void => {
  const kind = spec.kind;
  if (!kind.rename.can || unmatched.length === 0 || created.length === 0) return;
  if (unmatched.length > RENAME_HINT_LIMIT || created.length > RENAME_HINT_LIMIT) return;
  const rename = kind.rename;
  const byAddress = new Map(desired.map((d) => [spec.address(spec.desiredAddressKey(d)), d]));
  for (const c of created) {
    const d = byAddress.get(c.address);
    if (d === undefined) continue;
    const toKey = spec.desiredAddressKey(d);
    for (const l of unmatched) {
      const relabelled = rename.relabel(l, toKey);
      if (kind.liveAddressKey(relabelled) !== toKey) continue;
      const cmp = kind.compare(d, relabelled, { ...ctx.env, forceSecrets: false });
      if (cmp.fields.length > 0 || cmp.replace_reasons.length > 0) continue;
      const from = spec.address(kind.liveAddressKey(l));
      ctx.acc.warnings.push(
        `${from} → ${c.address} looks like a rename (same fields): add a moved entry to rename it in place and keep its id, e.g. moved: [{ from: '${from}', to: '${c.address}' }]`,
      );
      break;
    }
  }
};

/**
 * Merge several `DesiredOrg` entries with one slug (a folder of files sharing an org).
 * Decision: their collections are unioned (the loader has already refused an address
 * declared twice); a collection present in any of the files is managed.
 */
const mergeOrgs = (orgs: readonly DesiredOrg[]): DesiredOrg[] => {
  const bySlug = new Map<string, DesiredOrg>();
  for (const o of orgs) {
    const prev = bySlug.get(o.slug);
    bySlug.set(o.slug, prev === undefined ? o : mergeOrgDeclarations(prev, o, "overlay"));
  }
  return [...bySlug.values()];
};

/** A parent of the walk: the org, a project, or a matched item of a kind with children. */
interface WalkNode {
  readonly name: ParentName;
  readonly desired: PlanParents[ParentName]["desired"];
  /** The parent's live item; undefined when the plan creates it. */
  readonly live: PlanParents[ParentName]["live"] | undefined;
  readonly segments: readonly AddressSegment[];
  readonly params: Readonly<Record<string, ParamValue>>;
  /** The parent's address when the plan creates or replaces it (its children wait for it). */
  readonly pending?: string;
  /** The parent is replaced: its live children cannot outlive the old one. */
  readonly replaced: boolean;
}

type AnyKind = ResourceKind<unknown, unknown>;

const itemAddress = (node: WalkNode, kind: AnyKind, key: string): string =>
  formatAddress([
    ...node.segments,
    kind.collection.segment.keyed
      ? { name: kind.collection.segment.name, key }
      : { name: kind.collection.segment.name },
  ]);

/**
 * How much of a live item would be lost by removing it: its live children, of every kind
 * below it (a context's env vars and restrictions, a pipeline's triggers).
 */
const holdsOf =
  (kinds: Kinds, kind: AnyKind, within: Within) =>
  (l: unknown): number =>
    childKindsIn(kinds, kind.type as ParentName).reduce(
      (n, child) => n + (child.collection.liveIn(l as never, within)?.length ?? 0),
      0,
    );

/**
 * Plan one kind's collection under one parent, then the collections below each of its
 * items: the generic walk, driven by the kinds' `collection` (src/kinds/contract.ts).
 */
const planCollection = (
  ctx: OrgCtx,
  org: PlanParents["org"],
  within: Within,
  node: WalkNode,
  kind: AnyKind,
): void => {
  const col = kind.collection;
  const parentAddress = formatAddress(node.segments);
  const collection = parentAddress === "" ? col.name : `${parentAddress}.${col.name}`;
  const declared = col.desiredIn(node.desired as never);
  const liveAll = node.live === undefined ? [] : col.liveIn(node.live as never, within);
  const address = (k: string) => itemAddress(node, kind, k);
  const base = {
    kind,
    collection,
    address,
    desiredAddressKey: (d: unknown) => col.addressKey(d),
    params: node.params,
    ...(col.keyParam ? { itemParams: (k: string) => ({ [col.keyParam as string]: k }) } : {}),
    ...(col.deleteNote ? { deleteExtra: (l: unknown) => col.deleteNote?.(l) ?? NO_NOTE } : {}),
    holds: holdsOf(ctx.kinds, kind, within),
  };
  if (node.replaced && declared === undefined) {
    // Decision: the collection is not managed here, but its items cannot outlive their
    // parent: they are deleted first (and not re-created), and the plan warns.
    const live = liveAll ?? [];
    if (live.length === 0 && col.onParentDelete === "cascades") return;
    ctx.acc.warnings.push(
      `${parentAddress} is replaced: its ${live.length} live ${col.segment.name}(s) are deleted and not re-created, because the config does not manage its ${col.name}`,
    );
    diffCollection(ctx, {
      ...base,
      desired: [],
      live,
      deleteReason: `forced by the ${node.name}'s replacement (its ${col.name} are not managed, so not re-created)`,
    });
    return;
  }
  if (declared === undefined) return;
  if (node.live !== undefined && col.synthetic !== undefined) {
    const synthetic = col.synthetic.of(node.live as never, within);
    for (const d of declared) {
      const s = synthetic.find((l) => col.synthetic?.clash(d, l, node.live as never));
      if (s !== undefined) {
        throw new PlanError(
          `${address(col.addressKey(d))}: ${col.synthetic.refusal(kind.liveId(s) ?? "?")}`,
        );
      }
    }
  }
  const order = liveAll === undefined ? undefined : col.replaceOrderFor?.(declared, liveAll);
  const res = diffCollection(ctx, {
    ...base,
    desired: declared,
    live: liveAll,
    ...(node.pending === undefined ? {} : { pendingParent: node.pending }),
    ...(order === undefined ? {} : { replaceOrder: order }),
    ...(node.replaced ? { forcedReplace: `forced by the ${node.name}'s replacement` } : {}),
  });
  const created = new Map(res.created.map((c) => [c.address, c]));
  for (const m of res.matched) {
    const why = col.refuse?.(
      {
        desired: m.desired,
        address: m.address,
        action: m.action,
        ...(created.has(m.address) ? { after: created.get(m.address)?.after ?? null } : {}),
      },
      org,
    );
    if (why !== undefined) throw new PlanError(`${m.address}: ${why}`);
  }
  const children = childKindsIn(ctx.kinds, kind.type as ParentName);
  if (children.length === 0) return;
  for (const m of res.matched) {
    const replaced = m.action === "replace";
    const id = m.live === undefined || replaced ? undefined : kind.liveId(m.live);
    const child: WalkNode = {
      name: kind.type as ParentName,
      desired: m.desired as WalkNode["desired"],
      // A replaced parent's children are the old one's: deleted or replaced with it.
      live: m.action === "create" ? undefined : (m.live as WalkNode["live"]),
      segments: parseAddress(m.address) ?? [],
      params: {
        ...node.params,
        ...(col.childParam === undefined
          ? {}
          : { [col.childParam]: id === undefined ? { pending: m.address } : id }),
      },
      ...(m.action === "create" || replaced ? { pending: m.address } : {}),
      replaced,
    };
    for (const k of children) planCollection(ctx, org, within, child, k);
  }
  // Children the spec does not say go with their parent are deleted first, explicitly.
  for (const del of res.deleted) {
    for (const k of children) {
      if (k.collection.onParentDelete !== "deleted_first") continue;
      const live = k.collection.liveIn(del.live as never, within) ?? [];
      if (live.length === 0) continue;
      const id = kind.liveId(del.live);
      const segments = parseAddress(del.address) ?? [];
      diffCollection(ctx, {
        kind: k,
        collection: `${del.address}.${k.collection.name}`,
        address: (key) => formatAddress([...segments, { name: k.collection.segment.name, key }]),
        desiredAddressKey: (d) => k.collection.addressKey(d),
        desired: [],
        live,
        params: {
          ...node.params,
          ...(col.childParam === undefined || id === undefined ? {} : { [col.childParam]: id }),
        },
        deleteReason: `its ${kind.collection.segment.name} ${JSON.stringify(kind.liveAddressKey(del.live))} is deleted`,
      });
    }
  }
};

const NO_NOTE = { destroys_secrets: null, note: "" } as const;

const planProject = (
  ctx: OrgCtx,
  org: PlanParents["org"],
  slug: string,
  dp: DesiredProject,
): void => {
  const liveOrg = org.live;
  const projectAddress = addr.project(slug);
  if (ctx.ignored(projectAddress)) {
    ctx.acc.warnings.push(
      `${projectAddress} is declared but excluded by \`ignore\`: it is not planned`,
    );
    return;
  }
  const lp = liveOrg.projects.get(slug);
  const projectChange = {
    address: projectAddress,
    resource_type: "project" as const,
    org: ctx.slug,
    collection: "projects",
    depends_on: [],
    fields: [],
  };
  if (dp.delete === true) {
    // Issue 18: `delete: true`; nothing to do when the project is already gone.
    if (lp === undefined || lp.status === "not_visible") {
      if (lp?.status === "not_visible" && lp.absent !== true) {
        throw new PlanError(`${projectAddress}: not visible (${lp.reason}); it cannot be deleted`);
      }
      return;
    }
    ctx.acc.changes.push({
      ...projectChange,
      action: "delete",
      reason: `delete: true in the config (${formatLocation(dp.source)}); the project goes with everything in it (env vars, webhooks, pipelines, triggers, checkout keys); apply needs --allow-project-delete`,
      before: KINDS.project.liveView(lp),
      after: null,
      params: { org_id: liveOrg.id, project_id: lp.id, project_slug: lp.slug, id: lp.id },
      calls: KINDS.project.deleteCalls(),
      id: lp.id,
    });
    return;
  }
  if (lp?.status === "not_visible" && lp.absent === true && dp.create === true) {
    // Issue 18: `create: true` and the look-up found no such project: create it first, then
    // everything inside it, which takes its id (and its slug, for the V2 routes) at apply.
    ctx.acc.changes.push({
      ...projectChange,
      action: "create",
      reason: fromTemplate(dp, "create: true, and the org has no such project"),
      before: null,
      after: KINDS.project.desiredView(dp, { ...ctx.env, forceSecrets: false }),
      params: { org_id: liveOrg.id },
      calls: KINDS.project.createCalls(dp),
    });
    const pending: WalkNode = {
      name: "project",
      desired: dp,
      live: undefined,
      segments: [{ name: "project", key: slug }],
      params: {
        org_id: liveOrg.id,
        project_id: { pending: projectAddress },
        project_slug: { pending: `${projectAddress}#slug` },
      },
      pending: projectAddress,
      replaced: false,
    };
    const within: Within = { org: liveOrg };
    for (const kind of childKindsIn(ctx.kinds, "project"))
      planCollection(ctx, org, within, pending, kind);
    return;
  }
  if (lp === undefined) {
    throw new PlanError(`${projectAddress}: the project was not read, so it cannot be planned`);
  }
  if (lp.status === "not_visible") {
    // design.md §1: never plan a create over something that may exist.
    throw new PlanError(`${projectAddress}: absent or not visible (${lp.reason})`);
  }
  const node: WalkNode = {
    name: "project",
    desired: dp,
    live: lp,
    segments: [{ name: "project", key: slug }],
    // project_slug: the V2 routes (checkout keys) name the project by its slug.
    params: { org_id: liveOrg.id, project_id: lp.id, project_slug: lp.slug },
    replaced: false,
  };
  const within: Within = { org: liveOrg, project: lp };
  for (const kind of childKindsIn(ctx.kinds, "project"))
    planCollection(ctx, org, within, node, kind);
};

/** An empty accumulator. */
const newAcc = (): Acc => ({
  changes: [],
  unverified: [],
  warnings: [],
  skipped: 0,
  unresolvedCreates: 0,
  collections: new Map(),
  kept: [],
});

/** Add what one project's planning accumulated to the whole run's (in place, in order). */
const mergeAcc = (into: Acc, part: Acc): void => {
  for (const c of part.changes) into.changes.push(c);
  for (const u of part.unverified) into.unverified.push(u);
  for (const w of part.warnings) into.warnings.push(w);
  into.skipped += part.skipped;
  into.unresolvedCreates += part.unresolvedCreates;
  for (const [k, v] of part.collections) into.collections.set(k, v);
  for (const k of part.kept) into.kept.push(k);
};

/** One project's share of the plan, made while the rest of the org was still being read. */
interface ProjectPart {
  readonly dp: DesiredProject;
  readonly lp: LiveProject | NotVisible;
  readonly orgId: string;
  readonly acc: Acc;
}

/**
 * Plans of single projects made ahead, as each project's reads finish (issue 22: the main
 * thread is ~90 % idle during a large org's reads, and planning 40,000 items after the last
 * answer took ~0.6 s). `planChanges` uses a project's part only when it was made from the
 * very same desired and live objects and org id, and the part never asked for anything
 * org-wide (a project id by slug, a group by name): otherwise it plans the project again. A
 * project kind's plan depends on its project alone (src/kinds: only context restrictions
 * and SSO mappings look names up across the org), which test/unit/plan-ahead.test.ts checks.
 */
export interface PlanAhead {
  /** Plan the project `key` of the org now, from its live read. Never throws. */
  project(orgSlug: string, orgId: string, key: string, lp: LiveProject | NotVisible): void;
  /** The parts made, by `org\0key`. */
  readonly parts: ReadonlyMap<string, ProjectPart>;
}

export const planAhead = (desired: DesiredConfig, options: PlanOptions = {}): PlanAhead => {
  const orgs = new Map(mergeOrgs(desired.orgs).map((o) => [o.slug, o]));
  const forced = globMatcher(options.forceSecrets ?? []);
  const statics = new Map<string, Omit<OrgCtx, "env" | "acc">>();
  const parts = new Map<string, ProjectPart>();
  return {
    parts,
    project: (orgSlug, orgId, key, lp) => {
      const org = orgs.get(orgSlug);
      const dp = org?.projects.get(key);
      if (org === undefined || dp === undefined) return;
      let fixed = statics.get(orgSlug);
      if (fixed === undefined) {
        fixed = orgStatics(org, forced, options);
        statics.set(orgSlug, fixed);
      }
      let orgWide = false;
      const acc = newAcc();
      const ctx: OrgCtx = {
        ...fixed,
        env: {
          orgId,
          projectId: () => {
            orgWide = true;
            return undefined;
          },
          refId: () => {
            orgWide = true;
            return undefined;
          },
        },
        acc,
      };
      const liveOrg: LiveOrg = {
        status: "found",
        id: orgId,
        slug: orgSlug,
        projects: new Map([[key, lp]]),
      };
      try {
        planProject(ctx, { desired: org, live: liveOrg }, key, dp);
      } catch {
        return; // planned again by planChanges, which reports the error in its order
      }
      if (!orgWide) parts.set(`${orgSlug}\u0000${key}`, { dp, lp, orgId, acc });
    },
  };
};

/** The parts of an org's planning context that depend on the config and options only. */
const orgStatics = (
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
  forced,
  skipSecrets: options.skipSecrets ?? false,
});

const planOrg = (ctx: OrgCtx, org: DesiredOrg, live: LiveOrg, ahead?: PlanAhead): void => {
  const parents: PlanParents["org"] = { desired: org, live };
  const node: WalkNode = {
    name: "org",
    desired: org,
    live,
    segments: [],
    params: { org_id: live.id },
    replaced: false,
  };
  for (const kind of childKindsIn(ctx.kinds, "org"))
    planCollection(ctx, parents, { org: live }, node, kind);
  for (const [slug, dp] of org.projects) {
    const part = ahead?.parts.get(`${org.slug}\u0000${slug}`);
    if (
      part !== undefined &&
      part.dp === dp &&
      part.lp === live.projects.get(slug) &&
      part.orgId === live.id
    ) {
      mergeAcc(ctx.acc, part.acc);
    } else {
      planProject(ctx, parents, slug, dp);
    }
  }
};

/**
 * Plan the changes that make `live` look like `desired`.
 * Throws PlanError for what cannot be planned safely: an ambiguous identity, a declared
 * parent that is absent or not visible, a synthetic item in the config, a collection that
 * was not read, a missing secret without `skipSecrets`.
 */
export const planChanges = (
  desired: DesiredConfig,
  live: LiveState,
  options: PlanOptions = {},
  ahead?: PlanAhead,
): Plan => {
  const acc = newAcc();
  const forced = globMatcher(options.forceSecrets ?? []);
  const orgs: { slug: string; id: string }[] = [];
  for (const org of mergeOrgs(desired.orgs)) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) {
      throw new PlanError(`org ${org.slug}: absent or not visible (it was not read)`);
    }
    orgs.push({ slug: org.slug, id: liveOrg.id });
    const found = new Map<string, string>();
    for (const [s, p] of liveOrg.projects) if (p.status === "found") found.set(s, p.id);
    // Decision: a restriction may name its project by id (design.md config example: "project
    // slug (or id)"): a known project id, or any UUID, is taken as the id itself.
    const knownIds = new Set([...found.values(), ...(liveOrg.projectIds?.values() ?? [])]);
    const ctx: OrgCtx = {
      env: {
        orgId: liveOrg.id,
        projectId: (s) =>
          found.get(s) ??
          liveOrg.projectIds?.get(s) ??
          (knownIds.has(s) || isUuid(s) ? s : undefined),
        // Issue 17: a reference by name names a declared item (created by this plan when
        // it is not live yet) or a live one; declared first (design.md §3 "More kinds").
        refId: referenceResolver(org, liveOrg, acc.changes, options.kinds),
      },
      ...orgStatics(org, forced, options),
      acc,
    };
    planOrg(ctx, org, liveOrg, ahead);
    // Issue 28: what the service would undo or refuse, before anything is written.
    const refused = [
      ...referencesOnDeletedItems(org, liveOrg, acc.changes, ctx.ignored, ctx.kinds),
      ...ctx.kinds.flatMap((kind) => kind.refusePlan?.(org, liveOrg, acc.changes) ?? []),
    ];
    if (refused.length > 0) throw new PlanError(refused.join("\n"));
  }
  const targets = options.targets && options.targets.length > 0 ? options.targets : undefined;
  return finishPlan({
    orgs,
    changes: maskedUrls(maskLiveSecrets(acc.changes, resolvedSecretValues(desired)), options),
    unverified: acc.unverified,
    skipped: acc.skipped,
    unresolvedCreates: acc.unresolvedCreates,
    warnings: acc.warnings,
    collections: [...acc.collections.values()],
    // No `--target` and an empty list mean the same: everything is planned.
    targets: targets,
    matchTarget: targets === undefined ? undefined : globMatcher(targets),
    skipSecrets: options.skipSecrets ?? false,
    kept: acc.kept,
    ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
  });
};

/** design.md §4 "Integration": URLs masked unless `--show-urls` (src/plan/mask-urls.ts). */
const maskedUrls = (changes: Change[], options: PlanOptions): Change[] =>
  options.showUrls === true ? changes : maskPlanUrls(changes);
