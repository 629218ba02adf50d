/**
 * `--policy-cmd CMD` (issue 45): what the program's answer means. The program reads the
 * masked JSON plan on stdin and writes `{ "violations": [ … ] }` on stdout, each with
 * `rule` and `message` (and optionally `level`, `address`, `org`). Pure: the cli runs the
 * program, this reads its answer. Anything else — not JSON, no `violations` list, an entry
 * without a rule or message — is an error: a policy check that cannot be read never passes.
 */
import type { PolicyLevel, PolicyViolation } from "../model/policy.js";

export type CommandAnswer =
  | { readonly ok: true; readonly violations: PolicyViolation[] }
  | { readonly ok: false; readonly why: string };

const str = (v: unknown): v is string => typeof v === "string" && v.length > 0;

export const readCommandAnswer = (stdout: string): CommandAnswer => {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return { ok: false, why: 'its output is not JSON (expected { "violations": [...] })' };
  }
  const list = (doc as { violations?: unknown } | null)?.violations;
  if (!Array.isArray(list)) {
    return {
      ok: false,
      why: 'its output has no "violations" list (expected { "violations": [...] })',
    };
  }
  const out: PolicyViolation[] = [];
  for (const [i, v] of list.entries()) {
    const e = v as Record<string, unknown> | null;
    if (e === null || typeof e !== "object" || !str(e.rule) || !str(e.message)) {
      return { ok: false, why: `violations[${i}] needs a "rule" and a "message" (strings)` };
    }
    if (e.level !== undefined && e.level !== "error" && e.level !== "warn") {
      return { ok: false, why: `violations[${i}].level must be "error" or "warn"` };
    }
    // Decision: a violation without a level is an error: a program that forgot to say is
    // not taken to mean "only a warning".
    const level: PolicyLevel = e.level === "warn" ? "warn" : "error";
    out.push({
      rule: e.rule,
      level,
      on: "plan",
      from: "policy_cmd",
      ...(str(e.org) ? { org: e.org } : {}),
      ...(str(e.address) ? { address: e.address } : {}),
      message: e.message,
    });
  }
  return { ok: true, violations: out };
};
