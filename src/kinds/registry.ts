/**
 * The one table of resource kinds (conventions.md §3). Keyed by resource type so a lookup
 * is typed: `KINDS.webhook` is a `ResourceKind<DesiredWebhook, LiveWebhook>`.
 */
import type { ResourceType } from "../model/address.js";
import { checkoutKeyKind } from "./checkout-key.js";
import { contextKind } from "./context.js";
import { contextEnvVarKind } from "./context-env-var.js";
import { contextRestrictionKind } from "./context-restriction.js";
import type { ParentName, ResourceKind } from "./contract.js";
import { groupKind } from "./group.js";
import { orgSettingsKind } from "./org-settings.js";
import { otelExporterKind } from "./otel-exporter.js";
import { pipelineKind } from "./pipeline.js";
import { projectKind } from "./project.js";
import { projectEnvVarKind } from "./project-env-var.js";
import { projectSettingsKind } from "./project-settings.js";
import { ssoGroupMappingsKind } from "./sso-group-mappings.js";
import { triggerKind } from "./trigger.js";
import { webhookKind } from "./webhook.js";

export const KINDS = {
  org_settings: orgSettingsKind,
  group: groupKind,
  sso_group_mappings: ssoGroupMappingsKind,
  context: contextKind,
  context_env_var: contextEnvVarKind,
  context_restriction: contextRestrictionKind,
  otel_exporter: otelExporterKind,
  project: projectKind,
  project_settings: projectSettingsKind,
  project_env_var: projectEnvVarKind,
  checkout_key: checkoutKeyKind,
  webhook: webhookKind,
  pipeline: pipelineKind,
  trigger: triggerKind,
} as const satisfies {
  // Exhaustive: a resource type without its kind, or a kind that leaves out a part of the
  // contract, is a compile error (docs/adding-a-kind.md).
  readonly [T in ResourceType]: ResourceKind<unknown, unknown>;
};

export type KindRegistry = typeof KINDS;

/** The desired item type of a kind, by resource type. */
export type DesiredOf<T extends ResourceType> =
  KindRegistry[T] extends ResourceKind<infer D, infer _L> ? D : never;
/** The live item type of a kind, by resource type. */
export type LiveOf<T extends ResourceType> =
  KindRegistry[T] extends ResourceKind<infer _D, infer L> ? L : never;

/** A kind with its item types forgotten, for code that walks every kind alike. */
export const kindOf = (type: ResourceType): ResourceKind<unknown, unknown> =>
  KINDS[type] as ResourceKind<unknown, unknown>;

/** Every kind, in the registry's order. */
export const ALL_KINDS: readonly ResourceKind<unknown, unknown>[] = Object.values(KINDS);

const BY_PARENT = new Map<string, ResourceKind<unknown, unknown>[]>();
for (const kind of ALL_KINDS) {
  const list = BY_PARENT.get(kind.parent) ?? [];
  list.push(kind);
  BY_PARENT.set(kind.parent, list);
}

/**
 * The kinds whose parent is `parent` (the org, a project, or a kind), in the registry's
 * order: what the planner's and the config loader's walks visit below a parent.
 */
export const childKinds = (
  parent: ParentName | string,
): readonly ResourceKind<unknown, unknown>[] => BY_PARENT.get(parent) ?? [];

const BY_PARENT_IN = new WeakMap<
  readonly ResourceKind<unknown, unknown>[],
  Map<string, ResourceKind<unknown, unknown>[]>
>();

/**
 * `childKinds` among `kinds` (the registry's, or a test's copy with a kind of its own: the
 * planner takes the kinds it walks as a parameter, src/plan/types.ts PlanOptions `kinds`).
 */
export const childKindsIn = (
  kinds: readonly ResourceKind<unknown, unknown>[],
  parent: ParentName | string,
): readonly ResourceKind<unknown, unknown>[] => {
  if (kinds === ALL_KINDS) return childKinds(parent);
  let byParent = BY_PARENT_IN.get(kinds);
  if (byParent === undefined) {
    byParent = new Map();
    for (const kind of kinds) {
      const list = byParent.get(kind.parent) ?? [];
      list.push(kind);
      byParent.set(kind.parent, list);
    }
    BY_PARENT_IN.set(kinds, byParent);
  }
  return byParent.get(parent) ?? [];
};
