/**
 * The one keyed diff, reused for every collection (conventions.md §4): match desired items
 * to live items by identity key, with `id:` pins and tie-breaks. Inputs are never mutated.
 *
 * Several live items on one key (design.md §1 "Identity"): in a collection the config owns,
 * the best match is kept and the rest is surplus, which the planner removes and says so (a
 * leftover of an interrupted replace, a re-sent create or a concurrent run must never wedge
 * the org); in a collection it does not own, there is no guess: the item is ambiguous and
 * the planner fails that item alone, with both ids, until an `id:` pin picks one.
 */
import { PlanError } from "../core/errors.js";

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
  /**
   * True when the config owns the collection: live items it does not list may be removed,
   * so the surplus of a key is removed too. False: a key with several candidates is
   * ambiguous (never guessed).
   */
  readonly owned: boolean;
  /**
   * How well a live item matches a desired one, compared element by element; lower is
   * better. Absent: every candidate ranks the same (the lowest id wins).
   */
  readonly rank?: (d: D, l: L) => readonly number[];
}

/** A live item that shares its key with the kept one and is not the best match. */
export interface Surplus<D, L> {
  readonly live: L;
  /** The desired item the key belongs to, and the live item kept for it. */
  readonly desired: D;
  readonly kept: L;
  /** True when the kept item ranked no better than this one (the lowest id decided). */
  readonly tie: boolean;
}

export interface KeyedDiff<D, L> {
  /** Every desired item in input order, with its live match when there is one. */
  readonly pairs: readonly { readonly desired: D; readonly live: L | undefined }[];
  /** Live items no desired item matched and that are not surplus, in input order. */
  readonly unmatched: readonly L[];
  /** Owned collections only: live items beyond the best match of a key, in input order. */
  readonly surplus: readonly Surplus<D, L>[];
  /**
   * Collections not owned only: desired items whose key several live items share. None of
   * the candidates is matched, surplus or unmatched: they are left as they are.
   */
  readonly ambiguous: readonly { readonly desired: D; readonly candidates: readonly L[] }[];
}

const ids = <L>(items: readonly L[], liveId: (l: L) => string | undefined): string =>
  items.map((l) => liveId(l) ?? "(no id)").join(", ");

const compareRanks = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

export const keyedDiff = <D, L>(input: KeyedDiffInput<D, L>): KeyedDiff<D, L> => {
  const { desired, live, desiredKey, liveKey, liveId, pinnedId, tiebreak, describe } = input;
  const matchOf = new Map<D, L>();
  const taken = new Set<L>();
  const surplus: Surplus<D, L>[] = [];
  /** Live items out of matching: surplus (owned) or candidates of an ambiguous key. */
  const surplusOf = new Set<L>();
  const ambiguous: { desired: D; candidates: readonly L[] }[] = [];
  const rank = (d: D, l: L): readonly number[] => input.rank?.(d, l) ?? [];

  /**
   * The best of `candidates` for `d`: the lowest rank, then the lowest id. Decision: the
   * final choice is the lowest id, not the list order or a creation time (webhooks and
   * pipelines have none in the spec), so a re-plan and a saved plan choose the same item.
   */
  const best = (d: D, candidates: readonly L[]): { kept: L; tieWith: (l: L) => boolean } => {
    const scored = candidates.map((l) => ({ l, r: rank(d, l), id: liveId(l) ?? "" }));
    scored.sort((a, b) => compareRanks(a.r, b.r) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const top = scored[0] as (typeof scored)[number];
    return {
      kept: top.l,
      tieWith: (l) => compareRanks(rank(d, l), top.r) === 0,
    };
  };

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

  const take = (d: D, l: L): void => {
    matchOf.set(d, l);
    taken.add(l);
  };

  for (const [k, ds] of desiredByKey) {
    const candidates = liveByKey.get(k) ?? [];
    if (candidates.length === 0) continue;
    if (candidates.length === 1 && ds.length === 1) {
      take(ds[0] as D, candidates[0] as L);
      continue;
    }
    // Exact tie-break matches first, so the order of the YAML does not matter.
    const rest: D[] = [];
    for (const d of ds) {
      const hits = tiebreak
        ? candidates.filter((l) => !taken.has(l) && !surplusOf.has(l) && tiebreak(d, l))
        : [];
      if (hits.length === 1) {
        take(d, hits[0] as L);
      } else if (hits.length > 1 && input.owned) {
        const { kept, tieWith } = best(d, hits);
        take(d, kept);
        for (const l of hits) {
          if (l === kept) continue;
          surplus.push({ live: l, desired: d, kept, tie: tieWith(l) });
          surplusOf.add(l);
        }
      } else if (hits.length > 1) {
        ambiguous.push({ desired: d, candidates: hits });
        for (const l of hits) surplusOf.add(l);
      } else {
        rest.push(d);
      }
    }
    const left = candidates.filter((l) => !taken.has(l) && !surplusOf.has(l));
    if (rest.length === 0 || left.length === 0) continue;
    if (rest.length === 1 && left.length === 1) {
      take(rest[0] as D, left[0] as L);
      continue;
    }
    if (!input.owned) {
      for (const d of rest) ambiguous.push({ desired: d, candidates: left });
      for (const l of left) surplusOf.add(l);
      continue;
    }
    // Owned: each desired item (in YAML order) takes the best live item still free; what
    // is left over on this key is surplus of the last one served.
    let pool = left;
    let last: { d: D; kept: L } | undefined;
    for (const d of rest) {
      if (pool.length === 0) break;
      const { kept } = best(d, pool);
      take(d, kept);
      last = { d, kept };
      pool = pool.filter((l) => l !== kept);
    }
    if (last === undefined) continue;
    for (const l of pool) {
      const tie = compareRanks(rank(last.d, l), rank(last.d, last.kept)) === 0;
      surplus.push({ live: l, desired: last.d, kept: last.kept, tie });
      surplusOf.add(l);
    }
  }

  return {
    pairs: desired.map((d) => ({ desired: d, live: matchOf.get(d) })),
    unmatched: live.filter((l) => !taken.has(l) && !surplusOf.has(l)),
    surplus: live.flatMap((l) => surplus.filter((s) => s.live === l)),
    ambiguous,
  };
};

/** The message of an ambiguous item (a collection the config does not own). */
export const ambiguityMessage = <L>(
  address: string,
  candidates: readonly L[],
  liveId: (l: L) => string | undefined,
): string =>
  `${address}: ${candidates.length} live items share this key (ids ${ids(candidates, liveId)}) and the config does not own this collection, so none is chosen; pin the one to manage with \`id:\``;
