/**
 * The state every family's rows live in, and what every family shares: tokens, run-time
 * ids, the read-side memo, and removing what goes with a removed item. Generic: it names no
 * family; each family module adds its tables to `State` (family.ts). Imports no family, so
 * any module may import it (the registry, families.ts, imports them all).
 */
import type { Family } from "./family.js";
import { hashUuid } from "./ids.js";

/** Decision: seeded rows without a timestamp were created at this fixed instant. */
export const SEED_TIME = "2025-01-01T00:00:00.000Z";

export interface TokenRow {
  readonly token: string;
  readonly readOnly: boolean;
  /** A user's token (spec: a user checkout key "needs a user token"). */
  readonly user: boolean;
  /** The rights (family.ts `TokenRight`) the seed took from it (`<flag>: false`). */
  readonly withheld: ReadonlySet<string>;
}

/**
 * The state: the tokens and the counters here; every family adds its tables (arrays of its
 * rows) by augmenting this interface in its module.
 */
export interface State {
  readonly tokens: TokenRow[];
  /** Counter behind run-time ids, so they are the same on every run. */
  seq: number;
  /**
   * Ids the seed holds. A run-time id skips them: a seed saved from a running emulator
   * (`GET /__admin/state`, then `POST /__admin/reset`) holds ids made by the same counter,
   * and handing one out again would give two items one id.
   */
  readonly seeded: ReadonlySet<string>;
  /** Bumped before every write request (`touch`); read-side indexes are rebuilt after one. */
  version: number;
  /** Read-side indexes of the rows, valid for `memo.version` only (see `memo`). */
  memo: Memo;
  /** The families the state was made with (store.ts `createState`): `removeWith` walks them. */
  readonly families: readonly Family[];
}

/** Indexes built from the rows by the families' readers, by name, for one state version. */
interface Memo {
  readonly version: number;
  readonly entries: Map<string, unknown>;
}

/**
 * Mark the state as changed: called before every write request is handled, so a list read
 * never sees an index built before a create or delete. Reads (GET) never change the state.
 */
export const touch = (st: State): void => {
  st.version += 1;
};

/** Where each row of a table was, for `findById`: checked on use, so it outlives writes. */
interface IdPositions {
  readonly at: Map<string, number>;
  /** Rows indexed so far: rows appended since (a create pushes) are read on a miss. */
  length: number;
  /** The state version at which it was last complete: a miss then means the id is absent. */
  version: number;
}

/** The row at `at` when it still has this id (a delete may have moved rows since). */
const rowWithId = <T extends { readonly id: string }>(
  rows: readonly T[],
  at: number | undefined,
  id: string,
): T | undefined => {
  const row = at === undefined ? undefined : rows[at];
  return row !== undefined && row.id === id ? row : undefined;
};

/** By the table (its rows array), so a reset state's new tables start afresh. */
const idPositions = new WeakMap<readonly { readonly id: string }[], IdPositions>();

/**
 * The row of `rows` with this id, in constant time on average (issue 33: at 10,000 projects
 * a scan of the table per request made the emulator's own CPU grow with the square of the
 * org, and each scan held back every answer due in the same turn, so the bench measured the
 * emulator instead of the client). Not a per-version index like `memo`: a write would
 * rebuild it, and apply writes between most reads. Positions are kept across writes and
 * checked on use: a hit is confirmed by the row's id, a miss first reads the rows appended
 * since (creates push), and only a stale position (a delete moved rows) or an id absent
 * after a write rebuilds the whole index.
 */
export const findById = <T extends { readonly id: string }>(
  st: State,
  rows: readonly T[],
  id: string,
): T | undefined => {
  let ix = idPositions.get(rows);
  if (ix === undefined) {
    ix = { at: new Map(), length: 0, version: -1 };
    idPositions.set(rows, ix);
  }
  const known = ix.at.get(id);
  if (known !== undefined) {
    const row = rowWithId(rows, known, id);
    if (row !== undefined) return row;
  } else {
    if (ix.version === st.version && ix.length === rows.length) return undefined;
    if (ix.length < rows.length) {
      for (let i = ix.length; i < rows.length; i++) ix.at.set((rows[i] as T).id, i);
      ix.length = rows.length;
      const row = rowWithId(rows, ix.at.get(id), id);
      if (row !== undefined) return row;
    }
  }
  ix.at.clear();
  for (let i = 0; i < rows.length; i++) ix.at.set((rows[i] as T).id, i);
  ix.length = rows.length;
  ix.version = st.version;
  return rowWithId(rows, ix.at.get(id), id);
};

/**
 * An index of the rows built once per state version (`build` runs on the first read after
 * a write), instead of a scan of a whole table on every list read. `key` is the family's own.
 */
export const memo = <T>(st: State, key: string, build: () => T): T => {
  if (st.memo.version !== st.version) st.memo = { version: st.version, entries: new Map() };
  const entries = st.memo.entries;
  if (entries.has(key)) return entries.get(key) as T;
  const value = build();
  entries.set(key, value);
  return value;
};

/** Rows grouped by a key, in the rows' order (what a `filter` would return). */
export const groupBy = <T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> => {
  const byKey = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = byKey.get(k);
    if (list) list.push(row);
    else byKey.set(k, [row]);
  }
  return byKey;
};

export const NONE: readonly never[] = [];

/** A fresh deterministic id for a row created at run time. */
export const nextId = (state: State, kind: string): string => {
  for (;;) {
    state.seq += 1;
    const id = hashUuid("created", kind, String(state.seq));
    if (!state.seeded.has(id)) return id;
  }
};

/** Remove, in place, the rows `gone` says (the state's arrays are shared, never replaced). */
export const removeWhere = <T>(rows: T[], gone: (row: T) => boolean): void => {
  for (let i = rows.length - 1; i >= 0; i--) if (gone(rows[i] as T)) rows.splice(i, 1);
};

/**
 * Remove what goes with a removed item of `level` (a project's webhooks, a group's
 * restrictions): every family's `onRemove[level]`, in the registry's order.
 */
export const removeWith = (st: State, level: string, id: string, parentId?: string): void => {
  for (const f of st.families) f.onRemove?.[level]?.(st, id, parentId);
};

/** A table of the state by name (the families' `tables`, `toFront`). */
export const tableOf = (st: State, name: string): unknown[] =>
  (st as unknown as Record<string, unknown[]>)[name] ?? [];
