/**
 * How to find an item again after an uncertain create (design.md §1 "Apply": "A create that
 * timed out or got a 5xx is never blindly re-sent: Waybill re-lists and adopts the item if
 * it exists"). Driven by the kind (src/kinds/contract.ts): its `list` reads the parent's
 * items again, its `adopt.matches` says which one this change created.
 */
import { ApiError } from "../api/errors.js";
import type { Api } from "../api/types.js";
import type { ListScope, ResourceKind } from "../kinds/contract.js";
import { type Kinds, kindIn } from "../kinds/references.js";
import { kindOf } from "../kinds/registry.js";
import type { JsonObject } from "../kinds/values.js";
import type { ResourceType } from "../model/address.js";
import type { Change } from "../plan/types.js";
import { type ResolvedParams, setParamFields } from "./body.js";
import type { DesiredItem } from "./desired-index.js";

/** What a re-list found: the item (its id when the kind has one), or nothing. */
export type Found =
  | { readonly found: false }
  | { readonly found: true; readonly id?: string; readonly live: unknown };

export interface RelistInput {
  readonly api: Api;
  readonly change: Change;
  readonly params: ResolvedParams;
  readonly desired: DesiredItem | undefined;
  readonly signal?: AbortSignal;
  /**
   * Ids this apply deletes (delete changes, the old half of replaces, the surplus of a
   * key): never adopted, so an uncertain create is not matched to an item about to go.
   */
  readonly deleting?: ReadonlySet<string>;
  /** The kinds the change is of (default: the registry's; src/apply/executor.ts `kinds`). */
  readonly kinds?: Kinds;
}

const kindFor = (kinds: Kinds | undefined, type: ResourceType) =>
  kinds === undefined ? kindOf(type) : kindIn(kinds, type);

/**
 * The listing scope of a change: its resolved params carry the parent's ids, and its
 * planned view the name of the item sought.
 */
const scopeOf = (params: ResolvedParams, change: Change): ListScope => ({
  ...(typeof change.after?.name === "string"
    ? { name: change.after.name }
    : typeof change.before?.name === "string"
      ? { name: change.before.name }
      : {}),
  ...(params.org_id === undefined ? {} : { org_id: params.org_id }),
  ...(params.project_id === undefined ? {} : { project_id: params.project_id }),
  ...(params.project_slug === undefined ? {} : { project_slug: params.project_slug }),
  ...(params.context_id === undefined ? {} : { context_id: params.context_id }),
  ...(params.pipeline_id === undefined ? {} : { pipeline_id: params.pipeline_id }),
});

/**
 * On a replace the old item (params.id) may still exist with the same key
 * (create-before-delete): it is never the one this create made. Nor is an item this apply
 * deletes (a same-key surplus, design.md §1 "Identity").
 */
const notOld = (change: Change, id: string | undefined, deleting?: ReadonlySet<string>): boolean =>
  (change.action !== "replace" || id !== change.params.id) &&
  (id === undefined || deleting?.has(id) !== true);

/**
 * List the change's parent again and find the live item `pick` chooses among those that
 * are not the old half of a replace nor about to be deleted.
 */
export const relistFind = async (
  input: RelistInput,
  pick: (kind: ResourceKind<unknown, unknown>, desired: unknown, l: unknown) => boolean,
): Promise<Found> => {
  const { api, change, params, desired, signal, deleting } = input;
  if (desired === undefined || desired.type !== change.resource_type) return { found: false };
  const kind = kindFor(input.kinds, change.resource_type);
  const items = await kind.list(api, scopeOf(params, change), signal ? { signal } : {});
  const m = items.find(
    (l) => notOld(change, kind.liveId(l), deleting) && pick(kind, desired.item, l),
  );
  if (m === undefined) return { found: false };
  const id = kind.liveId(m);
  return id === undefined ? { found: true, live: m } : { found: true, id, live: m };
};

/**
 * The planned view with the fields apply fills from params (`param_fields`: a group's id
 * known only at apply) set to their resolved values, so `matches` compares what was sent.
 */
const sentView = (change: Change, params: ResolvedParams): JsonObject => {
  const after = structuredClone(change.after ?? {}) as JsonObject;
  for (const call of change.calls) setParamFields(after, call, params);
  return after;
};

/** Re-list after an uncertain create: the item the kind's `adopt.matches` names, if any. */
export const relistCreated = (input: RelistInput): Promise<Found> => {
  const after = sentView(input.change, input.params);
  return relistFind(input, (kind, d, l) =>
    kind.adopt.by === "relist" ? kind.adopt.matches(d, after, l) : false,
  );
};

/**
 * Issue 28: after a DELETE answered 404, whether the parent's listing still shows the item
 * (by its id). A 404 proves nothing by itself: a V2 route called with a slug the service
 * does not know answers 404 for a project its V3 listing shows. Only a re-list that does not
 * show the item proves it gone. A kind without ids (a singleton) is not re-listed; a listing
 * whose parent is gone (404) shows nothing.
 */
export const stillListed = async (
  api: Api,
  change: Change,
  params: ResolvedParams,
  kinds?: Kinds,
): Promise<boolean> => {
  const kind = kindFor(kinds, change.resource_type);
  const id = "id" in change && typeof change.id === "string" ? change.id : change.params.id;
  if (typeof id !== "string") return false;
  let items: readonly unknown[];
  try {
    items = await kind.list(api, scopeOf(params, change));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return false;
    throw err;
  }
  return items.some((l) => kind.liveId(l) === id);
};
