/**
 * The seed: the emulator's whole initial state as JSON (`waybill emulator --seed FILE`,
 * `POST /__admin/reset`). `GET /__admin/state` dumps the state back in this shape, with every
 * id filled in and secret values included (test only). See docs/emulator.md.
 */

import type { ChaosOptions } from "./chaos.js";
import type { VcsRepoWire } from "./wire.js";

export interface Seed {
  readonly $schema?: string;
  readonly description?: string;
  readonly tokens?: readonly SeedToken[];
  readonly orgs?: readonly SeedOrg[];
}

export interface SeedToken {
  readonly token: string;
  /** A read-only token gets 403 on every non-GET request. */
  readonly read_only?: boolean;
  /**
   * Whether the token is a user's (default true). spec: api-v2-v1.md Endpoints (V2),
   * POST /project/{slug}/checkout-key: a user key "needs a user token"; `false` models a token
   * that is not (the create of a `user-key` is refused with 403).
   */
  readonly user?: boolean;
  /**
   * Whether the token may write contexts (default true). `false` models a token whose user
   * may change projects and the rest but not the org's contexts (issue 29: a restricted
   * token): every write under `/api/v3/contexts`, `/api/v3/context-restrictions` and
   * `/api/v2/context` is refused with 403 (spec: api-v3.md Authentication rule 5).
   */
  readonly write_contexts?: boolean;
}

export interface SeedOrg {
  readonly id?: string;
  /** e.g. `gh/acme`. */
  readonly slug: string;
  readonly name?: string;
  readonly settings?: Readonly<Record<string, boolean>>;
  /** Whether `POST /contexts` adds an "all members" group restriction. Default true. */
  readonly default_context_restriction?: boolean;
  readonly groups?: readonly SeedGroup[];
  /** SSO group mappings: an IdP group name → a group of this org, by id or name. */
  readonly sso_group_mappings?: readonly {
    readonly idp_group_name: string;
    readonly group: string;
  }[];
  readonly contexts?: readonly SeedContext[];
  readonly projects?: readonly SeedProject[];
  /** OTLP exporters (V2 `/otel/exporters`, at most 5); header values are secrets. */
  readonly otel_exporters?: readonly SeedOtelExporter[];
}

export interface SeedOtelExporter {
  readonly id?: string;
  readonly endpoint: string;
  readonly protocol: "grpc" | "http";
  readonly insecure?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SeedCheckoutKey {
  /** `deploy-key` or `user-key` (stored as `<vcs>-user-key`, as the service answers). */
  readonly type: "deploy-key" | "user-key";
  /** Default: true for the first key of the project. */
  readonly preferred?: boolean;
  /** The private half's 32-byte Ed25519 seed, hex (test only); derived when absent. */
  readonly private_seed?: string;
  readonly created_at?: string;
}

/** A legacy V2 schedule (spec: api-v2-v1.md "Schedule"); listed only (GET). */
export interface SeedSchedule {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
  readonly timetable?: SeedJson;
  readonly parameters?: SeedJson;
  readonly actor?: SeedJson;
}

export interface SeedGroup {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
}

export interface SeedContext {
  readonly id?: string;
  readonly name: string;
  readonly created_at?: string;
  /** Variable name → value (values are secrets; only `GET /__admin/state` returns them). */
  readonly env?: Readonly<Record<string, string>>;
  readonly restrictions?: readonly SeedRestriction[];
}

export interface SeedRestriction {
  readonly id?: string;
  readonly restriction_type: "project" | "expression" | "group";
  /**
   * A project id (or, in a seed only, a project slug), an expression, or a group id (in a
   * seed also a group name; the org id means every member of the org).
   */
  readonly match_pattern: string;
  readonly created_at?: string;
}

export interface SeedProject {
  readonly id?: string;
  /** `gh/acme/api`, or `api` (then prefixed with the org slug). */
  readonly slug: string;
  readonly name?: string;
  /**
   * The synthetic OAuth pipeline and trigger (spec: Pipelines, Triggers): every project has
   * them unless this is `false`.
   */
  readonly oauth?: boolean;
  /** Default true. */
  readonly is_followed?: boolean;
  readonly last_active_at?: string;
  readonly repo?: VcsRepoWire;
  readonly settings?: Readonly<Record<string, boolean | readonly string[]>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly webhooks?: readonly SeedWebhook[];
  readonly pipelines?: readonly SeedPipeline[];
  readonly checkout_keys?: readonly SeedCheckoutKey[];
  readonly schedules?: readonly SeedSchedule[];
}

export interface SeedWebhook {
  readonly id?: string;
  readonly name: string;
  /** Default `project`. */
  readonly scope?: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly should_verify_tls?: boolean;
  readonly is_enabled?: boolean;
  readonly signing_secret?: string;
  readonly auto_disabled_at?: string;
}

export interface SeedPipeline {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
  readonly config: SeedJson;
  readonly checkout?: SeedJson;
  readonly triggers?: readonly SeedTrigger[];
}

/** Trigger attributes as in `POST /triggers` (`event.webhook.secret` is kept as the secret). */
export interface SeedTrigger {
  readonly id?: string;
  readonly is_disabled?: boolean;
  readonly config?: { readonly ref?: string };
  readonly checkout?: { readonly ref?: string };
  readonly event: SeedJson;
  readonly parameters?: SeedJson;
}

export type SeedJson = Readonly<Record<string, unknown>>;

/**
 * Fault injection (docs/emulator.md "Faults"). Rates are probabilities in [0, 1], drawn from
 * a PRNG seeded with `seed`, so a run is reproducible for the same request order.
 */
export interface FaultOptions {
  readonly seed?: number;
  readonly latency_ms?: number;
  readonly jitter_ms?: number;
  readonly rate_429?: number;
  readonly retry_after_seconds?: number;
  readonly rate_500?: number;
  readonly rate_drop?: number;
  /** The write happens, then a 500 or a dropped connection (POST/PUT/DELETE only). */
  readonly rate_commit_then_fail?: number;
  /**
   * A write held for `slow_commit_ms` (default 5,000) before it is done and answered:
   * longer than the client's timeout, the client gives up on a request that still lands.
   */
  readonly rate_slow_commit?: number;
  readonly slow_commit_ms?: number;
  /** Random faults only for these methods (latency applies to every request). */
  readonly methods?: readonly string[];
  readonly rate_limit?: {
    readonly capacity: number;
    readonly refill_per_second: number;
    /** Retry-After and the RateLimit times in seconds with millisecond decimals (tests). */
    readonly precise?: boolean;
    /** false: no RateLimit-Policy / RateLimit headers, only the 429s (default true). */
    readonly headers?: boolean;
  };
  /** Hostile 200 answers to GETs at a seeded rate (emulator/src/chaos.ts). */
  readonly chaos?: ChaosOptions;
  /**
   * A service that refuses `POST /projects/:id/environment-variables` for a name that exists
   * (400 `already_exists`) instead of overwriting it. Off by default: the spec and the public
   * docs describe that POST as setting the variable (an upsert); this is the hard case a
   * test switches on.
   */
  readonly refuse_existing_project_env_var?: boolean;
}
