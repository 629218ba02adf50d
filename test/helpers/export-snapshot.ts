/**
 * Export snapshots for tests, written briefly (env vars by name, restrictions by type and
 * value, projects as a list), turned into the export's snapshot: the live model
 * (src/export/snapshot.ts).
 */
import type {
  OrgSettingsAttributes,
  ProjectSettingsAttributes,
  RestrictionTypeWire,
} from "../../src/core/wire.js";
import type { ExportSnapshot } from "../../src/export/index.js";
import type { LiveWebhook } from "../../src/kinds/webhook.js";
import type { LivePipeline, LiveTrigger } from "../../src/model/live.js";

export interface NestedContext {
  readonly id: string;
  readonly name: string;
  /** Env var names. */
  readonly env: readonly string[];
  readonly restrictions: readonly {
    readonly id: string;
    readonly type: RestrictionTypeWire;
    readonly match_pattern: string;
    /** The value a config writes: project slug (or id), expression, group id or `all-members`. */
    readonly value: string;
  }[];
}

export interface NestedProject {
  readonly id: string;
  readonly slug: string;
  readonly settings: ProjectSettingsAttributes;
  /** Env var names. */
  readonly env: readonly string[];
  readonly webhooks: readonly LiveWebhook[];
  readonly pipelines: readonly LivePipeline[];
  /** Every trigger of the project; each names its pipeline. */
  readonly triggers: readonly LiveTrigger[];
}

export interface NestedSnapshot {
  readonly org: { readonly id: string; readonly slug: string };
  readonly settings: OrgSettingsAttributes;
  readonly contexts: readonly NestedContext[];
  readonly projects: readonly NestedProject[];
}

export const snapshotOf = (s: NestedSnapshot): ExportSnapshot => ({
  status: "found",
  id: s.org.id,
  slug: s.org.slug,
  settings: s.settings,
  contexts: s.contexts.map((c) => ({
    id: c.id,
    name: c.name,
    env: c.env.map((name) => ({ name })),
    restrictions: c.restrictions.map((r) => ({
      id: r.id,
      restriction_type: r.type,
      match_pattern: r.match_pattern,
      key_value: r.value,
    })),
  })),
  projects: new Map(
    s.projects.map((p) => [
      p.slug,
      {
        status: "found",
        id: p.id,
        slug: p.slug,
        settings: p.settings,
        env: p.env.map((name) => ({ name })),
        webhooks: p.webhooks,
        pipelines: p.pipelines,
        triggers: p.triggers,
      },
    ]),
  ),
});
