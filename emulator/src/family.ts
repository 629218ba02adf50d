/**
 * The contract of an emulator family (docs/adding-a-kind.md, step 7): everything the emulator
 * knows about one sort of the service's entities lives in one module,
 * `emulator/src/families/<family>.ts`, listed by one line in `emulator/src/families.ts`. The
 * generic code walks that list and names no family: the server routes `routes`, `createState`
 * makes `tables` and loads `seed`, `dumpState` dumps it, the seed's schema is put together
 * from `seed`, a delete cascades through `onRemove`, and a token's rights come from
 * `tokenRights`.
 *
 * A family's rows are typed in its module, which adds its tables to `State`, its seed members
 * to its parent's seed type and its seed flags to `SeedToken` by augmenting those interfaces
 * (`declare module "../state.js" { interface State { readonly webhooks: WebhookRow[] } }`).
 */
import type { Route } from "./http.js";
import type { State } from "./state.js";
import type { Schema } from "./validate.js";

/** One place of the seed that holds members: the root (`""`) or an item of a level. */
export interface SeedScope {
  /** `""` for the seed document itself, else the `level` of the member that made the item. */
  readonly level: string;
  /** The item's row (undefined at the root). */
  readonly row: unknown;
  /** The item as the seed wrote it. */
  readonly item: Readonly<Record<string, unknown>>;
  /** JSON pointer of the item (`/orgs/0`); `""` at the root. */
  readonly pointer: string;
  /** The scope the item is in. */
  readonly parent?: SeedScope;
}

/** What a member's loader may use while a seed is loaded (store.ts `createState`). */
export interface SeedLoader {
  readonly st: State;
  /** Take an id for a seeded row: a UUID, not taken before (else a SeedError at `pointer`). */
  claim(id: string, pointer: string): string;
  /** Throw the SeedError `seed<pointer>: <message>`. */
  fail(pointer: string, message: string): never;
  /** Run a check that throws an HTTP-style 400 and re-raise it as a SeedError. */
  asSeed(fn: () => void): void;
  /** Slugs seen so far (org and project slugs share it, so none is given twice). */
  readonly slugs: Set<string>;
}

interface MemberBase {
  /** The level whose seed items hold the member (`""`: the seed document). */
  readonly in: string;
  /** Its key in the seed and in the dump (`webhooks`). */
  readonly key: string;
  /**
   * 2: loaded after pass 1 has loaded the whole seed (a context's restrictions name projects
   * of any org). The members of an item made in pass 2 are loaded with it.
   */
  readonly pass?: 1 | 2;
  /**
   * One value of the member in the seed's own form (a list of one item), for the tests that
   * need a live item of every family without naming any (test/helpers/every-kind.ts
   * `withSamples`: drift's report of unmanaged items). Never loaded unless a seed holds it.
   */
  readonly sample?: unknown;
}

/** A member whose value is data of its parent's row (an env map, a list of rows). */
export interface LeafMember extends MemberBase {
  readonly schema: Schema;
  load(l: SeedLoader, parent: SeedScope, value: unknown, pointer: string): void;
  /** The member's value in the dump of one parent. */
  dump(st: State, parentRow: unknown): unknown;
}

/** A member whose items are a level other members hang off (orgs, projects, pipelines). */
export interface LevelMember extends MemberBase {
  /** The level its items are (other members name it in `in`). */
  readonly level: string;
  /** The item's own fields (the members of its level are added to them). */
  readonly props: Readonly<Record<string, Schema>>;
  readonly required: readonly string[];
  /** A check of the whole list before its items load (a per-parent limit). */
  checkList?(l: SeedLoader, parent: SeedScope, items: readonly unknown[], pointer: string): void;
  /** Load one item (the `index`th of its list); its row. */
  loadItem(
    l: SeedLoader,
    parent: SeedScope,
    item: Record<string, unknown>,
    pointer: string,
    index: number,
  ): unknown;
  /** The items of one parent: each row and its own fields (its level's members are added). */
  dumpItems(
    st: State,
    parentRow: unknown,
  ): readonly { row: unknown; out: Record<string, unknown> }[];
}

export type SeedMember = LeafMember | LevelMember;

export const isLevelMember = (m: SeedMember): m is LevelMember => "level" in m;

const byLevel = new WeakMap<readonly Family[], ReadonlyMap<string, readonly SeedMember[]>>();

/** The seed members of one level (`""`: the root), in the list's order (indexed once per list). */
export const membersAt = (families: readonly Family[], level: string): readonly SeedMember[] => {
  let index = byLevel.get(families);
  if (!index) {
    const built = new Map<string, SeedMember[]>();
    for (const f of families) {
      for (const m of f.seed ?? []) {
        const list = built.get(m.in);
        if (list) list.push(m);
        else built.set(m.in, [m]);
      }
    }
    index = built;
    byLevel.set(families, index);
  }
  return index.get(level) ?? [];
};

/**
 * A right a token may be seeded without (seed `tokens[].<flag>: false`, default true): its
 * writes to the paths `writes` matches are 403 `detail`.
 */
export interface TokenRight {
  readonly flag: string;
  readonly writes: RegExp;
  readonly detail: string;
}

export interface Family {
  /** The module's name (`webhooks`), as its file is named. */
  readonly name: string;
  /** Its routes, in match order; the server tries families in `families.ts` order. */
  readonly routes: readonly Route[];
  /**
   * Routes tried after every family's `routes` (a `*slug` pattern that would otherwise take
   * other families' routes under it).
   */
  readonly lastRoutes?: readonly Route[];
  /** The state's tables it owns, each an array of its rows (made empty by `createState`). */
  readonly tables?: readonly (keyof State & string)[];
  /**
   * Its tables whose rows a script's `after` request may move to the front (`to_front`,
   * docs/emulator.md "Script"): a listing that puts a new item first.
   */
  readonly toFront?: readonly (keyof State & string)[];
  /** Its members of the seed (and of the dump), in the seed's key order. */
  readonly seed?: readonly SeedMember[];
  /**
   * What it removes when an item of another level is removed (`project` → its webhooks),
   * keyed by that level, given the item's id (and its parent's, when the remover says it);
   * `removeWith` (state.ts) runs them.
   */
  readonly onRemove?: Readonly<
    Record<string, (st: State, id: string, parentId: string | undefined) => void>
  >;
  readonly tokenRights?: readonly TokenRight[];
}
