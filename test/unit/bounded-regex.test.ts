/**
 * A policy's `matches` pattern against live values (src/core/bounded-regex.ts): the shapes
 * that backtrack without bound are refused at validation, and every test ends in time
 * whatever the pattern, failing closed.
 */
import { describe, expect, it } from "vitest";
import { boundedMatcher, regexHazard } from "../../src/core/bounded-regex.js";
import { evaluatePolicies } from "../../src/policy/evaluate.js";

describe("regexHazard: shapes that can take exponential time", () => {
  it.each([
    ["^(a+)+$", /repeats inside/],
    ["(x*)*y", /repeats inside/],
    ["^(?:\\w+\\s?)*$", /repeats inside/],
    ["(a|aa)*b", /holds alternatives/],
    ["((ab)+c)+", /repeats inside/],
    ["(a{1,5}){2,}", /repeats inside/],
    ["(a)\\1", /back-reference/],
    ["(?<n>a)\\k<n>", /back-reference/],
  ])("%s is refused", (pattern, why) => {
    expect(regexHazard(pattern)).toMatch(why);
  });

  it.each([
    "^https://hooks\\.slack\\.com/",
    "^prod-[a-z0-9-]+$",
    "(ab)+c",
    "(a|b)?c",
    "(a+)?",
    "(foo|bar)",
    "[(+*)]+",
    "\\(a+\\)+",
    "a{2}(bc){3}",
    "^(?:x|y)$",
  ])("%s is accepted", (pattern) => {
    expect(regexHazard(pattern)).toBeUndefined();
  });
});

describe("boundedMatcher: every test ends", () => {
  it("matches and misses as RegExp does", () => {
    const t = boundedMatcher("^prod-[a-z]+$");
    expect(t("prod-api")).toBe(true);
    expect(t("staging")).toBe(false);
  });

  it("a backtracking pattern on a hostile value times out instead of hanging", () => {
    // The shape regexHazard refuses; a config that got past it (or a shape it misses) still ends.
    const t = boundedMatcher("^(a+)+$", 50);
    expect(t(`${"a".repeat(40)}!`)).toBe("timeout");
  });

  it("the evaluator reports a timed-out value as a violation (fail closed), never the value", () => {
    const v = evaluatePolicies({
      on: "config",
      rules: [
        {
          id: "names",
          level: "error",
          on: "config",
          address: 'context["*"]',
          condition: { kind: "matches", field: "name", pattern: "^(a+)+$" },
          expect_match: false,
          source: { file: "policies.yaml", line: 3, col: 5 },
        },
      ],
      exceptions: [],
      subjects: [
        {
          org: "gh/acme",
          address: 'context["x"]',
          shape: "context",
          fields: { name: `${"a".repeat(40)}!` },
        },
      ],
      today: "2026-06-01",
    });
    expect(v).toHaveLength(1);
    expect(v[0]?.message).toMatch(/could not be checked against .* in time/);
    expect(v[0]?.message).not.toContain("aaaa!");
  }, 30_000);
});
