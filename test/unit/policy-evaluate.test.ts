/**
 * The policy evaluator (src/policy/evaluate.ts): one test per operator and per level, the
 * selection by address shape, action and changed field, exceptions (a waiver, an expired
 * one), expect_match, and messages that never show a string value.
 */
import { describe, expect, it } from "vitest";
import type { SourceLocation } from "../../src/core/errors.js";
import type { PolicyCondition, PolicyException, PolicyRule } from "../../src/model/policy.js";
import { evaluatePolicies } from "../../src/policy/evaluate.js";
import type { Subject } from "../../src/policy/subjects.js";

const at = (line: number): SourceLocation => ({ file: "policies.yaml", line, col: 5 });

const rule = (condition: PolicyCondition, over: Partial<PolicyRule> = {}): PolicyRule => ({
  id: "r",
  level: "error",
  on: "config",
  address: 'project["*"].webhook["*"]',
  condition,
  expect_match: false,
  source: at(3),
  ...over,
});

const hook = (name: string, fields: Record<string, unknown>, line = 10): Subject => ({
  org: "gh/acme",
  address: `project["gh/acme/api"].webhook["${name}"]`,
  shape: "project.webhook",
  fields,
  source: at(line),
});

const run = (
  rules: readonly PolicyRule[],
  subjects: readonly Subject[],
  exceptions: readonly PolicyException[] = [],
  today = "2026-06-01",
) => evaluatePolicies({ on: "config", rules, exceptions, subjects, today });

const addresses = (vs: readonly { address?: string }[]) => vs.map((v) => v.address);

describe("policy evaluator: one test per operator", () => {
  const subjects = [
    hook("a", { should_verify_tls: false, url: "https://hooks.example.com/secret-path", n: 3 }),
    hook("b", { should_verify_tls: true, url: "https://ok.example.com/x", n: 7 }),
    hook("c", { url: "https://ok.example.com/y" }),
  ];

  it("equals: a value other than the one required (an absent field included) violates", () => {
    const v = run([rule({ kind: "equals", field: "should_verify_tls", value: true })], subjects);
    expect(addresses(v)).toEqual([subjects[0]?.address, subjects[2]?.address]);
    expect(v[0]?.message).toContain("should_verify_tls must be true (it is false)");
  });

  it("not_equals: only the forbidden value violates (absent passes)", () => {
    const v = run(
      [rule({ kind: "not_equals", field: "should_verify_tls", value: false })],
      subjects,
    );
    expect(addresses(v)).toEqual([subjects[0]?.address]);
  });

  it("in: a value outside the list violates", () => {
    const v = run([rule({ kind: "in", field: "n", values: [3, 4] })], subjects);
    expect(addresses(v)).toEqual([subjects[1]?.address, subjects[2]?.address]);
  });

  it("matches: a string not matching the regular expression violates; the value is never shown", () => {
    const v = run(
      [rule({ kind: "matches", field: "url", pattern: "^https://ok\\.example\\.com/" })],
      subjects,
    );
    expect(addresses(v)).toEqual([subjects[0]?.address]);
    expect(v[0]?.message).not.toContain("secret-path");
  });

  it("exists: an unset field violates", () => {
    const v = run([rule({ kind: "exists", field: "should_verify_tls" })], subjects);
    expect(addresses(v)).toEqual([subjects[2]?.address]);
  });

  it("absent: a set field violates", () => {
    const v = run([rule({ kind: "absent", field: "n" })], subjects);
    expect(addresses(v)).toEqual([subjects[0]?.address, subjects[1]?.address]);
  });

  it("a dotted field path reads nested values", () => {
    const s = [
      { ...hook("d", { config: { vcs: { provider: "github_app" } } }) },
      { ...hook("e", { config: { vcs: { provider: "gitlab" } } }) },
    ];
    const v = run([rule({ kind: "equals", field: "config.vcs.provider", value: "github_app" })], s);
    expect(addresses(v)).toEqual([s[1]?.address]);
  });

  it("count: children of the selected item, below min or above max", () => {
    const ctx = (name: string): Subject => ({
      org: "gh/acme",
      address: `context["${name}"]`,
      shape: "context",
      fields: { name },
    });
    const restriction = (name: string, key: string): Subject => ({
      org: "gh/acme",
      address: `context["${name}"].restriction["${key}"]`,
      shape: "context.restriction",
      fields: {},
    });
    const s = [
      ctx("prod-a"),
      restriction("prod-a", "group:all-members"),
      ctx("prod-b"),
      ctx("prod-c"),
      restriction("prod-c", "project:gh/acme/x"),
      restriction("prod-c", "project:gh/acme/y"),
      restriction("prod-c", "project:gh/acme/z"),
      ctx("dev"),
    ];
    const min = run(
      [rule({ kind: "count", of: "restriction", min: 1 }, { address: 'context["prod-*"]' })],
      s,
    );
    expect(addresses(min)).toEqual(['context["prod-b"]']);
    expect(min[0]?.message).toContain("at least 1 restriction");
    const max = run(
      [rule({ kind: "count", of: "restriction", max: 2 }, { address: 'context["prod-*"]' })],
      s,
    );
    expect(addresses(max)).toEqual(['context["prod-c"]']);
  });

  it("no condition: every selected item is the violation; a glob never selects another shape", () => {
    const s = [
      hook("a", {}),
      {
        org: "gh/acme",
        address: 'project["gh/acme/api"].webhook["a"].x["y"]',
        shape: "project.webhook.x",
        fields: {},
      },
    ];
    const v = run([rule({ kind: "none" })], s);
    expect(addresses(v)).toEqual([s[0]?.address]);
  });
});

describe("policy evaluator: plan selection", () => {
  const change = (address: string, action: Subject["action"], changed: string[]): Subject => ({
    org: "gh/acme",
    address,
    shape: "context",
    fields: {},
    action,
    changed,
  });
  const changes = [
    change('context["prod-db"]', "delete", []),
    change('context["prod-web"]', "create", []),
    change('context["dev"]', "delete", []),
  ];
  const planRun = (r: PolicyRule, subjects: readonly Subject[]) =>
    evaluatePolicies({ on: "plan", rules: [r], exceptions: [], subjects, today: "2026-06-01" });

  it("actions: a delete of a production context, and nothing else", () => {
    const v = planRun(
      rule({ kind: "none" }, { on: "plan", address: 'context["prod-*"]', actions: ["delete"] }),
      changes,
    );
    expect(addresses(v)).toEqual(['context["prod-db"]']);
    expect(v[0]?.message).toBe('the plan deletes context["prod-db"], which is not allowed');
  });

  it("changed: only changes of the named field (or a field inside it)", () => {
    const s = [
      { ...hook("a", {}), action: "update" as const, changed: ["events"] },
      { ...hook("b", {}), action: "update" as const, changed: ["config.vcs.repo_id"] },
    ];
    const v = planRun(rule({ kind: "none" }, { on: "plan", changed: ["config.vcs"] }), s);
    expect(addresses(v)).toEqual([s[1]?.address]);
  });

  it("rules of another `on` are not evaluated", () => {
    expect(planRun(rule({ kind: "none" }, { on: "live" }), [hook("a", {})])).toEqual([]);
  });
});

describe("policy evaluator: levels, exceptions, expect_match", () => {
  const s = [hook("a", { should_verify_tls: false }, 12)];
  const tls = (over: Partial<PolicyRule> = {}) =>
    rule({ kind: "not_equals", field: "should_verify_tls", value: false }, over);

  it("level error: the violation is an error, with the rule's and the item's places", () => {
    const [v] = run([tls()], s);
    expect(v).toMatchObject({
      rule: "r",
      level: "error",
      from: "rule",
      rule_source: { file: "policies.yaml", line: 3, col: 5 },
      item_source: { file: "policies.yaml", line: 12, col: 5 },
    });
  });

  it("level warn: the violation is a warning, listed after the errors", () => {
    const v = run([tls({ id: "w", level: "warn" }), tls({ id: "e" })], s);
    expect(v.map((x) => [x.rule, x.level])).toEqual([
      ["e", "error"],
      ["w", "warn"],
    ]);
  });

  const exception = (expires: string, address = 'project["gh/acme/api"]'): PolicyException => ({
    rule: "r",
    address,
    reason: "vendor certificate, ticket OPS-12",
    expires,
    source: at(30),
  });

  it("an exception waives the rule for its address and what is under it, through its last day", () => {
    expect(run([tls()], s, [exception("2026-06-01")])).toEqual([]);
  });

  it("an exception for another address waives nothing", () => {
    expect(run([tls()], s, [exception("2026-12-31", 'project["gh/acme/web"]')])).toHaveLength(1);
  });

  it("an expired exception is itself a violation, at the exception, and waives nothing", () => {
    const v = run([tls()], s, [exception("2026-05-31")]);
    expect(v.map((x) => x.from).sort()).toEqual(["exception", "rule"]);
    const expired = v.find((x) => x.from === "exception");
    expect(expired).toMatchObject({ level: "error", rule_source: { line: 30 } });
    expect(expired?.message).toContain("expired on 2026-05-31");
  });

  it("expect_match: a rule that selects nothing is an error (a warn rule too)", () => {
    const v = run(
      [tls({ address: 'project["*"].webhook["gone-*"]', expect_match: true, level: "warn" })],
      s,
    );
    expect(v).toMatchObject([{ from: "expect_match", level: "error", rule_source: { line: 3 } }]);
    expect(run([tls({ expect_match: true })], s).map((x) => x.from)).toEqual(["rule"]);
  });
});
