/**
 * The seed: the emulator's whole initial state as JSON (`waybill emulator --seed FILE`,
 * `POST /__admin/reset`). `GET /__admin/state` dumps the state back in this shape, with every
 * id filled in and secret values included (test only). See docs/emulator.md.
 */

import type { ChaosOptions } from "./chaos.js";

/**
 * The seed document. The families (emulator/src/families/) add their members by augmenting
 * it (`declare module "../seed.js" { interface Seed { readonly <key>?: … } }`), and their
 * items' members to their parents' item types the same way.
 */
export interface Seed {
  readonly $schema?: string;
  readonly description?: string;
  readonly tokens?: readonly SeedToken[];
}

/** A token; families add the rights it may be seeded without (family.ts `TokenRight`). */
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
