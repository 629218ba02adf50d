/**
 * One collection's diff: desired items matched to live ones by identity (keyed-diff.ts),
 * each pair compared by its kind, into creates, updates, replaces and deletes.
 */

/**
 * One collection's diff: desired items matched to live ones by identity (keyed-diff.ts),
 * each pair compared by its kind, into creates, updates, replaces and deletes.
 */

import { formatLocation, PlanError } from "../core/errors.js";
import type { ApiCall, Comparison, KindEnv } from "../kinds/contract.js";
import { maskLike } from "../kinds/values.js";
import type { Located } from "../model/desired.js";
import { withoutIgnoredFields } from "./ignore-fields.js";
import { ambiguityMessage, keyedDiff } from "./keyed-diff.js";
import { applyMoves, renameHints } from "./moves.js";
import { type CollectionSpec, deleteUnknownKey, type Matched, type OrgCtx } from "./state.js";
import type { Change, ParamValue } from "./types.js";

export const DELETE_REASON = "not in the config, and the config manages this collection";

/**
 * Why a same-key live item is removed (design.md §1 "Identity"). Decision: the kept item is
 * the one whose fields equal the config, else the one needing the fewest changes (a replace
 * counts as more than any update), else the one holding more children (env vars,
 * triggers), else the lowest id. So the leftover of an interrupted replace (the new item
 * matches the config, the old one does not) converges to the new one, and a webhook whose
 * signing secret Waybill set is kept over one without a secret (a missing secret is a
 * field change, an unverifiable one is not).
 */
export const surplusReason = (
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

export const diffCollection = <D, L>(
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
  // design.md §5 "Reading the real service": a live item the kind cannot name is listed as
  // unknown and takes no part in the diff, so nothing can update or replace it, and nothing
  // deletes it unless a `delete_unknown` entry names it by its address and its live id.
  const unknownDeletes: { live: L; address: string; id: string; at: string }[] = [];
  const named =
    kind.unknown === undefined
      ? liveAll
      : liveAll.filter((l) => {
          const liveId = kind.liveId(l);
          if (liveId !== undefined) acc.liveIdsOfUnknownKinds.push(`${ctx.slug}\u0000${liveId}`);
          const why = kind.unknown?.(l);
          if (why === undefined) return true;
          const address = spec.address(kind.liveAddressKey(l));
          if (ctx.ignored(address)) return false;
          const id = kind.liveId(l);
          const key = id === undefined ? undefined : deleteUnknownKey(ctx.slug, address, id);
          const entry = key === undefined ? undefined : ctx.deleteUnknown.get(key);
          if (entry !== undefined && key !== undefined && id !== undefined) {
            unknownDeletes.push({ live: l, address, id, at: formatLocation(entry.source) });
            acc.deletedUnknown.push(key);
          } else {
            acc.unknown.push({
              address,
              resource_type: kind.type,
              reason: why,
              ...(id === undefined ? {} : { id }),
            });
          }
          return false;
        });
  const live = named.filter((l) => !ctx.ignored(spec.address(kind.liveAddressKey(l))));
  // A named item may still hold members the kind does not know (a setting the schema lacks):
  // listed beside the unknown items, at the member's address; the item is planned from what
  // the kind knows, and an update sends only known, declared members.
  if (kind.unknownMembers !== undefined)
    for (const l of live) {
      const address = spec.address(kind.liveAddressKey(l));
      for (const u of kind.unknownMembers(l))
        acc.unknown.push({
          address: `${address}.${u.member}`,
          resource_type: kind.type,
          reason: u.reason,
        });
    }
  const guardKey = `${ctx.slug}\u0000${spec.collection}`;
  acc.collections.set(guardKey, {
    org: ctx.slug,
    collection: spec.collection,
    live_count: live.length,
  });

  // The env a kind sees for an item: the org's, with `forceSecrets` for the item's address.
  // Two objects at most per collection, not one per item (issue 33: the spread per item was
  // the planner's busiest line); kinds never change the env they are given.
  let forcedEnv: KindEnv | undefined;
  let plainEnv: KindEnv | undefined;
  const envAt = (address: string): KindEnv => {
    if (ctx.forced(address)) {
      forcedEnv ??= { ...ctx.env, forceSecrets: true };
      return forcedEnv;
    }
    plainEnv ??= { ...ctx.env, forceSecrets: false };
    return plainEnv;
  };
  const envOf = (d: D): KindEnv => envAt(spec.address(spec.desiredAddressKey(d)));
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
    const env = envAt(address);
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
    const raw = kind.compare(d, l, env);
    const compared: Comparison = withoutIgnoredFields(raw, address, ctx.fieldIgnored);
    // Issue 41: an ignored field that differs is still counted (drift says so), by its
    // address and path only (never a value).
    if (compared !== raw) {
      for (const f of raw.fields) {
        if (!compared.fields.includes(f)) acc.ignoredFields.push({ address, path: f.path });
      }
    }
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
    const reasons =
      spec.forcedReplace === undefined
        ? cmp.replace_reasons
        : [spec.forcedReplace, ...cmp.replace_reasons];
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
      const b = base(address, key);
      acc.changes.push({
        ...b,
        params: withId(b.params, id),
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
        ...withRefs({ ...b, params: withId(b.params, id) }, d, env),
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
  const desiredKeys =
    gone.length === 0 ? new Set<string>() : new Set(desired.map((d) => spec.desiredAddressKey(d)));
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
    const b = base(address, key);
    acc.changes.push({
      ...b,
      params: withId(b.params, id),
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
  // An unknown item a `delete_unknown` entry names: deleted, and only it (by its live id).
  for (const u of unknownDeletes) {
    const b = base(u.address, kind.liveAddressKey(u.live));
    acc.changes.push({
      ...b,
      params: withId(b.params, u.id),
      action: "delete",
      reason: `unknown item, deleted because delete_unknown at ${u.at} names it by its address and id`,
      before: kind.liveView(u.live),
      after: null,
      fields: [],
      calls: kind.deleteCalls(),
      id: u.id,
    });
  }
  renameHints(ctx, spec, diff.unmatched, created, desired);
  return { matched, deleted, created };
};

/** An item's params with its live id, when it has one. */
const withId = (
  params: Readonly<Record<string, ParamValue>>,
  id: string | undefined,
): Readonly<Record<string, ParamValue>> => (id === undefined ? params : { ...params, id });

/**
 * Issue 19: the plan's "why" of an item that inherits from a template names both places:
 * the item's line and the template's (the loader's `source.via`). Desired items carry their
 * `source` (src/model/desired.ts Located); a kind's item without one is left as it is.
 */
export const fromTemplate = (d: unknown, reason: string): string => {
  const source = (d as Partial<Located>).source;
  const via = source?.via;
  return via === undefined || source === undefined
    ? reason
    : `${reason} (declared at ${formatLocation(source)}, inherited from ${via})`;
};
