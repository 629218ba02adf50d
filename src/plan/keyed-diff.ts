/**
 * The one keyed diff, reused for every collection (conventions.md §4): match desired items
 * to live items by identity key, with `id:` pins and tie-breaks, and never guess
 * (design.md §1 "Identity": two live items on one key fail the plan with both ids).
 * Inputs are never mutated.
 */
import { PlanError } from "../model/errors.js";

export interface KeyedDiffInput<D, L> {
  readonly desired: readonly D[];
  readonly live: readonly L[];
  readonly desiredKey: (d: D) => string;
  readonly liveKey: (l: L) => string;
  readonly liveId: (l: L) => string | undefined;
  readonly pinnedId: (d: D) => string | undefined;
  /** Picks among several live items on one key (vcs triggers by filter). */
  readonly tiebreak?: (d: D, l: L) => boolean;
  /** The desired item's address, for error messages. */
  readonly describe: (d: D) => string;
}

export interface KeyedDiff<D, L> {
  /** Every desired item in input order, with its live match when there is one. */
  readonly pairs: readonly { readonly desired: D; readonly live: L | undefined }[];
  /** Live items no desired item matched, in input order. */
  readonly unmatched: readonly L[];
}

const ids = <L>(items: readonly L[], liveId: (l: L) => string | undefined): string =>
  items.map((l) => liveId(l) ?? "(no id)").join(", ");

export const keyedDiff = <D, L>(input: KeyedDiffInput<D, L>): KeyedDiff<D, L> => {
  const { desired, live, desiredKey, liveKey, liveId, pinnedId, tiebreak, describe } = input;
  const matchOf = new Map<D, L>();
  const taken = new Set<L>();

  // 1. `id:` pins pick their live item whatever its key.
  const byId = new Map<string, L>();
  for (const l of live) {
    const id = liveId(l);
    if (id !== undefined) byId.set(id, l);
  }
  for (const d of desired) {
    const pin = pinnedId(d);
    if (pin === undefined) continue;
    const l = byId.get(pin);
    // Decision: a pin that matches no live item is an error, not a create: the user named
    // one existing item, and creating another would not give it that id.
    if (l === undefined) throw new PlanError(`${describe(d)}: id ${pin} matches no live item`);
    if (taken.has(l)) throw new PlanError(`${describe(d)}: id ${pin} is pinned twice`);
    matchOf.set(d, l);
    taken.add(l);
  }

  // 2. Group the rest by key.
  const liveByKey = new Map<string, L[]>();
  for (const l of live) {
    if (taken.has(l)) continue;
    const k = liveKey(l);
    const list = liveByKey.get(k);
    if (list) list.push(l);
    else liveByKey.set(k, [l]);
  }
  const desiredByKey = new Map<string, D[]>();
  for (const d of desired) {
    if (matchOf.has(d)) continue;
    const k = desiredKey(d);
    const list = desiredByKey.get(k);
    if (list) list.push(d);
    else desiredByKey.set(k, [d]);
  }

  for (const [k, ds] of desiredByKey) {
    const candidates = liveByKey.get(k) ?? [];
    if (candidates.length === 0) continue;
    if (candidates.length === 1 && ds.length === 1) {
      const [d] = ds as [D];
      const [l] = candidates as [L];
      matchOf.set(d, l);
      taken.add(l);
      continue;
    }
    if (tiebreak === undefined) {
      const d = ds[0] as D;
      throw new PlanError(
        `${describe(d)}: ${candidates.length} live items share this key (ids ${ids(candidates, liveId)}); pin the one to manage with \`id:\``,
      );
    }
    // Exact tie-break matches first, so the order of the YAML does not matter.
    const rest: D[] = [];
    for (const d of ds) {
      const hits = candidates.filter((l) => !taken.has(l) && tiebreak(d, l));
      if (hits.length === 1) {
        const l = hits[0] as L;
        matchOf.set(d, l);
        taken.add(l);
      } else if (hits.length > 1) {
        throw new PlanError(
          `${describe(d)}: ${hits.length} live items match (ids ${ids(hits, liveId)}); pin the one to manage with \`id:\``,
        );
      } else {
        rest.push(d);
      }
    }
    const left = candidates.filter((l) => !taken.has(l));
    if (rest.length === 0 || left.length === 0) continue;
    if (rest.length === 1 && left.length === 1) {
      matchOf.set(rest[0] as D, left[0] as L);
      taken.add(left[0] as L);
      continue;
    }
    throw new PlanError(
      `${describe(rest[0] as D)}: cannot tell which of the live items (ids ${ids(left, liveId)}) it is; pin the one to manage with \`id:\``,
    );
  }

  return {
    pairs: desired.map((d) => ({ desired: d, live: matchOf.get(d) })),
    unmatched: live.filter((l) => !taken.has(l)),
  };
};
