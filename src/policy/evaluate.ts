/**
 * The policy evaluator (issue 45, design.md §5 "Rules and guards"): the config's rules of
 * one `on` against the subjects (src/policy/subjects.ts), with the exceptions. Pure: the
 * date is given (`today`), so a test pins it and the caller says where it came from.
 *
 * A rule selects the subjects whose address its glob matches (the same number of segments
 * with the same names: `context["prod-*"]` never selects a context's env vars), and, on a
 * plan, whose action and changed fields it names; each selected subject must meet the
 * condition, or (no condition) is itself the violation.
 *
 * Messages never hold a string value of the item: a URL is a credential, and a field's
 * string value may be one; booleans, numbers and null are shown.
 */
import { type BoundedTest, boundedMatcher } from "../core/bounded-regex.js";
import type { SourceLocation } from "../core/errors.js";
import { isSecret } from "../core/secret.js";
import { ancestorsOf, compileAddressGlob, parseAddress } from "../model/address.js";
import type {
  PlainLocation,
  PolicyCondition,
  PolicyException,
  PolicyOn,
  PolicyRule,
  PolicyScalar,
  PolicyViolation,
} from "../model/policy.js";
import { parentOf, type Subject } from "./subjects.js";

export interface EvaluateInput {
  readonly on: PolicyOn;
  /** Every rule of the config; those of other `on` are skipped. */
  readonly rules: readonly PolicyRule[];
  readonly exceptions: readonly PolicyException[];
  readonly subjects: readonly Subject[];
  /**
   * Today's date, YYYY-MM-DD (UTC), for the exceptions' expiry. Decision: it is the clock
   * of the machine running the check (data, not an authority: a wrong clock expires an
   * exception early or late, never waives a rule that has none).
   */
  readonly today: string;
  /** Where the config declares an item (a plan or live subject has no source of its own). */
  readonly locate?: (org: string, address: string) => SourceLocation | undefined;
}

interface Selector {
  readonly shape: string | undefined;
  readonly prefix: string;
  readonly test: (address: string) => boolean;
}

/** A glob's segment names (`context.restriction`), and its literal text before any wildcard. */
const selector = (glob: string): Selector => {
  const segments = parseAddress(glob);
  const wild = glob.search(/[*?]/);
  return {
    shape: segments?.map((s) => s.name).join("."),
    prefix: wild < 0 ? glob : glob.slice(0, wild),
    test: compileAddressGlob(glob).test,
  };
};

const selects = (sel: Selector, s: Subject): boolean =>
  (sel.shape === undefined || sel.shape === s.shape) &&
  s.address.startsWith(sel.prefix) &&
  sel.test(s.address);

/** The value at a dotted path; a secret reads as "(sensitive)". */
export const fieldAt = (fields: unknown, path: string): unknown => {
  let cur: unknown = fields;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || cur instanceof Map) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return isSecret(cur) ? "(sensitive)" : cur;
};

/** A value for a message: strings are never shown (they may be credentials). */
const shown = (v: unknown): string =>
  v === undefined
    ? "not set"
    : v === null || typeof v === "boolean" || typeof v === "number"
      ? String(v)
      : typeof v === "string"
        ? "another value"
        : "not a single value";

const lit = (v: PolicyScalar): string => JSON.stringify(v);

/** Undefined when the condition holds, else what is wrong, in words. */
const failure = (
  c: Exclude<PolicyCondition, { kind: "none" | "count" }>,
  fields: unknown,
  matcher: BoundedTest | undefined,
): string | undefined => {
  const v = fieldAt(fields, c.field);
  const scalar = v === undefined ? null : v;
  switch (c.kind) {
    case "equals":
      return scalar === c.value
        ? undefined
        : `${c.field} must be ${lit(c.value)} (it is ${shown(v)})`;
    case "not_equals":
      return scalar !== c.value ? undefined : `${c.field} must not be ${lit(c.value)}`;
    case "in":
      return c.values.includes(scalar as PolicyScalar)
        ? undefined
        : `${c.field} must be one of ${c.values.map(lit).join(", ")} (it is ${shown(v)})`;
    case "matches": {
      const result = typeof v === "string" && matcher !== undefined ? matcher(v) : false;
      if (result === true) return undefined;
      // Fail closed: a value the pattern cannot decide in time does not pass the rule.
      return result === "timeout"
        ? `${c.field} could not be checked against /${c.pattern}/ in time (the pattern backtracks on this value; simplify it)`
        : `${c.field} must match /${c.pattern}/${typeof v === "string" ? "" : ` (it is ${shown(v)})`}`;
    }
    case "exists":
      return v !== undefined && v !== null ? undefined : `${c.field} must be set`;
    case "absent":
      return v === undefined || v === null ? undefined : `${c.field} must not be set`;
  }
};

const plain = (s: SourceLocation | undefined): PlainLocation | undefined =>
  s === undefined ? undefined : { file: s.file, line: s.line, col: s.col };

const verb: Readonly<Record<string, string>> = {
  create: "creates",
  update: "updates",
  replace: "replaces",
  delete: "deletes",
};

/** Children counts by parent address and segment name, for `count` conditions. */
const childCounts = (subjects: readonly Subject[]): Map<string, number> => {
  const out = new Map<string, number>();
  for (const s of subjects) {
    const dot = s.shape.lastIndexOf(".");
    if (dot < 0) continue;
    const k = `${s.org}\u0000${parentOf(s.address, s.shape)}\u0000${s.shape.slice(dot + 1)}`;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
};

export const evaluatePolicies = (input: EvaluateInput): PolicyViolation[] => {
  const rules = input.rules.filter((r) => r.on === input.on);
  if (rules.length === 0) return [];
  const out: PolicyViolation[] = [];
  const waivers = input.exceptions
    .filter((e) => e.expires >= input.today)
    .map((e) => ({ rule: e.rule, test: compileAddressGlob(e.address).test }));
  const waived = (rule: string, address: string): boolean =>
    waivers.some(
      (w) => w.rule === rule && (w.test(address) || ancestorsOf(address).some((a) => w.test(a))),
    );
  let counts: Map<string, number> | undefined;
  for (const rule of rules) {
    const sel = selector(rule.address);
    const c = rule.condition;
    const matcher = c.kind === "matches" ? boundedMatcher(c.pattern) : undefined;
    const actions = rule.actions;
    const changed = rule.changed;
    let matched = 0;
    for (const s of input.subjects) {
      if (!selects(sel, s)) continue;
      if (actions !== undefined && (s.action === undefined || !actions.includes(s.action)))
        continue;
      if (
        changed !== undefined &&
        !(s.changed ?? []).some((f) => changed.some((x) => f === x || f.startsWith(`${x}.`)))
      )
        continue;
      matched += 1;
      let problem: string | undefined;
      if (c.kind === "none") {
        problem =
          s.action === undefined
            ? `${s.address} is not allowed`
            : `the plan ${verb[s.action]} ${s.address}, which is not allowed`;
      } else if (c.kind === "count") {
        counts ??= childCounts(input.subjects);
        const n = counts.get(`${s.org}\u0000${s.address}\u0000${c.of}`) ?? 0;
        if ((c.min !== undefined && n < c.min) || (c.max !== undefined && n > c.max)) {
          const bound =
            c.min !== undefined && c.max !== undefined
              ? `between ${c.min} and ${c.max}`
              : c.min !== undefined
                ? `at least ${c.min}`
                : `at most ${c.max}`;
          problem = `${s.address} must have ${bound} ${c.of} item(s)${input.on === "plan" ? " changed" : ""} (it has ${n})`;
        }
      } else {
        const f = failure(c, s.fields, matcher);
        if (f !== undefined) problem = `${s.address}: ${f}`;
      }
      if (problem === undefined || waived(rule.id, s.address)) continue;
      const item = plain(s.source ?? input.locate?.(s.org, s.address));
      const ruleAt = plain(rule.source);
      out.push({
        rule: rule.id,
        level: rule.level,
        on: input.on,
        from: "rule",
        org: s.org,
        address: s.address,
        message: rule.message === undefined ? problem : `${rule.message}: ${problem}`,
        ...(ruleAt === undefined ? {} : { rule_source: ruleAt }),
        ...(item === undefined ? {} : { item_source: item }),
      });
    }
    if (rule.expect_match && matched === 0) {
      out.push({
        rule: rule.id,
        level: "error",
        on: input.on,
        from: "expect_match",
        message: `rule ${rule.id} matched no ${input.on === "plan" ? "change" : "item"}: its address ${rule.address} may no longer name anything (expect_match: true)`,
        ...(rule.source === undefined ? {} : { rule_source: plain(rule.source) as PlainLocation }),
      });
    }
  }
  const byId = new Map(rules.map((r) => [r.id, r]));
  for (const e of input.exceptions) {
    const rule = byId.get(e.rule);
    if (rule === undefined || e.expires >= input.today) continue;
    out.push({
      rule: e.rule,
      level: rule.level,
      on: input.on,
      from: "exception",
      message: `the exception for ${e.address} ("${e.reason}") expired on ${e.expires}: extend expires or remove the exception (and fix what it waived)`,
      rule_source: plain(e.source) as PlainLocation,
    });
  }
  return sortViolations(out);
};

/** Errors first; otherwise in the order found (rules as declared, items in order). */
export const sortViolations = (vs: readonly PolicyViolation[]): PolicyViolation[] => [
  ...vs.filter((v) => v.level === "error"),
  ...vs.filter((v) => v.level !== "error"),
];

/** Today's date (UTC) of a clock reading, for `EvaluateInput.today`. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
