/**
 * `defineKind`: a kind written as groups of members, each answering one question (issue 47:
 * "a contract that says each thing once"), with a default for everything a plain collection
 * does the usual way. It flattens to the contract's `ResourceKind` (src/kinds/contract.ts),
 * so the planner, the live reader, apply, saved plans, drift, export and validate walk it
 * as they walk every kind: no generic code knows the groups exist.
 *
 * | group | answers | defaults |
 * |---|---|---|
 * | `identity` | which item is this: type, parent, keys, id, `id:` pin, tie-break, rename | `liveAddressKey` = `liveKey`; no pin |
 * | `diff` | what differs: the masked views, the comparison (or its `fields` rules, paths checked against the view's type), secrets left unresolved, a saved plan's fingerprint, how a replace runs | `compare` from `fields`; no secret; fingerprint = the live item; `replaceOrder` `never` |
 * | `wire` | how it is read and written over the API: `list`, the calls of each action, params and body fallbacks, names by id, what of a live item cannot be named | no update calls |
 * | `place` | where its items sit: the planner's `collection`, the live tree (`livePlace`), drift's `unmanaged` line, apply's and saved plans' `desiredItems` / `liveItems` | under the org, a project or a context: kept under the YAML key, addressed `<type>["<desiredKey>"]` below the parent's address, removed with the parent; saved plans key every item the place keeps `<parent>|<segment>:<liveId or liveKey>` |
 * | `config` | how the config writes it: the contract's `ConfigPart`, and `export` (live → config, the contract's `toConfig`) | a map, declared at its key under the org (a list: at its value; a map below the org is not recorded), `$defs` entry the type in camelCase |
 * | `references` | the fields naming other kinds' items: a full `Reference`, or a `FieldReference` (one member of an org-level item holding a name) | — |
 * | `hooks` | what apply (and the plan) do beyond the usual: `adopt` and the optional steps | `adopt`: re-list and adopt the item with the declared key |
 *
 * A member a group gives always wins over its default.
 */
import type { SourceLocation } from "../core/errors.js";
import { formatAddress } from "../model/address.js";
import type { DesiredOrg } from "../model/desired.js";
import { compareFields, type FieldRule, newComparison } from "./compare.js";
import type {
  Collection,
  ConfigPart,
  KindEnv,
  LivePlace,
  ParentName,
  Reference,
  ResourceKind,
} from "./contract.js";
import { defineFlatKind, type FlatKindSpec, placeByYamlKey } from "./define.js";
import { foundProjects } from "./listing.js";
import type { JsonObject } from "./values.js";

type K<D, L, P extends ParentName> = ResourceKind<D, L, P>;
type Opt<T, M extends keyof T> = Omit<T, M> & Partial<Pick<T, M>>;

/** Which item is this (design.md §1 "Identity"). */
export type IdentityGroup<D, L, P extends ParentName> = Opt<
  Pick<
    K<D, L, P>,
    | "type"
    | "parent"
    | "desiredKey"
    | "liveKey"
    | "liveId"
    | "liveAddressKey"
    | "pinnedId"
    | "tiebreak"
    | "rename"
  >,
  "liveAddressKey" | "pinnedId"
>;

/**
 * The dotted paths of a view type (`description`, `config.file_path`): a `fields` rule's path
 * is checked against the view at compile time. A view typed only as `JsonObject` has any
 * string as a path (nothing to check against).
 */
export type ViewPath<V> = string extends keyof V
  ? string
  : {
      [M in keyof V & string]:
        | M
        | (NonNullable<V[M]> extends readonly unknown[]
            ? never
            : NonNullable<V[M]> extends object
              ? `${M}.${ViewPath<NonNullable<V[M]>>}`
              : never);
    }[keyof V & string];

/** A `fields` rule, its path one of the view's (compareFields' FieldRule otherwise). */
export type ViewRule<V> = Omit<FieldRule, "path"> & {
  readonly path: ViewPath<V>;
  /** Why a change of this field forces a replace (mode `replace`): the plan's reason. */
  readonly why?: string;
};

/** What differs between a declared item and its live match, and what a replace means. */
export type DiffGroup<D, L, V extends JsonObject> = Opt<
  Pick<
    K<D, L, ParentName>,
    "unresolvedSecrets" | "fingerprint" | "replaceOrder" | "replaceOrderWhy"
  >,
  "unresolvedSecrets" | "fingerprint" | "replaceOrder" | "replaceOrderWhy"
> & {
  desiredView(d: D, env: KindEnv): V;
  liveView(l: L): V;
} & (
    | Pick<K<D, L, ParentName>, "compare">
    | {
        /**
         * The compared fields of the two views, as rules (compareFields: a value the
         * config leaves out is not managed); a function when they depend on the item.
         */
        readonly fields: readonly ViewRule<V>[] | ((d: D) => readonly ViewRule<V>[]);
      }
  );

/** How the items are read and written over the API (the spec's routes, as data). */
export type WireGroup<D, L> = Opt<
  Pick<
    K<D, L, ParentName>,
    | "list"
    | "createCalls"
    | "updateCalls"
    | "deleteCalls"
    | "refParams"
    | "bodyFallback"
    | "nameById"
    | "unknown"
    | "unknownMembers"
  >,
  "updateCalls"
>;

/** Where the items sit in the desired model, the live tree, addresses and drift's list. */
export type PlaceGroup<D, L, P extends ParentName> = Partial<
  Pick<K<D, L, P>, "livePlace" | "unmanaged" | "desiredItems" | "liveItems">
> & {
  /** The members of the planner's collection that differ from the plain collection's. */
  readonly collection?: Partial<Collection<D, L, P>>;
};

type ConfigDefaulted = "shape" | "schemaDef" | "declares";

/** How the config writes the items (ConfigPart), and how export writes live items back. */
export type ConfigGroup<D, L> = Opt<ConfigPart<D, never>, ConfigDefaulted> & {
  /** Live → config for `waybill export` (the contract's `toConfig`). */
  readonly export: K<D, L, ParentName>["toConfig"];
};

/** What apply (and the plan) do beyond the usual; `adopt` defaults to re-list by key. */
export type HooksGroup<D, L> = Partial<
  Pick<
    K<D, L, ParentName>,
    "adopt" | "afterCreate" | "announce" | "createdValues" | "refusal" | "destroys" | "refusePlan"
  >
>;

type MembersOf<T, V> = { [M in keyof T]-?: T[M] extends V ? M : never }[keyof T] & string;

/**
 * A reference written as one member of an item of an org-level map, by name (issue 47: the
 * usual case, said once): the desired item's `field` holds the name, the live item's (and
 * both views') `id` member the id, and `named` gives the live item its name under `name`.
 * Flattened to a full `Reference`: `written` walks the declared items (config path
 * `<yamlKey>.<key>.<field>`), `liveIds` reads `id` of a change's `before`, and, with
 * `param`, the item's `refParams` gives the id (or the pending create) as that call param.
 */
export interface FieldReference<D, L> {
  readonly field: MembersOf<D, string | undefined>;
  readonly to: Reference<L>["to"];
  readonly id: MembersOf<L, string | null | undefined>;
  readonly name: MembersOf<L, string | undefined>;
  readonly param?: string;
  readonly deletedWithReferred?: true;
  readonly ordersDeletes?: false;
}

/** A kind as its module writes it: the contract's members by group, with defaults. */
export interface KindGroups<D, L, P extends ParentName, V extends JsonObject = JsonObject> {
  readonly identity: IdentityGroup<D, L, P>;
  readonly diff: DiffGroup<D, L, V>;
  readonly wire: WireGroup<D, L>;
  readonly place?: PlaceGroup<D, L, P>;
  readonly config: ConfigGroup<D, L>;
  readonly references?: readonly (Reference<L> | FieldReference<D, L>)[];
  readonly hooks?: HooksGroup<D, L>;
}

/**
 * Identity by name, with an id and an `id:` pin (which picks one of several live items of
 * one name), renamed in place by the update call's `name` (issue 19 `moved`): webhooks and
 * pipelines.
 */
export const renamableByName = <
  D extends { readonly name: string; readonly id?: string | undefined },
  L extends { readonly name: string; readonly id: string },
>(): Omit<IdentityGroup<D, L, ParentName>, "type" | "parent"> => ({
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveId: (l) => l.id,
  pinnedId: (d) => d.id,
  rename: { can: true, field: () => "name", relabel: (l, name) => ({ ...l, name }) },
});

/** `runner_resource_class` → `runnerResourceClass`: the schema's `$defs` naming. */
export const camelType = (type: string): string =>
  type.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The items a parent record holds under a YAML key: a map's values or a list. */
const itemsUnder = <T>(record: object, key: string): readonly T[] | undefined => {
  const v = (record as Record<string, unknown>)[key];
  if (v === undefined) return undefined;
  return v instanceof Map ? [...(v.values() as Iterable<T>)] : (v as readonly T[]);
};

/** The plain collection of a kind under the org, a project or a context. */
const plainCollection = <D, L, P extends ParentName>(
  g: KindGroups<D, L, P, JsonObject>,
): Collection<D, L, P> => {
  const key = g.config.yamlKey;
  return {
    name: key,
    segment: { name: String(g.identity.type), keyed: true },
    desiredIn: (parent) => itemsUnder<D>(parent, key),
    liveIn: (parent) => itemsUnder<L>(parent, key),
    addressKey: (d) => g.identity.desiredKey(d),
    onParentDelete: "cascades",
    ...g.place?.collection,
  };
};

type Item<T, F extends string> = { readonly [k in F]: T };

/**
 * Every declared item with its address, and every live one read (as `livePlace` keeps it:
 * a pipeline's synthetic one too) keyed `<parent>|<segment>:<id or key>` for saved plans.
 */
const plainItems = <D, L, P extends ParentName>(
  parent: P,
  c: Collection<D, L, P>,
  stored: (record: never) => readonly L[] | undefined,
  liveKeyOf: (l: L) => string,
): Pick<K<D, L, P>, "desiredItems" | "liveItems"> => {
  const step = (d: D) => ({ name: c.segment.name, key: c.addressKey(d) });
  const liveStep = (l: L) => `${c.segment.name}:${liveKeyOf(l)}`;
  const inOrg = c as unknown as Collection<D, L, "org">;
  const under = c as unknown as Collection<D, L, "project">;
  const inContext = c as unknown as Collection<D, L, "context">;
  switch (parent) {
    case "org":
      return {
        desiredItems: function* (org) {
          for (const d of inOrg.desiredIn(org) ?? [])
            yield { address: formatAddress([step(d)]), item: d };
        },
        liveItems: function* (org) {
          for (const l of stored(org as never) ?? []) yield { key: liveStep(l), item: l };
        },
      };
    case "project":
      return {
        desiredItems: function* (org) {
          for (const [slug, p] of org.projects) {
            for (const d of under.desiredIn(p) ?? []) {
              yield { address: formatAddress([{ name: "project", key: slug }, step(d)]), item: d };
            }
          }
        },
        liveItems: function* (org) {
          for (const [slug, p] of foundProjects(org)) {
            for (const l of stored(p as never) ?? [])
              yield { key: `project:${slug}|${liveStep(l)}`, item: l };
          }
        },
      };
    case "context":
      return {
        desiredItems: function* (org) {
          for (const ctx of org.contexts?.values() ?? []) {
            for (const d of inContext.desiredIn(ctx) ?? []) {
              yield {
                address: formatAddress([{ name: "context", key: ctx.name }, step(d)]),
                item: d,
              };
            }
          }
        },
        liveItems: function* (org) {
          for (const ctx of org.contexts ?? []) {
            for (const l of stored(ctx as never) ?? [])
              yield { key: `context:${ctx.id}|${liveStep(l)}`, item: l };
          }
        },
      };
    default:
      throw new Error(`a kind under a ${parent} gives its place's desiredItems and liveItems`);
  }
};

const isFieldReference = <D, L>(
  r: Reference<L> | FieldReference<D, L>,
): r is FieldReference<D, L> => !("written" in r);

/** A FieldReference as the contract's Reference (see FieldReference). */
const fullReference = <D, L>(
  r: FieldReference<D, L>,
  yamlKey: string,
  items: (org: DesiredOrg) => Iterable<{ readonly address: string; readonly item: D }>,
  keyOf: (d: D) => string,
): Reference<L> => ({
  field: r.field,
  to: r.to,
  by: ["name"],
  writtenAs: (value) => `${r.field}: ${value}`,
  written: function* (org) {
    for (const { address, item } of items(org)) {
      const value = (item as Item<string | undefined, typeof r.field>)[r.field];
      const { source } = item as { readonly source: SourceLocation };
      const path = `${yamlKey}.${keyOf(item)}.${r.field}`;
      if (value !== undefined) yield { address, value, form: "name", source, path };
    }
  },
  liveIds: (before) => {
    const id = before[r.id];
    return typeof id === "string" ? [id] : [];
  },
  named: (l, nameOf) => {
    const id = (l as Item<string | null | undefined, typeof r.id>)[r.id];
    const name = typeof id === "string" ? nameOf(id) : undefined;
    return name === undefined ? l : { ...l, [r.name]: name };
  },
  ...(r.deletedWithReferred && { deletedWithReferred: true }),
  ...(r.ordersDeletes === false && { ordersDeletes: false }),
});

/**
 * Where an item is recorded as declared (two declarations of one address are an error naming
 * both places): a list item at its value (one list may name an item twice); a map item of
 * the org at its key (several files may declare one org). A map below the org is not
 * recorded: its parent (a project, a context) is declared by one file, and YAML keys are
 * unique, so the map cannot name an item twice.
 */
const declaredAt = (shape: ConfigPart<unknown, never>["shape"], parent: ParentName) =>
  shape === "list"
    ? { declares: "value" as const }
    : shape === "map" && parent === "org"
      ? { declares: "key" as const }
      : {};

/** A full kind from its groups, every default filled in (see the table above). */
export const defineKind = <D, L, P extends ParentName, V extends JsonObject = JsonObject>(
  groups: KindGroups<D, L, P, V>,
): ResourceKind<D, L, P> => {
  const g = groups as unknown as KindGroups<D, L, P, JsonObject>;
  const { identity, wire, config, hooks } = g;
  const { export: toConfig, ...configPart } = config;
  const { collection: _c, ...place } = g.place ?? {};
  const shape = configPart.shape ?? "map";
  const collection = plainCollection(g);
  const livePlace = (g.place?.livePlace ??
    placeByYamlKey<L, P>(identity.parent, configPart.yamlKey)) as LivePlace<L>;
  // The place's members given win over the plain collection's items.
  const placed = {
    ...(place.desiredItems && place.liveItems
      ? {}
      : plainItems(
          identity.parent,
          collection,
          (record) => livePlace.stored(record),
          (l) => identity.liveId(l) ?? identity.liveKey(l),
        )),
    ...place,
    livePlace,
  } as Pick<K<D, L, P>, "desiredItems" | "liveItems" | "livePlace" | "unmanaged">;
  const { fields, ...diff } = g.diff as DiffGroup<D, L, JsonObject> & {
    readonly fields?: readonly ViewRule<JsonObject>[] | ((d: D) => readonly ViewRule<JsonObject>[]);
  };
  if (fields !== undefined && diff.replaceOrder === undefined) {
    const rules = typeof fields === "function" ? [] : fields;
    if (rules.some((r) => r.mode === "replace")) {
      throw new Error(`${identity.type}: a replace rule needs the kind's replaceOrder`);
    }
  }
  const compare: K<D, L, P>["compare"] =
    "compare" in diff
      ? diff.compare
      : (d, l, env) => {
          const acc = newComparison();
          const rules = typeof fields === "function" ? fields(d) : (fields ?? []);
          for (const f of compareFields(diff.desiredView(d, env), diff.liveView(l), rules)) {
            acc.fields.push(f);
            const why = rules.find((r) => r.path === f.path)?.why;
            if (f.forces_replacement)
              acc.replace_reasons.push(`${f.path}: ${why ?? "cannot change in place"}`);
          }
          return acc;
        };
  if (
    (g.references ?? []).some(isFieldReference) &&
    (identity.parent !== "org" || shape !== "map")
  ) {
    // Its config path (`<yamlKey>.<key>.<field>`) is an org-level map item's.
    throw new Error(`${identity.type}: a FieldReference is for an org-level map; give a Reference`);
  }
  const refs = (g.references ?? []).map((r) =>
    isFieldReference(r)
      ? fullReference(r, configPart.yamlKey, placed.desiredItems, collection.addressKey)
      : r,
  );
  const params = (g.references ?? []).filter(isFieldReference).filter((r) => r.param);
  const refParams: Pick<K<D, L, P>, "refParams"> = params.length === 0
    ? {}
    : {
        refParams: (d, env) => {
          const out: Record<string, string | { readonly pending: string }> = {
            ...wire.refParams?.(d, env),
          };
          for (const r of params) {
            const name = (d as Item<string | undefined, typeof r.field>)[r.field];
            const id = name === undefined ? undefined : env.refId(r.to, name);
            if (id !== undefined) out[r.param as string] = id;
          }
          return out;
        },
      };
  const spec: FlatKindSpec<D, L, P> = {
    ...identity,
    replaceOrder: diff.replaceOrder ?? "never",
    replaceOrderWhy: diff.replaceOrderWhy ?? "every field it compares updates in place",
    ...diff,
    compare,
    updateCalls: () => [],
    ...wire,
    ...refParams,
    adopt: {
      by: "relist",
      matches: (d, _after, l) => identity.liveKey(l) === identity.desiredKey(d),
    },
    ...hooks,
    ...placed,
    collection,
    toConfig,
    config: {
      schemaDef: camelType(String(identity.type)),
      ...declaredAt(shape, identity.parent),
      ...configPart,
      shape,
    },
    ...(refs.length > 0 && { references: refs }),
  };
  return defineFlatKind(spec);
};
