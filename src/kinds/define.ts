/**
 * `defineFlatKind`: a kind with the defaults most kinds share filled in (issue 31: a slimmer
 * contract), so a module states only what is particular to it. The result is a full
 * `ResourceKind`: the planner and the registry see no difference. A member a kind gives
 * always wins over its default.
 *
 * Defaults:
 * - `liveAddressKey`: the `liveKey` (an unmatched live item is addressed by its identity);
 * - `pinnedId`: none (the kind has no `id:` pin);
 * - `unresolvedSecrets`: none (the kind holds no secret);
 * - `fingerprint`: the live item as it was read (it holds no secret part);
 * - `unmanaged`: listed, keyed by `liveAddressKey`;
 * - `livePlace` (when the parent is the org, a context or a project): the items are kept in
 *   the parent's live record under the kind's YAML key (`config.yamlKey`), and read when the
 *   parent's declaration has that key.
 */
import { formatAddress } from "../model/address.js";
import type {
  Collection,
  LivePlaceUnder,
  ParentName,
  ResourceKind,
  UnmanagedLine,
} from "./contract.js";
import { toJson } from "./values.js";

type Defaulted =
  | "liveAddressKey"
  | "pinnedId"
  | "unresolvedSecrets"
  | "fingerprint"
  | "unmanaged"
  | "livePlace";

/** A kind's module as written: the contract, with the defaulted members optional. */
export type FlatKindSpec<D, L, P extends ParentName> = Omit<ResourceKind<D, L, P>, Defaulted> &
  Partial<Pick<ResourceKind<D, L, P>, Defaulted>>;

/** The place of a kind kept under its YAML key in an org, context or project record. */
export const placeByYamlKey = <L, P extends ParentName>(
  parent: P,
  yamlKey: string,
): LivePlaceUnder<L, P> => {
  if (parent === "pipeline") {
    throw new Error(`a kind under a pipeline gives its livePlace (${yamlKey})`);
  }
  const get = (record: unknown): readonly L[] | undefined =>
    (record as Record<string, readonly L[] | undefined>)[yamlKey];
  return {
    under: parent,
    readFor: (decl: unknown) =>
      decl !== undefined && (decl as Record<string, unknown>)[yamlKey] !== undefined,
    store: (items: readonly L[]) => ({ [yamlKey]: items }),
    stored: get,
  } as unknown as LivePlaceUnder<L, P>;
};

/** A full kind from its module's spec, the shared defaults filled in. */
export const defineFlatKind = <D, L, P extends ParentName>(
  spec: FlatKindSpec<D, L, P>,
): ResourceKind<D, L, P> => {
  const liveAddressKey = spec.liveAddressKey ?? spec.liveKey;
  const unmanaged: UnmanagedLine<L> = spec.unmanaged ?? { listed: true, key: liveAddressKey };
  return {
    ...spec,
    liveAddressKey,
    pinnedId: spec.pinnedId ?? (() => undefined),
    unresolvedSecrets: spec.unresolvedSecrets ?? (() => []),
    fingerprint: spec.fingerprint ?? ((l) => toJson(l)),
    unmanaged,
    livePlace: spec.livePlace ?? placeByYamlKey<L, P>(spec.parent, spec.config.yamlKey),
  };
};

/** The members a walked parent's module leaves out (the walks that would use them skip it). */
type ParentStubs = "toConfig" | "livePlace" | "unmanaged" | "updateCalls" | "collection" | "config";

/**
 * A kind that is a parent the walks handle themselves (a project: the planner's project
 * walk plans its create and delete, the live reader resolves it, the loader builds it and
 * export writes it), as its module states it: without the members those walks never ask —
 * no export entries, no live place, no unmanaged line, no update (it is created or deleted
 * only), no generic collection (`desiredIn`/`liveIn`), no config builder
 * (`config.builtByLoader`). `defineWalkedParent` gives them, as the contract needs them.
 */
export type WalkedParentSpec<D, L> = Omit<FlatKindSpec<D, L, "org">, ParentStubs> & {
  /** Why drift never lists it as unmanaged. */
  readonly unmanagedWhy: string;
  readonly collection: Pick<
    ResourceKind<D, L, "org">["collection"],
    "name" | "segment" | "addressKey" | "onParentDelete"
  >;
  readonly config: Pick<
    ResourceKind<D, L, "org">["config"],
    "yamlKey" | "shape" | "schemaDef" | "schemaKeys"
  >;
};

export const defineWalkedParent = <D, L>(
  spec: WalkedParentSpec<D, L>,
): ResourceKind<D, L, "org"> => {
  const { unmanagedWhy, collection, config, ...rest } = spec;
  return defineFlatKind<D, L, "org">({
    ...rest,
    // Export writes it itself (src/export): its children are the kinds.
    toConfig: () => [],
    updateCalls: () => [],
    // The live reader resolves it itself (src/live/read-live-state.ts).
    livePlace: {
      under: "org",
      readFor: () => false,
      store: () => ({}),
      stored: () => undefined,
    },
    unmanaged: { listed: false, why: unmanagedWhy },
    // Never the generic walk's (src/plan/projects.ts plans it).
    collection: { ...collection, desiredIn: () => undefined, liveIn: () => undefined },
    config: {
      ...config,
      builtByLoader: true,
      build: () => {
        throw new Error(`${String(spec.type)} items are built by the loader (src/config/build.ts)`);
      },
    },
  });
};

/** The members `defineOrgCollection` fills for a plain collection under the org. */
type OrgDefaulted = "desiredItems" | "liveItems" | "collection" | "adopt" | "config";

/** The config members `defineOrgCollection` fills: a map of items, each declared at its key. */
type ConfigDefaulted = "shape" | "schemaDef" | "declares";

/**
 * An org-level collection's module as written (issue 47): `defineFlatKind`'s spec without what
 * a plain collection of the org says the usual way — where its items are, its address and
 * its items for apply and saved plans — all of which follow from its type, its YAML key and
 * its identity. A member given wins; `collection` may give only the members that differ.
 */
export type OrgCollectionSpec<D, L> = Omit<FlatKindSpec<D, L, "org">, OrgDefaulted> &
  Partial<Pick<FlatKindSpec<D, L, "org">, "desiredItems" | "liveItems" | "adopt">> & {
    readonly collection?: Partial<Collection<D, L, "org">>;
    readonly config: Omit<ResourceKind<D, L, "org">["config"], ConfigDefaulted> &
      Partial<Pick<ResourceKind<D, L, "org">["config"], ConfigDefaulted>>;
  };

/** `runner_resource_class` → `runnerResourceClass`: the schema's `$defs` naming. */
const camel = (type: string): string =>
  type.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * A kind whose items are a collection under the org, with `defineFlatKind`'s defaults and:
 * - `collection`: named as its YAML key, addressed `<type>["<desiredKey>"]`, the declared
 *   items the org's `config.yamlKey` (a map's values or a list), the live ones the live
 *   org's under the same key (`livePlace`'s default stores them there), removed with the org
 *   (`cascades`);
 * - `desiredItems`: every declared item at that address;
 * - `liveItems`: every live item, keyed `<type>:<liveId>` (its `liveKey` without an id);
 * - `adopt`: after an uncertain create, re-list and adopt the live item with its key;
 * - `config`: a map (`name: item`), each item declared at its key, its schema's `$defs`
 *   entry the type in camelCase (`runnerResourceClass`).
 */
export const defineOrgCollection = <D, L>(
  spec: OrgCollectionSpec<D, L>,
): ResourceKind<D, L, "org"> => {
  const key = spec.config.yamlKey;
  const itemsIn = <T>(record: object): readonly T[] | undefined => {
    const v = (record as Record<string, unknown>)[key];
    if (v === undefined) return undefined;
    return v instanceof Map ? [...(v.values() as Iterable<T>)] : (v as readonly T[]);
  };
  const collection: Collection<D, L, "org"> = {
    name: key,
    segment: { name: String(spec.type), keyed: true },
    desiredIn: (org) => itemsIn<D>(org),
    liveIn: (org) => itemsIn<L>(org),
    addressKey: (d) => spec.desiredKey(d),
    onParentDelete: "cascades",
    ...spec.collection,
  };
  const address = (d: D): string =>
    formatAddress([{ name: collection.segment.name, key: collection.addressKey(d) }]);
  const shape = spec.config.shape ?? "map";
  return defineFlatKind<D, L, "org">({
    ...spec,
    collection,
    adopt: spec.adopt ?? {
      by: "relist",
      matches: (d, _after, l) => spec.liveKey(l) === spec.desiredKey(d),
    },
    config: {
      schemaDef: camel(String(spec.type)),
      ...(shape === "map" ? { declares: "key" as const } : {}),
      ...spec.config,
      shape,
    },
    desiredItems:
      spec.desiredItems ??
      function* (org) {
        for (const d of collection.desiredIn(org) ?? []) yield { address: address(d), item: d };
      },
    liveItems:
      spec.liveItems ??
      function* (org) {
        for (const l of collection.liveIn(org, { org }) ?? []) {
          yield { key: `${String(spec.type)}:${spec.liveId(l) ?? spec.liveKey(l)}`, item: l };
        }
      },
  });
};
