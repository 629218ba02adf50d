/**
 * `defineFlatKind`: a kind written as the flat contract, with the defaults most kinds share
 * filled in (issue 31: a slimmer contract), so a module states only what is particular to
 * it. New kinds use the grouped spec (`defineKind`, src/kinds/grouped.ts), which flattens
 * through this; the project (`defineWalkedParent`, below) still uses it. The result is a full
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
import type { LivePlaceUnder, ParentName, ResourceKind, UnmanagedLine } from "./contract.js";
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
