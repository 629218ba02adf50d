/**
 * The live state: what src/live read from the service for what the config declares, with
 * human references resolved (project ids → slugs, the org id → `all-members`). The planner
 * (src/plan) diffs DesiredConfig against this; it never sees raw wire envelopes.
 *
 * A collection is read only when the config declares it (design.md §1 "Ownership"), so a
 * collection that was not read is `undefined`. A collection that was read is complete:
 * src/live either reads every page or fails (never prune from a partial read).
 */
import type {
  OrgSettingsAttributes,
  PipelineAttributes,
  ProjectSettingsAttributes,
  RestrictionTypeWire,
  TriggerAttributes,
  WebhookAttributes,
} from "../core/wire.js";

export interface LiveState {
  readonly orgs: readonly LiveOrg[];
}

/** A declared parent that could not be read: absent, or not visible to this token. */
export interface NotVisible {
  readonly status: "not_visible";
  /**
   * Issue 18: the look-up answered that no such project exists (an empty listing), as
   * opposed to a 403/404 on a read. A project declared `create: true` is created then.
   */
  readonly absent?: true;
  /** e.g. "GET /api/v3/projects?filter[slug]=gh/acme/x returned no project". */
  readonly reason: string;
  /**
   * Issue 40: the project was found, and this one of its collections answered 403/404 (the
   * kind's resource type, e.g. `webhook`): the plan names the collection, not the project,
   * as what could not be read.
   */
  readonly collection?: string;
}

export interface LiveOrg {
  readonly status: "found";
  readonly id: string;
  readonly slug: string;
  readonly settings?: OrgSettingsAttributes;
  /** The org's groups (when `groups` is declared). */
  readonly groups?: readonly LiveGroup[];
  /** The org's SSO group mappings (when `sso_group_mappings` is declared). */
  readonly sso_group_mappings?: LiveSsoGroupMappings;
  /** Every context of the org (when `contexts` is declared), or those declared by name. */
  readonly contexts?: readonly LiveContext[];
  /** The org's OTLP exporters (when `otel_exporters` is declared). */
  readonly otel_exporters?: readonly LiveOtelExporter[];
  /**
   * Issue 15: the names of the contexts that are org lock claims (src/lock/claim.ts), met
   * in the contexts listing; left out of `contexts` (never planned), kept so that plan can
   * say an apply holds the lock.
   */
  readonly lockNames?: readonly string[];
  /** Keyed by the project slug as declared in the config. */
  readonly projects: ReadonlyMap<string, LiveProject | NotVisible>;
  /**
   * Every project slug the config references in this org (declared projects and project
   * restrictions), resolved to its id: what a restriction create needs as `match_pattern`.
   * A slug that is absent or not visible is missing from the map.
   */
  readonly projectIds?: ReadonlyMap<string, string>;
}

export interface LiveContext {
  readonly id: string;
  readonly name: string;
  readonly env?: readonly LiveEnvVar[];
  readonly restrictions?: readonly LiveRestriction[];
}

/** An org group as V2 lists it (spec: api-v2-v1.md "Group"). */
export interface LiveGroup {
  readonly id: string;
  readonly name: string;
  /** "" when the service has none. */
  readonly description: string;
}

/** The org's IdP group → group mappings as V3 returns them (issue 17). */
export interface LiveSsoGroupMappings {
  readonly mappings: readonly {
    readonly idp_group_name: string;
    readonly group_id: string;
    /** The group's name, when the org's groups were read (export writes it). */
    readonly group_name?: string;
  }[];
}

export interface LiveEnvVar {
  readonly name: string;
  /** Last four characters of the value, when the service returned them. */
  readonly truncated_value?: string;
}

export interface LiveRestriction {
  /** Unique only within its context (spec: Context restriction). */
  readonly id: string;
  readonly restriction_type: RestrictionTypeWire;
  readonly match_pattern: string;
  /**
   * The key as a config would write it: the project slug for a project restriction (the
   * id when the project could not be resolved), the expression, the group id, or
   * `all-members` for a group restriction whose pattern is the org id.
   */
  readonly key_value: string;
}

export interface LiveProject {
  readonly status: "found";
  readonly id: string;
  readonly slug: string;
  /** The project's name, when the read that found it said it (a project keyed by name). */
  readonly name?: string;
  readonly settings?: ProjectSettingsAttributes;
  readonly env?: readonly LiveEnvVar[];
  readonly webhooks?: readonly (WebhookAttributes & { readonly id: string })[];
  readonly pipelines?: readonly LivePipeline[];
  /** Every trigger of the project's pipelines (when `pipelines` is declared). */
  readonly triggers?: readonly LiveTrigger[];
  /** The project's checkout keys (when `checkout_keys` is declared). */
  readonly checkout_keys?: readonly LiveCheckoutKey[];
}

/** A checkout key as V2 lists it (spec: api-v2-v1.md "Checkout key"); never a private half. */
export interface LiveCheckoutKey {
  /** `deploy-key` or `<vcs>-user-key` (`github-user-key`), as the service returns it. */
  readonly type: string;
  /** As listed with `digest=sha256` (src/kinds/checkout-key.ts). */
  readonly fingerprint: string;
  readonly public_key: string;
  readonly preferred: boolean;
  readonly created_at?: string;
}

/**
 * An OTLP exporter as V2 lists it (spec: api-v2-v1.md "OTLP exporter"). Only the header
 * *names* are kept: values are secrets and are never read into the live state.
 */
export interface LiveOtelExporter {
  readonly id: string;
  readonly org_id: string;
  readonly endpoint: string;
  readonly protocol: string;
  readonly insecure: boolean;
  readonly header_names: readonly string[];
}

export interface LivePipeline extends PipelineAttributes {
  readonly id: string;
  /**
   * The synthetic OAuth pipeline (spec: Pipelines): listed, but not fetchable by id
   * without filter[project_id]. Never created, updated or deleted (design.md §1 "Identity").
   */
  readonly synthetic: boolean;
}

export interface LiveTrigger extends TriggerAttributes {
  readonly id: string;
  readonly pipeline_id: string;
  /** The synthetic OAuth trigger, or a trigger of the synthetic pipeline. */
  readonly synthetic: boolean;
}
