/**
 * Field comparison shared by the kinds: declarative rules for plain fields, and the secret
 * rule of design.md §1 "Secrets" (last four characters).
 */
import type { Secret } from "../core/secret.js";
import type { FieldChange } from "./contract.js";
import {
  deepEqual,
  getPath,
  type JsonObject,
  type JsonValue,
  SENSITIVE,
  sameSet,
} from "./values.js";

/** How one plain (non-secret) field compares. */
export interface FieldRule {
  readonly path: string;
  /** `update`: changes in place; `replace`: a change forces replacement. */
  readonly mode: "update" | "replace";
  /** `set`: an array the service keeps unordered (compare members only). */
  readonly compare?: "value" | "set";
  /**
   * The value the service uses when none is given. Applied to both sides, so a default is
   * never a change (design.md §1 "Plans").
   */
  readonly default?: JsonValue;
}

/**
 * Compare two attribute objects by rules.
 * Decision: a field the YAML leaves out that has no documented default (a pipeline's
 * description, a trigger's config.ref or parameters) is not managed: the live value is
 * kept, as Terraform does for optional attributes the service may fill in.
 */
export const compareFields = (
  desired: JsonObject,
  live: JsonObject,
  rules: readonly FieldRule[],
): FieldChange[] => {
  const out: FieldChange[] = [];
  for (const rule of rules) {
    const d = getPath(desired, rule.path) ?? rule.default;
    if (d === undefined) continue;
    const l = getPath(live, rule.path) ?? rule.default ?? null;
    const equal =
      rule.compare === "set" && Array.isArray(d) && Array.isArray(l)
        ? sameSet(d, l)
        : deepEqual(d, l);
    if (equal) continue;
    out.push(
      rule.mode === "replace"
        ? { path: rule.path, before: l, after: d, forces_replacement: true }
        : { path: rule.path, before: l, after: d },
    );
  }
  return out;
};

/** What the service tells about a stored secret. */
export interface LiveSecret {
  /** Whether the item holds a value at all. */
  readonly present: boolean;
  /** The last four characters, when the service returns them. */
  readonly lastFour?: string;
}

/**
 * The outcome of comparing a desired secret with what the service tells:
 * - `change`: re-set it (last four differ, a new secret, or forced);
 * - `unverified`: cannot tell (same last four, or never returned): left alone, counted;
 * - `skipped`: the desired value was not resolved (`--skip-secrets`): nothing planned;
 * - `remove`: the config no longer has a secret the item holds;
 * - `none`: neither side has one.
 */
export type SecretOutcome = "change" | "unverified" | "skipped" | "remove" | "none";

export const compareSecret = (
  desired: Secret | undefined,
  live: LiveSecret,
  forced: boolean,
): SecretOutcome => {
  if (desired === undefined) return live.present ? "remove" : "none";
  if (!desired.isResolved) return "skipped";
  if (forced || !live.present) return "change";
  if (live.lastFour === undefined) return "unverified";
  return desired.lastFour() === live.lastFour ? "unverified" : "change";
};

/** The masked field change of a secret that will be re-set. */
export const secretChange = (path: string, livePresent: boolean): FieldChange => ({
  path,
  before: livePresent ? SENSITIVE : null,
  after: SENSITIVE,
  sensitive: true,
});

/** A comparison being built inside one `compare` call (local, returned as a Comparison). */
export interface ComparisonAcc {
  readonly fields: FieldChange[];
  readonly replace_reasons: string[];
  readonly unverified: string[];
  readonly skipped: string[];
  readonly notes: string[];
}

export const newComparison = (): ComparisonAcc => ({
  fields: [],
  replace_reasons: [],
  unverified: [],
  skipped: [],
  notes: [],
});

/** Add plain field changes; each one that forces replacement adds its reason. */
export const addFields = (acc: ComparisonAcc, fields: readonly FieldChange[]): void => {
  for (const f of fields) {
    acc.fields.push(f);
    if (f.forces_replacement) acc.replace_reasons.push(`${f.path} cannot change in place`);
  }
};

/** Apply a secret outcome for `path`; `removeReason` is what removal means for this kind. */
export const addSecret = (
  acc: ComparisonAcc,
  path: string,
  outcome: SecretOutcome,
  livePresent: boolean,
  removeReason?: string,
): void => {
  switch (outcome) {
    case "change":
      acc.fields.push(secretChange(path, livePresent));
      return;
    case "unverified":
      acc.unverified.push(path);
      return;
    case "skipped":
      acc.skipped.push(path);
      return;
    case "remove":
      acc.fields.push({
        path,
        before: SENSITIVE,
        after: null,
        sensitive: true,
        forces_replacement: true,
      });
      if (removeReason !== undefined) acc.replace_reasons.push(removeReason);
      return;
    case "none":
      return;
  }
};
