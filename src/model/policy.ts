/**
 * Rules a platform team writes (design.md §5 "Rules and guards", issue 45): `policies:`,
 * `exceptions:` and `guards:`, as the config layer builds them from the YAML and
 * src/policy evaluates them. Plain data with the place each was written.
 *
 * No embedded language: a rule's condition is one of a closed set (a field compared with
 * a value, a count of child items), so what a rule can do is read off the config.
 */
import type { SourceLocation } from "../core/errors.js";

export type PolicyLevel = "error" | "warn";
/** What a rule looks at: the config (validate), the plan (plan, apply), the live state (drift). */
export type PolicyOn = "config" | "plan" | "live";
export type PolicyAction = "create" | "update" | "replace" | "delete";
export type PolicyScalar = string | number | boolean | null;

/** What the items a rule selects must meet; `none`: the rule forbids what it selects. */
export type PolicyCondition =
  | { readonly kind: "none" }
  | { readonly kind: "equals"; readonly field: string; readonly value: PolicyScalar }
  | { readonly kind: "not_equals"; readonly field: string; readonly value: PolicyScalar }
  | { readonly kind: "in"; readonly field: string; readonly values: readonly PolicyScalar[] }
  | { readonly kind: "matches"; readonly field: string; readonly pattern: string }
  | { readonly kind: "exists"; readonly field: string }
  | { readonly kind: "absent"; readonly field: string }
  | {
      readonly kind: "count";
      /** The address segment of the children counted (`restriction`, `env`, `webhook`). */
      readonly of: string;
      readonly min?: number;
      readonly max?: number;
    };

export interface PolicyRule {
  readonly id: string;
  readonly level: PolicyLevel;
  readonly on: PolicyOn;
  /** Address glob (src/model/address.ts compileAddressGlob). */
  readonly address: string;
  readonly message?: string;
  /** `on: plan` only: the actions selected (all when absent). */
  readonly actions?: readonly PolicyAction[];
  /** `on: plan` only: a change is selected when it changes one of these fields. */
  readonly changed?: readonly string[];
  readonly condition: PolicyCondition;
  /** A rule that selects nothing is itself an error. */
  readonly expect_match: boolean;
  readonly source: SourceLocation;
}

export interface PolicyException {
  readonly rule: string;
  readonly address: string;
  readonly reason: string;
  /** YYYY-MM-DD: the last day the exception holds (UTC). */
  readonly expires: string;
  readonly source: SourceLocation;
}

/** Every rule and exception of the config (from any of its files; they apply to every org). */
export interface PolicySet {
  readonly rules: readonly PolicyRule[];
  readonly exceptions: readonly PolicyException[];
}

export const EMPTY_POLICIES: PolicySet = { rules: [], exceptions: [] };

/** The risky transitions apply asks `--allow-risky RULE` (or `guards.allow`) for. */
export const RISKY_RULES = [
  "org-running-disabled",
  "fork-pr-secrets",
  "webhook-tls-off",
  "sso-mappings-emptied",
  "context-group-restriction-off",
  "context-all-members-added",
] as const;
export type RiskyRule = (typeof RISKY_RULES)[number];

export interface GuardThresholds {
  /** Percent of a collection's live items that may be updated or replaced at once. */
  readonly max_update_percent?: number;
  /** Smaller collections are not checked. */
  readonly min_collection_size?: number;
}

/** `guards:` of one org (design.md §5 "Rules and guards"). */
export interface DesiredGuards extends GuardThresholds {
  readonly max_secret_resets?: number;
  /** Per collection glob (parent keys as `*`: `project["*"].settings`), in the YAML's order. */
  readonly collections?: readonly { readonly glob: string; readonly thresholds: GuardThresholds }[];
  readonly allow?: readonly RiskyRule[];
  readonly source: SourceLocation;
}

/** A place in a config file, as plain data (JSON plan, annotations). */
export interface PlainLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/**
 * One violation (JSON plan `policy_violations[]`). `from`: a rule of the config, an expired
 * exception, a rule with `expect_match` that matched nothing, or `--policy-cmd`.
 */
export interface PolicyViolation {
  readonly rule: string;
  readonly level: PolicyLevel;
  readonly on: PolicyOn;
  readonly from: "rule" | "exception" | "expect_match" | "policy_cmd";
  /** The org slug, when the violation is about an item. */
  readonly org?: string;
  /** The item's address, when the violation is about an item. */
  readonly address?: string;
  readonly message: string;
  /** Where the rule (or the exception) is written. */
  readonly rule_source?: PlainLocation;
  /** Where the item is declared, when the config declares it. */
  readonly item_source?: PlainLocation;
}

/** The volume guards' rule ids (issue 45). */
export const VOLUME_RULES = ["mass-update", "mass-secret-reset"] as const;
export type VolumeRule = (typeof VOLUME_RULES)[number];

/** Something apply refuses (exit 4) unless allowed (JSON plan `guards.blocked[]`). */
export interface BlockedGuard {
  readonly rule: VolumeRule | RiskyRule;
  readonly org: string;
  /** The change's address (a risky transition). */
  readonly address?: string;
  /** The collection, parent keys as `*` (a volume guard). */
  readonly collection?: string;
  readonly message: string;
  /** The flag that lets one run through: `--allow-mass-change` or `--allow-risky RULE`. */
  readonly allow_with: string;
}
