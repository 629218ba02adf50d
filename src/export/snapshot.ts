/**
 * What `waybill export` reads: everything of one org (settings, every context with its env
 * var names and restrictions) and of the chosen projects. Values of secrets are never part
 * of it: the API never returns them (design.md §1 "Secrets").
 */
import type {
  OrgSettingsAttributes,
  ProjectSettingsAttributes,
  RestrictionTypeWire,
} from "../core/wire.js";
import type { LiveWebhook } from "../kinds/webhook.js";
import type { LivePipeline, LiveTrigger } from "../model/live.js";

export interface ExportSnapshot {
  readonly org: { readonly id: string; readonly slug: string };
  readonly settings: OrgSettingsAttributes;
  readonly contexts: readonly SnapshotContext[];
  readonly projects: readonly SnapshotProject[];
}

export interface SnapshotContext {
  readonly id: string;
  readonly name: string;
  /** Env var names only. */
  readonly env: readonly string[];
  readonly restrictions: readonly SnapshotRestriction[];
}

export interface SnapshotRestriction {
  readonly id: string;
  readonly type: RestrictionTypeWire;
  readonly match_pattern: string;
  /** The value a config writes: project slug (or id when unresolvable), expression, group id or `all-members`. */
  readonly value: string;
}

export interface SnapshotProject {
  readonly id: string;
  readonly slug: string;
  readonly settings: ProjectSettingsAttributes;
  /** Env var names only. */
  readonly env: readonly string[];
  readonly webhooks: readonly LiveWebhook[];
  /** Every listed pipeline; `synthetic` marks the OAuth one (left out of the export). */
  readonly pipelines: readonly LivePipeline[];
  /** Every trigger of the project; `synthetic` marks those of the OAuth pipeline. */
  readonly triggers: readonly LiveTrigger[];
}
