/**
 * Wire types of the service's API, shared by the client, the kinds and the emulator
 * (design.md §2: the emulator shares only wire types). spec: api-v3.md "Envelopes" and
 * "Resource fields that are given"; api-v2-v1.md for V2.
 *
 * Responses may carry members not listed here (spec: api-v3.md Envelopes, rule 3: clients
 * ignore unknown members), so readers must not reject extra fields.
 */

// ---------------------------------------------------------------------------------------
// V3 envelopes
// ---------------------------------------------------------------------------------------

/** A reference: `{ id }`, optionally with denormalised attributes of the referenced item. */
export interface V3Ref {
  readonly id: string;
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/** A `references` entry is an id, or an array of ids (spec: Envelopes). */
export type V3References = Readonly<Record<string, V3Ref | readonly V3Ref[] | string | undefined>>;

export interface V3Resource<A> {
  /** Absent on singletons and environment variables. */
  readonly id?: string;
  readonly attributes: A;
  readonly references?: V3References;
}

export interface V3One<A> {
  readonly data: V3Resource<A>;
}

export interface V3Page<A> {
  readonly data: readonly V3Resource<A>[];
  readonly page: { readonly next: string | null; readonly prev?: string | null };
}

export interface V3ErrorBody {
  readonly error: {
    readonly type?: string;
    readonly id?: string;
    readonly title?: string;
    readonly detail?: string;
    readonly source?: { readonly pointer?: string };
  };
}

/** Body of an enveloped create: `{ data: { attributes, references } }`. */
export interface V3CreateBody<A> {
  readonly data: {
    readonly attributes: A;
    readonly references?: Readonly<Record<string, { readonly id: string }>>;
  };
}

// ---------------------------------------------------------------------------------------
// V3 resource attributes
// ---------------------------------------------------------------------------------------

/** Org: `slug` and `name` are assumed (spec rule 4: other fields "not shown"). */
/** An org: the look-up by `filter[slug]` may answer `{ id }` alone (docs/spec-notes.md "Reading the real service"). */
export interface OrgAttributes {
  readonly slug?: string;
  readonly name?: string;
}

/**
 * Project: `name` is assumed, `is_followed` is given; `slug` may be absent (the listing, the
 * look-ups by slug and by id: docs/spec-notes.md "Reading the real service").
 */
export interface ProjectAttributes {
  readonly slug?: string;
  readonly name?: string;
  readonly is_followed?: boolean;
}

export type OrgSettingsAttributes = Readonly<Record<string, boolean>>;
export type ProjectSettingsAttributes = Readonly<Record<string, boolean | readonly string[]>>;

export interface ContextAttributes {
  readonly name: string;
  readonly created_at?: string;
}

export type RestrictionTypeWire = "project" | "expression" | "group";

/**
 * The restriction types the spec names (api-v3.md "Context restriction"). The service may
 * add more ("expect new types", the vendor's plugin says): one outside this list is
 * `unknown` (docs/spec-notes.md "Reading the real service").
 */
export const RESTRICTION_TYPES: readonly RestrictionTypeWire[] = ["project", "expression", "group"];

export const isRestrictionType = (t: unknown): t is RestrictionTypeWire =>
  typeof t === "string" && (RESTRICTION_TYPES as readonly string[]).includes(t);

export interface ContextRestrictionAttributes {
  readonly restriction_type: RestrictionTypeWire;
  /** A project id, an expression, or a group id (the org id = every member). */
  readonly match_pattern: string;
  readonly created_at?: string;
}

export interface ContextEnvVarAttributes {
  readonly name: string;
  /** Last four characters; absent in the `env-vars/set` response. */
  readonly truncated_value?: string;
  readonly created_at?: string;
  readonly updated_at?: string;
}

/**
 * Project env var. V3 does not name the value field (spec: "keyed by name within the
 * project, no id"); the emulator returns `truncated_value` like context env vars, and the
 * reader falls back to V2's masked `value` when it is absent.
 */
export interface ProjectEnvVarAttributes {
  readonly name: string;
  readonly truncated_value?: string;
  readonly created_at?: string;
}

export type WebhookEventWire = "workflow-completed" | "job-completed";

export interface WebhookAttributes {
  readonly name: string;
  readonly scope: string;
  readonly url: string;
  readonly events: readonly WebhookEventWire[];
  readonly should_verify_tls: boolean;
  readonly has_signing_secret: boolean;
  readonly is_enabled: boolean;
  readonly auto_disabled_at?: string | null;
}

export interface VcsRepoWire {
  readonly provider: string;
  readonly repo_id: string;
  readonly repo_full_name: string;
}

export interface PipelineAttributes {
  readonly name: string;
  readonly description?: string;
  readonly config: {
    readonly type: string;
    readonly file_path: string;
    readonly file_type?: string;
    readonly vcs?: VcsRepoWire;
    readonly hosted?: { readonly provider: string };
  };
  readonly checkout?: { readonly vcs?: VcsRepoWire };
}

export interface TriggerFilterWire {
  readonly preset?: string;
  readonly rules?: readonly {
    readonly event_type?: string;
    readonly rule: string;
    readonly event_ref?: string;
  }[];
}

export interface TriggerAttributes {
  readonly is_disabled: boolean;
  readonly config?: { readonly ref?: string };
  readonly checkout?: { readonly ref?: string };
  readonly event: {
    readonly type: "vcs" | "webhook" | "schedule";
    readonly vcs?: VcsRepoWire;
    /** `secret` only in the create response, once. */
    readonly webhook?: {
      readonly name?: string;
      readonly source?: string;
      readonly secret?: string;
    };
    readonly schedule?: {
      readonly name?: string;
      readonly cron_expression?: string;
      readonly attribution_actor?: "system" | "current";
    };
    readonly filter?: TriggerFilterWire;
  };
  readonly parameters?: Readonly<Record<string, unknown>>;
}

// ---------------------------------------------------------------------------------------
// V2 (spec: api-v2-v1.md) — used only where V3 has no route.
// ---------------------------------------------------------------------------------------

export interface V2Page<T> {
  readonly items: readonly T[];
  readonly next_page_token: string | null;
}

export interface V2MessageBody {
  readonly message: string;
}

/** V2 group (`GET /organizations/{org_id}/groups`). */
export interface V2Group {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

/** V2 project env var: `value` is masked, `xxxx` plus the last four characters. */
export interface V2ProjectEnvVar {
  readonly name: string;
  readonly value: string;
  readonly "created-at"?: string;
}

// ---------------------------------------------------------------------------------------
// Names the API defines (shared by the config model, the kinds and the emulator)
// ---------------------------------------------------------------------------------------

// spec: api-v3.md "Resource fields that are given" — Org settings.
export const ORG_SETTING_NAMES = [
  "is_runner_terms_of_service_accepted",
  "enable_ai_error_summarization",
  "enable_ai_agents",
  "enable_unversioned_config",
  "enable_certified_public_orbs",
  "enable_chunk_ip_ranges",
  "enable_marketing_tracking",
  "enable_minor_ai_features",
  "enable_preferences_tracking",
  "enable_private_orbs",
  "enable_statistics_tracking",
  "enable_uncertified_public_orbs",
  "is_user_checkout_keys_disabled",
  "is_running_disabled",
  "is_privacy_optout_enforced",
  "enable_image_brownouts",
  "is_context_group_restriction_required",
  "enable_resource_class_brownouts",
] as const;

// spec: api-v3.md "Resource fields that are given" — Project settings.
export const PROJECT_SETTING_NAMES = [
  "enable_ai_error_summarization",
  "enable_unversioned_config",
  "enable_auto_cancel_redundant_workflows",
  "enable_building_fork_prs",
  "is_build_prs_only",
  "is_ssh_disabled",
  "is_running_disabled",
  "can_pass_secrets_to_fork_pr_jobs",
  "is_oss",
  "can_set_github_status",
  "enable_dynamic_config",
  "is_admin_required_for_writing_settings",
  "pr_only_branch_overrides",
] as const;

export const WEBHOOK_EVENTS = ["workflow-completed", "job-completed"] as const;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/** The id of a reference, whichever of the spec's shapes it takes. */
export const refId = (ref: V3References[string]): string | undefined => {
  if (ref === undefined) return undefined;
  if (typeof ref === "string") return ref;
  if (Array.isArray(ref)) return undefined;
  return (ref as V3Ref).id;
};

/**
 * spec: api-v2-v1.md "Limits": V2 allows 5,000 requests per hour per token. The client
 * paces V2 requests to it (src/api/route-scheduler.ts); the plan says when an apply would
 * need more (src/plan/finish.ts).
 */
export const V2_REQUESTS_PER_HOUR = 5_000;

/**
 * spec: api-v3.md "Limits": the documented `page[limit]` maxima. Collections not listed
 * have no documented maximum, so the client sends no `page[limit]` for them and takes the
 * service's default page size.
 */
export const PAGE_LIMIT_MAX: Readonly<Record<string, number>> = {
  "/orgs": 50,
  "/projects": 50,
  "/provider/branches": 100,
  "/orb/packages": 1000,
  "/orb/versions": 1000,
  "/workflows": 20,
};

/**
 * spec: api-v3.md "Provider": "The cursor encodes the limit, so sending `page[limit]` with
 * `page[cursor]` is 400." The only collection where the spec forbids the pair.
 */
export const CURSOR_ENCODES_LIMIT: ReadonlySet<string> = new Set(["/provider/branches"]);

/**
 * V3 collections the service does not page (docs/spec-notes.md "Reading the real service"):
 * the spec lists no `page[cursor]` for them (spec: api-v3.md Context restrictions,
 * Pipelines, Triggers and Projects; and `/users`), and the vendor's plugin reads the restrictions as
 * one unpaged list. A context's env vars are sent without `page` too (issue 40); the spec
 * lists a cursor for them, but their set is an upsert, so a list taken whole that was not
 * could only re-set a variable or leave one undeleted, never duplicate one. An answer
 * without `page` ends these lists; `{id}` stands for one path segment that is an id.
 */
export const NOT_PAGED: ReadonlySet<string> = new Set([
  "/context-restrictions",
  "/pipelines",
  "/triggers",
  "/users",
  "/projects/{id}/environment-variables",
  "/contexts/{id}/env-vars",
]);

/**
 * A member of a V2 answer by its snake_case name, or its kebab-case spelling: the spec
 * writes some V2 names in kebab case (`public-key`, `created-at`) and the service answers
 * them in snake case (`public_key`, `created_at`); the reader takes both (docs/spec-notes.md
 * "Reading the real service"). The snake spelling wins when both are present.
 */
export const v2Member = (record: Readonly<Record<string, unknown>>, snake: string): unknown => {
  const value = record[snake];
  return value !== undefined ? value : record[snake.replaceAll("_", "-")];
};
