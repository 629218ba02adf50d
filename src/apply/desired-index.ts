/**
 * The resolved desired items by org and address, so apply can take secret values from the
 * config (the plan never holds one: design.md §1 "Secrets") and match re-listed items by
 * the kind's identity. Built from every kind's `desiredItems` (src/kinds/registry.ts), so a
 * new kind is indexed without an entry here.
 */
import { type DesiredOf, KINDS } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";

/** A declared item with its kind: `item` has that kind's desired type. */
export type DesiredItem = {
  readonly [T in ResourceType]: { readonly type: T; readonly item: DesiredOf<T> };
}[ResourceType];

export interface DesiredIndex {
  get(org: string, address: string): DesiredItem | undefined;
}

const key = (org: string, address: string): string => `${org}\u0000${address}`;

const indexKind = <T extends ResourceType>(
  type: T,
  org: DesiredConfig["orgs"][number],
  put: (address: string, item: DesiredItem) => void,
): void => {
  const kind = KINDS[type] as unknown as {
    desiredItems(o: typeof org): Iterable<{ address: string; item: DesiredOf<T> }>;
  };
  for (const { address, item } of kind.desiredItems(org)) {
    put(address, { type, item } as DesiredItem);
  }
};

export const indexDesired = (desired: DesiredConfig): DesiredIndex => {
  const items = new Map<string, DesiredItem>();
  for (const org of desired.orgs) {
    for (const type of Object.keys(KINDS) as ResourceType[]) {
      indexKind(type, org, (address, item) => items.set(key(org.slug, address), item));
    }
  }
  return { get: (org, address) => items.get(key(org, address)) };
};
