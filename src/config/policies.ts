/**
 * Issue 45: `policies:`, `exceptions:` and `guards:` (design.md §5 "Rules and guards"): the
 * checks the schema cannot say (one condition per rule, a regex that compiles, address
 * globs of the address grammar) and the build into src/model/policy.ts. Pure.
 */
import { regexHazard } from "../core/bounded-regex.js";
import { formatLocation, type SourceLocation } from "../core/errors.js";
import type {
  DesiredGuards,
  GuardThresholds,
  PolicyCondition,
  PolicyException,
  PolicyRule,
  PolicySet,
  RiskyRule,
} from "../model/policy.js";
import type { ConfigDiagnostic, DiagnosticCode } from "./diagnostic.js";
import { checkIgnoreGlob } from "./ignore-glob.js";
import type { RawGuards, RawGuardThresholds, RawPolicy, RawPolicyException } from "./raw.js";
import { type DocPath, dottedPath, locate, type PositionIndex } from "./yaml-doc.js";

type Report = (path: DocPath, code: DiagnosticCode, message: string) => void;

const FIELD_OPS = ["equals", "not_equals", "in", "matches", "exists", "absent"] as const;

const asObj = (v: unknown): Readonly<Record<string, unknown>> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;

/** One rule's problems the schema cannot express (it has checked the types). */
const checkRule = (rule: Readonly<Record<string, unknown>>, at: DocPath, report: Report): void => {
  const ops = FIELD_OPS.filter((op) => rule[op] !== undefined);
  const hasField = rule.field !== undefined;
  const hasCount = rule.count !== undefined;
  if (hasField && ops.length !== 1) {
    report(
      [...at, "field"],
      "invalid_policy",
      `a field condition takes exactly one of ${FIELD_OPS.join(", ")}${ops.length > 1 ? ` (this rule has ${ops.join(", ")})` : ""}`,
    );
  }
  if (!hasField && ops.length > 0) {
    report(
      [...at, ops[0] as string],
      "invalid_policy",
      `${ops[0]} needs the field it tests: add field: NAME (a dotted path, e.g. should_verify_tls)`,
    );
  }
  if (hasField && hasCount) {
    report(
      [...at, "count"],
      "invalid_policy",
      "a rule has one condition: a field condition or a count, not both (write two rules)",
    );
  }
  if (hasCount && rule.min === undefined && rule.max === undefined) {
    report([...at, "count"], "invalid_policy", "count needs min, max or both");
  }
  if (!hasCount && (rule.min !== undefined || rule.max !== undefined)) {
    report(
      [...at, rule.min !== undefined ? "min" : "max"],
      "invalid_policy",
      "min and max go with count: NAME (the kind of child item counted, e.g. restriction)",
    );
  }
  if (
    typeof rule.min === "number" &&
    typeof rule.max === "number" &&
    (rule.min as number) > (rule.max as number)
  ) {
    report([...at, "min"], "invalid_policy", "min is greater than max: no item could pass");
  }
  if (rule.on !== "plan") {
    for (const k of ["actions", "changed"] as const) {
      if (rule[k] !== undefined) {
        report([...at, k], "invalid_policy", `${k} selects changes: it needs on: plan`);
      }
    }
  }
  if (typeof rule.matches === "string") {
    let compiles = true;
    try {
      new RegExp(rule.matches);
    } catch (err) {
      compiles = false;
      report(
        [...at, "matches"],
        "invalid_policy",
        `not a regular expression: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    // The pattern runs against live values another party writes (src/core/bounded-regex.ts).
    const hazard = compiles ? regexHazard(rule.matches) : undefined;
    if (hazard !== undefined)
      report([...at, "matches"], "invalid_policy", `the pattern has ${hazard}`);
  }
  if (typeof rule.address === "string") {
    const problem = checkIgnoreGlob(rule.address);
    if (problem !== undefined) report([...at, "address"], "invalid_policy", problem);
  }
};

/** The policies, exceptions and guards of one document (after the schema check). */
export const checkPolicies = (
  file: string,
  doc: unknown,
  positions: PositionIndex,
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  const report: Report = (path, code, message) => {
    out.push({ file, ...locate(positions, path, "key"), path: dottedPath(path), code, message });
  };
  const root = asObj(doc);
  if (root === undefined) return out;
  if (Array.isArray(root.policies)) {
    root.policies.forEach((r, i) => {
      const rule = asObj(r);
      if (rule !== undefined) checkRule(rule, ["policies", i], report);
    });
  }
  if (Array.isArray(root.exceptions)) {
    root.exceptions.forEach((e, i) => {
      const ex = asObj(e);
      if (typeof ex?.address === "string") {
        const problem = checkIgnoreGlob(ex.address);
        if (problem !== undefined) {
          report(["exceptions", i, "address"], "invalid_policy", problem);
        }
      }
      if (typeof ex?.expires === "string" && !isCalendarDate(ex.expires)) {
        report(
          ["exceptions", i, "expires"],
          "invalid_policy",
          `${ex.expires} is not a date of the calendar (YYYY-MM-DD)`,
        );
      }
    });
  }
  return out;
};

/** `2026-02-30` passes the schema's pattern; the calendar refuses it. */
const isCalendarDate = (s: string): boolean => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

const conditionOf = (r: RawPolicy): PolicyCondition => {
  if (r.count !== undefined) {
    return {
      kind: "count",
      of: r.count,
      ...(r.min === undefined ? {} : { min: r.min }),
      ...(r.max === undefined ? {} : { max: r.max }),
    };
  }
  const field = r.field;
  if (field === undefined) return { kind: "none" };
  if (r.equals !== undefined) return { kind: "equals", field, value: r.equals };
  if (r.not_equals !== undefined) return { kind: "not_equals", field, value: r.not_equals };
  if (r.in !== undefined) return { kind: "in", field, values: r.in };
  if (r.matches !== undefined) return { kind: "matches", field, pattern: r.matches };
  if (r.exists !== undefined) return { kind: "exists", field };
  return { kind: "absent", field };
};

/** One file's rules and exceptions (the document passed the schema and checkPolicies). */
export const buildPolicies = (
  doc: { readonly policies?: RawPolicy[]; readonly exceptions?: RawPolicyException[] },
  at: (path: DocPath) => SourceLocation,
): PolicySet => ({
  rules: (doc.policies ?? []).map(
    (r, i): PolicyRule => ({
      id: r.id,
      level: r.level ?? "error",
      on: r.on,
      address: r.address,
      ...(r.message === undefined ? {} : { message: r.message }),
      ...(r.actions === undefined ? {} : { actions: r.actions }),
      ...(r.changed === undefined ? {} : { changed: r.changed }),
      condition: conditionOf(r),
      expect_match: r.expect_match === true,
      source: at(["policies", i]),
    }),
  ),
  exceptions: (doc.exceptions ?? []).map(
    (e, i): PolicyException => ({
      rule: e.rule,
      address: e.address,
      reason: e.reason,
      expires: e.expires,
      source: at(["exceptions", i]),
    }),
  ),
});

const thresholdsOf = (t: RawGuardThresholds): GuardThresholds => ({
  ...(t.max_update_percent === undefined ? {} : { max_update_percent: t.max_update_percent }),
  ...(t.min_collection_size === undefined ? {} : { min_collection_size: t.min_collection_size }),
});

export const buildGuards = (raw: RawGuards, source: SourceLocation): DesiredGuards => ({
  ...thresholdsOf(raw),
  ...(raw.max_secret_resets === undefined ? {} : { max_secret_resets: raw.max_secret_resets }),
  ...(raw.collections === undefined
    ? {}
    : {
        collections: Object.entries(raw.collections).map(([glob, t]) => ({
          glob,
          thresholds: thresholdsOf(t),
        })),
      }),
  ...(raw.allow === undefined ? {} : { allow: raw.allow as RiskyRule[] }),
  source,
});

/**
 * Every file's rules and exceptions as one set. Decision: a rule id is declared once in the
 * whole config (a second is an error naming the first), and an exception must name a rule
 * the config has (a typo would otherwise waive nothing, silently).
 */
export const mergePolicies = (
  sets: readonly PolicySet[],
): { readonly set: PolicySet | undefined; readonly diagnostics: ConfigDiagnostic[] } => {
  const diagnostics: ConfigDiagnostic[] = [];
  const rules: PolicyRule[] = [];
  const exceptions: PolicyException[] = [];
  const seen = new Map<string, PolicyRule>();
  const diag = (s: SourceLocation, path: string, message: string): ConfigDiagnostic => ({
    file: s.file,
    line: s.line,
    col: s.col,
    path,
    code: "invalid_policy",
    message,
  });
  for (const set of sets) {
    for (const r of set.rules) {
      const first = seen.get(r.id);
      if (first !== undefined) {
        diagnostics.push(
          diag(
            r.source,
            "policies",
            `rule id "${r.id}" is declared twice: here and at ${formatLocation(first.source)}; rename one`,
          ),
        );
        continue;
      }
      seen.set(r.id, r);
      rules.push(r);
    }
    for (const e of set.exceptions) exceptions.push(e);
  }
  for (const e of exceptions) {
    if (seen.has(e.rule)) continue;
    const known = [...seen.keys()].sort();
    diagnostics.push(
      diag(
        e.source,
        "exceptions",
        `no policy rule "${e.rule}"${known.length > 0 ? ` (rules: ${known.join(", ")})` : " (the config has no policies)"}; name the rule the exception waives`,
      ),
    );
  }
  if (rules.length === 0 && exceptions.length === 0) return { set: undefined, diagnostics };
  return { set: { rules, exceptions }, diagnostics };
};
