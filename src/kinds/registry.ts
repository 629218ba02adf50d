/**
 * The one table of resource kinds (conventions.md §3). Keyed by resource type so a lookup
 * is typed: `KINDS.webhook` is a `ResourceKind<DesiredWebhook, LiveWebhook>`.
 */
import type { ResourceType } from "../model/address.js";
import { contextKind } from "./context.js";
import { contextEnvVarKind } from "./context-env-var.js";
import { contextRestrictionKind } from "./context-restriction.js";
import { orgSettingsKind } from "./org-settings.js";
import { pipelineKind } from "./pipeline.js";
import { projectEnvVarKind } from "./project-env-var.js";
import { projectSettingsKind } from "./project-settings.js";
import { triggerKind } from "./trigger.js";
import { webhookKind } from "./webhook.js";

export const KINDS = {
  org_settings: orgSettingsKind,
  context: contextKind,
  context_env_var: contextEnvVarKind,
  context_restriction: contextRestrictionKind,
  project_settings: projectSettingsKind,
  project_env_var: projectEnvVarKind,
  webhook: webhookKind,
  pipeline: pipelineKind,
  trigger: triggerKind,
} as const satisfies Record<ResourceType, { readonly type: ResourceType }>;

export type KindRegistry = typeof KINDS;

/** The replace order of a kind, by type (what src/plan/order.ts needs without generics). */
export const replaceOrderOf = (type: ResourceType): (typeof KINDS)[ResourceType]["replaceOrder"] =>
  KINDS[type].replaceOrder;
