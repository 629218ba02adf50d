/**
 * The kinds of the registry by where their collections sit in the live tree (a kind's
 * `livePlace`, src/kinds/contract.ts): what the live reader and drift's unmanaged list walk,
 * so neither names a kind's route, wire type or place in the tree.
 */
import type { LivePlace, LivePlaces, ResourceKind } from "../kinds/contract.js";
import { ALL_KINDS, KINDS } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";

/** A kind with its items' types forgotten, next to its place narrowed to one parent. */
export interface Placed<U extends LivePlace<unknown>["under"]> {
  readonly kind: ResourceKind<unknown, unknown>;
  readonly place: LivePlaces<unknown>[U];
}

/** Every kind whose collection is kept under `under`, in the registry's order. */
export const kindsUnder = <U extends LivePlace<unknown>["under"]>(under: U): Placed<U>[] =>
  ALL_KINDS.flatMap((kind) => {
    const place = kind.livePlace;
    // `place.under === under` does not narrow a union by a type parameter; the test above
    // is what makes this the U variant.
    return place.under === under ? [{ kind, place: place as LivePlaces<unknown>[U] }] : [];
  });

/** The parts the kinds' `store` gave, as one record (each kind fills its own keys). */
export const mergeParts = <T extends object>(parts: readonly T[]): Partial<T> => {
  const out: Partial<T> = {};
  for (const part of parts) Object.assign(out, part);
  return out;
};

/**
 * The org-level kinds whose listing the walk does itself, because their items are the
 * parents of other kinds' reads (a context's pages start each context's reads; declared projects are
 * resolved one by one): the live reader and export list every other org-level kind by its own `list`.
 */
export const isWalkedParent = (type: ResourceType): boolean =>
  type === KINDS.context.type || type === KINDS.project.type;
