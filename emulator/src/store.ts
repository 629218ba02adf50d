/**
 * Loading a seed into a state and dumping the state back in the seed's shape: generic walks
 * over the registry (families.ts), item by item in the registry's order. Names no family.
 * Pure: no I/O.
 */

import { EmulatorHttpError, SeedError } from "./errors.js";
import { FAMILIES } from "./families.js";
import {
  type Family,
  isLevelMember,
  membersAt,
  type SeedLoader,
  type SeedScope,
} from "./family.js";
import { isUuid } from "./ids.js";
import { seedSchemaOf } from "./schemas.js";
import type { Seed } from "./seed.js";
import type { State } from "./state.js";
import { check } from "./validate.js";

export { nextId, SEED_TIME, type State, type TokenRow, touch } from "./state.js";

// ---------------------------------------------------------------------------------------
// Seed → state
// ---------------------------------------------------------------------------------------

const seedFail = (pointer: string, message: string): never => {
  throw new SeedError(`seed${pointer}: ${message}`);
};

/** Re-raise an HTTP-style validation error as a seed error at `pointer`. */
const asSeed = (fn: () => void): void => {
  try {
    fn();
  } catch (err) {
    if (err instanceof EmulatorHttpError) throw new SeedError(`seed${err.detail ?? err.title}`);
    throw err;
  }
};

/**
 * Load a seed; throws SeedError naming the JSON pointer of the first problem. Members load
 * item by item, depth first, in the registry's order (a project's rows before the next
 * project's); pass 2 members after the whole seed's pass 1. The rows, their order and their
 * ids depend only on the seed, not on that order; the order only says which of two problems
 * of one seed is named (since the family split an org's `otel_exporters` are checked before
 * its `projects`, as the registry lists them; a seed with one problem names the same one).
 */
export const createState = (seed: Seed, families: readonly Family[] = FAMILIES): State => {
  const issue = check(seedSchemaOf(families), seed);
  if (issue) seedFail(issue.pointer, issue.message);
  const rights = families.flatMap((f) => f.tokenRights ?? []);
  const ids = new Set<string>();
  const base = {
    tokens: (seed.tokens ?? []).map((t) => {
      const flags = t as unknown as Readonly<Record<string, unknown>>;
      return {
        token: t.token,
        readOnly: t.read_only === true,
        user: t.user !== false,
        withheld: new Set(rights.filter((r) => flags[r.flag] === false).map((r) => r.flag)),
      };
    }),
    seq: 0,
    seeded: ids,
    version: 0,
    memo: { version: 0, entries: new Map() },
    families,
  };
  const tables: Record<string, unknown[]> = {};
  for (const f of families) for (const t of f.tables ?? []) tables[t] = [];
  // Every family's tables, empty: the State type is the families' augmentations of it.
  const st = Object.assign(base, tables) as unknown as State;
  const l: SeedLoader = {
    st,
    claim(id, pointer) {
      if (!isUuid(id)) seedFail(pointer, `id ${JSON.stringify(id)} is not a UUID`);
      if (ids.has(id)) seedFail(pointer, `duplicate id ${id}`);
      ids.add(id);
      return id;
    },
    fail: seedFail,
    asSeed,
    slugs: new Set(),
  };

  const made: SeedScope[] = [];
  /** Load the members of one scope: those of `pass`, or up to it for a scope made in it. */
  const walk = (scope: SeedScope, pass: 1 | 2, fresh: boolean): void => {
    for (const m of membersAt(families, scope.level)) {
      const mp = m.pass ?? 1;
      if (fresh ? mp > pass : mp !== pass) continue;
      const value = scope.item[m.key];
      const pointer = `${scope.pointer}/${m.key}`;
      if (!isLevelMember(m)) {
        m.load(l, scope, value, pointer);
        continue;
      }
      const items = (value ?? []) as readonly Record<string, unknown>[];
      m.checkList?.(l, scope, items, pointer);
      items.forEach((item, i) => {
        const at = `${pointer}/${i}`;
        const row = m.loadItem(l, scope, item, at, i);
        const child: SeedScope = { level: m.level, row, item, pointer: at, parent: scope };
        if (pass === 1) made.push(child);
        walk(child, pass, true);
      });
    }
  };
  const root: SeedScope = {
    level: "",
    row: undefined,
    item: seed as unknown as Record<string, unknown>,
    pointer: "",
  };
  walk(root, 1, true);
  for (const scope of [root, ...made]) walk(scope, 2, false);
  return st;
};

// ---------------------------------------------------------------------------------------
// State → seed (GET /__admin/state)
// ---------------------------------------------------------------------------------------

const dumpMembers = (
  st: State,
  families: readonly Family[],
  level: string,
  row: unknown,
  out: Record<string, unknown>,
): void => {
  for (const m of membersAt(families, level)) {
    if (!isLevelMember(m)) {
      out[m.key] = m.dump(st, row);
      continue;
    }
    out[m.key] = m.dumpItems(st, row).map((item) => {
      dumpMembers(st, families, m.level, item.row, item.out);
      return item.out;
    });
  }
};

/** Dump the state in the seed's shape, ids filled in, secret values included (test only). */
export const dumpState = (st: State, families: readonly Family[] = FAMILIES): Seed => {
  const rights = families.flatMap((f) => f.tokenRights ?? []);
  const out: Record<string, unknown> = {
    tokens: st.tokens.map((t) => ({
      token: t.token,
      read_only: t.readOnly,
      user: t.user,
      ...Object.fromEntries(
        rights.filter((r) => t.withheld.has(r.flag)).map((r) => [r.flag, false]),
      ),
    })),
  };
  dumpMembers(st, families, "", undefined, out);
  return out as Seed;
};
