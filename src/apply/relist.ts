/**
 * How to find an item again after an uncertain create (design.md §1 "Apply": "A create that
 * timed out or got a 5xx is never blindly re-sent: Waybill re-lists and adopts the item if
 * it exists"). One entry per resource type that is created with a POST: which collection
 * of the parent to list, and which listed item is the one this change created (by the
 * kind's identity key). The data of the plan's calls does not say this, so it is a table.
 */
import type { Api } from "../api/types.js";
import type {
  ContextAttributes,
  ContextRestrictionAttributes,
  PipelineAttributes,
  ProjectEnvVarAttributes,
  TriggerAttributes,
  WebhookAttributes,
} from "../api/wire.js";
import { triggerKind } from "../kinds/trigger.js";
import { toLiveTrigger } from "../live/read-live-state.js";
import type { ResourceType } from "../model/address.js";
import type { Change } from "../plan/types.js";
import type { ResolvedParams } from "./body.js";
import type { DesiredItem } from "./desired-index.js";

/** What a re-list found: the item (with its id when the kind has one), or nothing. */
export type Found =
  | { readonly found: false }
  | { readonly found: true; readonly id?: string; readonly lastFour?: string };

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
}

type Relister = (input: RelistInput) => Promise<Found>;

const need = (params: ResolvedParams, name: string): string => {
  const v = params[name];
  if (v === undefined) throw new Error(`re-list needs the param ${name}`);
  return v;
};

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * On a replace the old item (params.id) may still exist with the same key
 * (create-before-delete): it is never the one this create made. Nor is an item this apply
 * deletes (a same-key surplus, design.md §1 "Identity").
 */
const notOld = (change: Change, id: string | undefined, deleting?: ReadonlySet<string>): boolean =>
  (change.action !== "replace" || id !== change.params.id) &&
  (id === undefined || deleting?.has(id) !== true);

const hit = (id: string | undefined): Found =>
  id === undefined ? { found: true } : { found: true, id };

export const RELISTERS: Partial<Record<ResourceType, Relister>> = {
  // spec: Contexts: filter[name] is a substring search, so the match is exact here.
  context: async ({ api, change, params, signal, deleting }) => {
    const name = str(change.after?.name);
    const items = await api.listV3<ContextAttributes>(
      "/contexts",
      { "filter[org_id]": need(params, "org_id"), ...(name ? { "filter[name]": name } : {}) },
      signal ? { signal } : {},
    );
    const m = items.find((i) => i.attributes.name === name && notOld(change, i.id, deleting));
    return m ? hit(m.id) : { found: false };
  },
  context_restriction: async ({ api, change, params, signal }) => {
    const items = await api.listV3<ContextRestrictionAttributes>(
      "/context-restrictions",
      { "filter[context_id]": need(params, "context_id") },
      signal ? { signal } : {},
    );
    const m = items.find(
      (i) =>
        i.attributes.restriction_type === change.after?.restriction_type &&
        i.attributes.match_pattern === change.after?.match_pattern,
    );
    return m ? hit(m.id) : { found: false };
  },
  webhook: async ({ api, change, params, signal, deleting }) => {
    const items = await api.listV3<WebhookAttributes>(
      "/webhooks",
      { "filter[project_id]": need(params, "project_id") },
      signal ? { signal } : {},
    );
    const m = items.find(
      (i) => i.attributes.name === change.after?.name && notOld(change, i.id, deleting),
    );
    return m ? hit(m.id) : { found: false };
  },
  pipeline: async ({ api, change, params, signal, deleting }) => {
    const items = await api.listV3<PipelineAttributes>(
      "/pipelines",
      { "filter[project_id]": need(params, "project_id") },
      signal ? { signal } : {},
    );
    const m = items.find(
      (i) => i.attributes.name === change.after?.name && notOld(change, i.id, deleting),
    );
    return m ? hit(m.id) : { found: false };
  },
  trigger: async ({ api, change, params, desired, signal, deleting }) => {
    if (desired?.type !== "trigger") return { found: false };
    const items = await api.listV3<TriggerAttributes>(
      "/triggers",
      { "filter[pipeline_id]": need(params, "pipeline_id") },
      signal ? { signal } : {},
    );
    const want = triggerKind.desiredKey(desired.item);
    // design.md §1 "Identity": a vcs trigger is its repo and, since several may share it,
    // its filter too; schedule and webhook triggers are their name.
    const m = items
      .filter((i) => i.id !== undefined && notOld(change, i.id, deleting))
      .map((i) => toLiveTrigger(i))
      .find(
        (l) =>
          triggerKind.liveKey(l) === want &&
          (desired.item.event.type !== "vcs" || triggerKind.tiebreak?.(desired.item, l) !== false),
      );
    return m ? hit(m.id) : { found: false };
  },
  project_env_var: async ({ api, change, params, signal }) => {
    const items = await api.listV3<ProjectEnvVarAttributes>(
      `/projects/${encodeURIComponent(need(params, "project_id"))}/environment-variables`,
      {},
      signal ? { signal } : {},
    );
    const m = items.find((i) => i.attributes.name === change.after?.name);
    if (!m) return { found: false };
    return m.attributes.truncated_value === undefined
      ? { found: true }
      : { found: true, lastFour: m.attributes.truncated_value };
  },
};
