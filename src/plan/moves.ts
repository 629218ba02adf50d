/**
 * `moved` (issue 19): live items renamed in place before the diff, and hints for a rename
 * that looks like a delete plus a create.
 */

/**
 * `moved` (issue 19): live items renamed in place before the diff, and hints for a rename
 * that looks like a delete plus a create.
 */

import { parseAddress } from "../model/address.js";
import type { CollectionSpec, OrgCtx } from "./state.js";
import type { Change } from "./types.js";

/** A live item `moved` renamed for matching, and what it was. */
export interface Renamed<L> {
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
export const applyMoves = <D, L>(
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

/** The key of an address's last segment. */
export const lastKey = (address: string): string | undefined => {
  const segments = parseAddress(address);
  return segments?.[segments.length - 1]?.key;
};

/** Above this many deletes or creates in one collection, no rename hint is looked for. */
export const RENAME_HINT_LIMIT = 50;

/**
 * Issue 19: a delete and a create in one collection whose items are the same but for the
 * name look like a rename; the plan says how to make it one (a `moved` entry), which keeps
 * the live id and any secret nobody can read back.
 */
export const renameHints = <D, L>(
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
