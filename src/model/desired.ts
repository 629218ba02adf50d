/**
 * The desired state: what the config files declare, after loading, validation and secret
 * resolution (src/config produces it; src/plan consumes it). Human references (slugs,
 * context names, group names) are kept as written; src/live resolves them to ids.
 *
 * Collections follow design.md §1 "Ownership": a collection that is `undefined` was absent
 * from the YAML and is unmanaged; an empty Map / array means "none" and is authoritative.
 * Maps keep the order of the YAML.
 */
import type { SourceLocation } from "../core/errors.js";
import type { MaybeSecret, Secret } from "../core/secret.js";
import type { DesiredGuards, PolicySet } from "./policy.js";

// The API's own names, shared with the emulator through the wire types.
export { ORG_SETTING_NAMES, PROJECT_SETTING_NAMES, WEBHOOK_EVENTS } from "../core/wire.js";

import type { ORG_SETTING_NAMES, PROJECT_SETTING_NAMES } from "../core/wire.js";

/** Every declared item knows where it was written, for error messages. */
export interface Located {
  readonly source: SourceLocation;
}

export interface DesiredConfig {
  /** One entry per `org:` (one per file at most; several files may share an org). */
  readonly orgs: readonly DesiredOrg[];
  /** The files that were read, in order. */
  readonly files: readonly string[];
  /**
   * `policies:` and `exceptions:` of every file (issue 45); absent when no file has any.
   * They apply to every org of the config.
   */
  readonly policies?: PolicySet;
}

export type OrgSettingName = (typeof ORG_SETTING_NAMES)[number];
export type ProjectSettingName = (typeof PROJECT_SETTING_NAMES)[number];

export interface DesiredOrg extends Located {
  /** Org slug, e.g. `gh/acme`; resolved with `GET /orgs?filter[slug]=`. */
  readonly slug: string;
  /** Org settings: only listed keys are managed (spec: api-v3.md "Org settings"). */
  readonly settings?: Readonly<Partial<Record<OrgSettingName, boolean>>> & Located;
  /** Org groups by name (V2 `/organizations/{org_id}/groups`, issue 17); present = authoritative. */
  readonly groups?: ReadonlyMap<string, DesiredGroup>;
  /**
   * Where `groups:` is written (the first file's, when several declare it), so a plan error
   * about a group the map leaves out can point at it (issue 28).
   */
  readonly groups_source?: SourceLocation;
  /** The IdP group → group mappings, as one set (V3 `/orgs/:id/sso-group-mappings`, issue 17). */
  readonly sso_group_mappings?: DesiredSsoGroupMappings;
  readonly contexts?: ReadonlyMap<string, DesiredContext>;
  /** OTLP exporters (V2 `/otel/exporters`); present = authoritative. */
  readonly otel_exporters?: readonly DesiredOtelExporter[];
  readonly projects: ReadonlyMap<string, DesiredProject>;
  /** `ignore` address globs: never touched nor reported. */
  readonly ignore: readonly string[];
  /**
   * `keep_unlisted` address globs (issue 19): live items under them that the config does not
   * list are left alone (not deleted) and reported by drift, so a team can adopt one item at
   * a time. Declared items under them are managed as usual.
   */
  readonly keep_unlisted?: readonly string[];
  /**
   * `ignore_fields` (issue 32): address globs with a final field name
   * (`project["*"].webhook["*"].is_enabled`): fields managed elsewhere, which plan, drift and
   * pull never compare, send nor write on existing items.
   */
  readonly ignore_fields?: readonly string[];
  /**
   * Issue 41: `ignore_fields` entries that ignore a field which widens access and do not say
   * `acknowledge: true`, where they are written: each is a warning.
   */
  readonly ignore_fields_unacknowledged?: readonly {
    readonly glob: string;
    readonly field: string;
    readonly source: SourceLocation;
  }[];
  /**
   * `moved` entries (issue 19): a live item at `from` is renamed in place to `to` (the
   * loader has checked that the kind can be renamed and that both are in one collection).
   */
  readonly moved?: readonly DesiredMove[];
  /**
   * `delete_unknown` entries: unknown live items (design.md §5 "Reading the real service")
   * this org deletes anyway, each named by its exact address and live id.
   */
  readonly delete_unknown?: readonly DesiredDeleteUnknown[];
  /** `guards:` (issue 45): volume thresholds and the risky transitions the org allows. */
  readonly guards?: DesiredGuards;
}

/** An org group (spec: api-v2-v1.md "Group": `id`, `name`, `description`). */
export interface DesiredGroup extends Located {
  readonly name: string;
  /** Undefined: not managed (a replace removes the group's members; never for an unwritten field). */
  readonly description?: string;
}

/** One mapping: an identity provider's group name → an org group (by name or id). */
export interface DesiredSsoGroupMapping extends Located {
  readonly idp_group_name: string;
  /** A group name (declared or live) or a group id, as written. */
  readonly group: string;
}

/** The whole set (a PUT replaces it): `[]` means none. */
export interface DesiredSsoGroupMappings extends Located {
  readonly mappings: readonly DesiredSsoGroupMapping[];
}

/**
 * One `delete_unknown` entry: the one way to delete a live item Waybill cannot name. Both the
 * address and the id are the plan's (`unknown[]`), so the entry deletes that item or fails.
 */
export interface DesiredDeleteUnknown extends Located {
  readonly address: string;
  readonly id: string;
}

export interface DesiredMove extends Located {
  readonly from: string;
  readonly to: string;
  /** Where the `to` value is written (issue 46: an undeclared `to` is refused there). */
  readonly toSource?: SourceLocation;
  /** The entry's `to` as a config path (`moved.1.to`), for its diagnostic. */
  readonly path?: string;
}

export interface DesiredContext extends Located {
  readonly name: string;
  /** `id:` pin, used when two live contexts share the name. */
  readonly id?: string;
  readonly env?: ReadonlyMap<string, DesiredEnvVar>;
  readonly restrictions?: readonly DesiredRestriction[];
}

export interface DesiredEnvVar extends Located {
  readonly name: string;
  /** Env var values are always sensitive (design.md §1 "Secrets"). */
  readonly value: Secret;
}

export type DesiredRestriction =
  | (Located & { readonly type: "project"; readonly project: string })
  | (Located & { readonly type: "expression"; readonly expression: string })
  | (Located & {
      readonly type: "group";
      /** A group id, or `all-members` (the org itself: match_pattern is the org id). */
      readonly group: string;
    });

export interface DesiredProject extends Located {
  /**
   * Project slug, e.g. `gh/acme/api`, as the config's key; a key without `/` is the
   * project's *name* in the org (issue 18: standalone orgs, whose slugs hold ids).
   */
  readonly slug: string;
  /** Issue 18: create the project when it does not exist (V2 POST /organization/{org}/project). */
  readonly create?: boolean;
  /** Issue 18: delete the project (apply needs --allow-project-delete). */
  readonly delete?: boolean;
  readonly settings?: Readonly<{
    [K in ProjectSettingName]?: K extends "pr_only_branch_overrides" ? readonly string[] : boolean;
  }> &
    Located;
  readonly env?: ReadonlyMap<string, DesiredEnvVar>;
  readonly webhooks?: ReadonlyMap<string, DesiredWebhook>;
  readonly pipelines?: ReadonlyMap<string, DesiredPipeline>;
  /** Checkout keys by type (V2 `/project/{slug}/checkout-key`); present = authoritative. */
  readonly checkout_keys?: readonly DesiredCheckoutKey[];
}

/** spec: api-v2-v1.md Enumerations: checkout-key input type `user-key` or `deploy-key`. */
export const CHECKOUT_KEY_TYPES = ["deploy-key", "user-key"] as const;
export type CheckoutKeyType = (typeof CHECKOUT_KEY_TYPES)[number];

export interface DesiredCheckoutKey extends Located {
  readonly type: CheckoutKeyType;
}

/** POST /otel/exporters takes `protocol grpc|http` (spec: api-v2-v1.md Endpoints (V2)). */
export const OTEL_PROTOCOLS = ["grpc", "http"] as const;
export type OtelProtocol = (typeof OTEL_PROTOCOLS)[number];

export interface DesiredOtelExporter extends Located {
  /** host:port, no scheme (spec: POST /otel/exporters). */
  readonly endpoint: string;
  readonly protocol: OtelProtocol;
  /** Default false. */
  readonly insecure?: boolean;
  /**
   * Header name → value; every value is a secret (design.md §3 "More kinds"). A plain
   * record, so apply finds a value by its dotted path (`headers.x-api-key`).
   */
  readonly headers?: Readonly<Record<string, Secret>>;
}

/** spec: api-v2-v1.md "Limits": OTLP exporters, 5 per organization. */
export const MAX_OTEL_EXPORTERS_PER_ORG = 5;

export type WebhookEvent = "workflow-completed" | "job-completed";

export interface DesiredWebhook extends Located {
  readonly name: string;
  readonly id?: string;
  readonly url: MaybeSecret;
  readonly events: readonly WebhookEvent[];
  /** Default `project`. */
  readonly scope?: string;
  /** Default true. */
  readonly should_verify_tls?: boolean;
  /** Default true. */
  readonly is_enabled?: boolean;
  readonly signing_secret?: Secret;
}

export interface VcsRepo {
  readonly provider: string;
  readonly repo_id: string;
  readonly repo_full_name: string;
}

export interface DesiredPipeline extends Located {
  readonly name: string;
  readonly id?: string;
  readonly description?: string;
  readonly config: {
    readonly type: "vcs" | "hosted";
    readonly file_path: string;
    readonly file_type?: string;
    readonly vcs?: VcsRepo;
    readonly hosted?: { readonly provider: string };
  };
  readonly checkout?: { readonly vcs: VcsRepo };
  readonly triggers?: ReadonlyMap<string, DesiredTrigger>;
}

export type TriggerEventType = "vcs" | "webhook" | "schedule";

export interface TriggerFilter {
  readonly preset?: string;
  readonly rules?: readonly { event_type?: string; rule: string; event_ref?: string }[];
}

export interface DesiredTrigger extends Located {
  /**
   * The YAML key. For schedule and webhook triggers it is the API's `schedule.name` /
   * `webhook.name`; a vcs trigger has no name in the API and is matched by its repo
   * (and filter) — design.md §1 "Identity".
   */
  readonly key: string;
  readonly id?: string;
  /** Default false. */
  readonly is_disabled?: boolean;
  readonly config?: { readonly ref?: string };
  readonly checkout?: { readonly ref?: string };
  readonly event: {
    readonly type: TriggerEventType;
    readonly vcs?: VcsRepo;
    readonly webhook?: { readonly source?: string; readonly secret?: Secret };
    readonly schedule?: {
      readonly cron_expression: string;
      readonly attribution_actor?: "system" | "current";
    };
    readonly filter?: TriggerFilter;
  };
  /** Scheduled triggers only (spec: api-v3.md "Triggers"). */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

// spec: api-v2-v1.md "Enumerations" — trigger `event_preset` values.
export const FILTER_PRESETS = [
  "all-pushes",
  "only-tags",
  "default-branch-pushes",
  "only-build-prs",
  "only-open-prs",
  "only-labeled-prs",
  "only-merged-prs",
  "only-ready-for-review-prs",
  "only-branch-delete",
  "only-build-pushes-to-non-draft-prs",
  "only-merged-or-closed-prs",
  "pr-comment-equals-run-ci",
] as const;

/** spec: api-v3.md "Limits" — webhooks per project. */
export const MAX_WEBHOOKS_PER_PROJECT = 25;

/**
 * Two declarations' `keep_unlisted` and `moved` lists of one org (a folder of files),
 * concatenated like their `ignore` lists; each absent when neither has one.
 */
export const mergedOrgLists = (
  a: DesiredOrg,
  b: DesiredOrg,
): {
  keep_unlisted?: readonly string[];
  ignore_fields?: readonly string[];
  ignore_fields_unacknowledged?: DesiredOrg["ignore_fields_unacknowledged"];
  moved?: readonly DesiredMove[];
  delete_unknown?: readonly DesiredDeleteUnknown[];
  groups_source?: SourceLocation;
  guards?: DesiredGuards;
} => ({
  // Issue 45: `guards:` is declared once per org (the loader reports a second); the first.
  ...(a.guards === undefined && b.guards === undefined
    ? {}
    : { guards: (a.guards ?? b.guards) as DesiredGuards }),
  ...(a.ignore_fields === undefined && b.ignore_fields === undefined
    ? {}
    : { ignore_fields: [...(a.ignore_fields ?? []), ...(b.ignore_fields ?? [])] }),
  ...(a.ignore_fields_unacknowledged === undefined && b.ignore_fields_unacknowledged === undefined
    ? {}
    : {
        ignore_fields_unacknowledged: [
          ...(a.ignore_fields_unacknowledged ?? []),
          ...(b.ignore_fields_unacknowledged ?? []),
        ],
      }),
  ...(a.groups_source === undefined && b.groups_source === undefined
    ? {}
    : { groups_source: (a.groups_source ?? b.groups_source) as SourceLocation }),
  ...(a.keep_unlisted === undefined && b.keep_unlisted === undefined
    ? {}
    : { keep_unlisted: [...(a.keep_unlisted ?? []), ...(b.keep_unlisted ?? [])] }),
  ...(a.moved === undefined && b.moved === undefined
    ? {}
    : { moved: [...(a.moved ?? []), ...(b.moved ?? [])] }),
  ...(a.delete_unknown === undefined && b.delete_unknown === undefined
    ? {}
    : { delete_unknown: [...(a.delete_unknown ?? []), ...(b.delete_unknown ?? [])] }),
});
