import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addr,
  ancestorsOf,
  childAddress,
  compileAddressGlob,
  formatAddress,
  isWithin,
  parseAddress,
} from "../../src/model/address.js";
import { propertyRuns } from "../helpers/property-runs.js";

describe("addresses", () => {
  it("are built in the design's form", () => {
    expect(addr.contextEnvVar("deploy-prod", "AWS_REGION")).toBe(
      'context["deploy-prod"].env["AWS_REGION"]',
    );
    expect(addr.contextRestriction("deploy-prod", "project", "gh/acme/api")).toBe(
      'context["deploy-prod"].restriction["project:gh/acme/api"]',
    );
    expect(addr.projectSettings("gh/acme/api")).toBe('project["gh/acme/api"].settings');
    expect(addr.trigger("gh/acme/api", "build", "nightly")).toBe(
      'project["gh/acme/api"].pipeline["build"].trigger["nightly"]',
    );
  });

  it("escape quotes in keys and parse back", () => {
    const a = addr.contextRestriction("c", "expression", 'pipeline.git.branch == "main"');
    expect(a).toBe('context["c"].restriction["expression:pipeline.git.branch == \\"main\\""]');
    expect(parseAddress(a)).toEqual([
      { name: "context", key: "c" },
      { name: "restriction", key: 'expression:pipeline.git.branch == "main"' },
    ]);
  });

  it("round-trip any keys", () => {
    const segment = fc.record({
      name: fc.constantFrom("context", "env", "project", "webhook", "pipeline", "trigger"),
      key: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        expect(parseAddress(formatAddress(segments))).toEqual(segments);
      }),
    );
  });

  it("add one step to a parent's address as formatting every step would", () => {
    const segment = fc.record(
      {
        name: fc.constantFrom("context", "env", "project", "settings", "pipeline", "trigger"),
        key: fc.string(),
      },
      { requiredKeys: ["name"] },
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 3 }), segment, (parents, last) => {
        expect(childAddress(formatAddress(parents), last)).toBe(formatAddress([...parents, last]));
      }),
      { numRuns: propertyRuns(200) },
    );
    expect(childAddress("", { name: "context", key: "a" })).toBe('context["a"]');
    expect(childAddress('project["p"]', { name: "settings" })).toBe('project["p"].settings');
  });

  it("reject text that is not an address", () => {
    for (const bad of ["", "context[", 'context["a"', "context.", "Context", 'a["x"]b']) {
      expect(parseAddress(bad)).toBeUndefined();
    }
  });

  it("match globs literally except * and ?", () => {
    const g = compileAddressGlob('context["legacy-*"]');
    expect(g.test('context["legacy-db"]')).toBe(true);
    expect(g.test('context["prod"]')).toBe(false);
    expect(compileAddressGlob("a.b").test("axb")).toBe(false);
  });

  it("match globs as a backtracking RegExp would, for any glob and address", () => {
    // The reference: the RegExp the matcher replaced (fine on short inputs).
    const reference = (glob: string, address: string): boolean => {
      let re = "";
      for (const ch of glob) {
        if (ch === "*") re += ".*";
        else if (ch === "?") re += ".";
        else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return new RegExp(`^${re}$`, "su").test(address);
    };
    const alphabet = fc.constantFrom("a", "b", "*", "?", ".", '"', "[", "]", "\n", "é");
    const text = fc.array(alphabet, { maxLength: 12 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(text, text, (glob, address) => {
        const plain = address.replace(/[*?]/g, "a");
        expect(compileAddressGlob(glob).test(plain)).toBe(reference(glob, plain));
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it("match a glob of many stars against a long name without backtracking for ever", () => {
    // As a RegExp the first pair takes 13 s here; the test's own timeout is the bound.
    const glob = `${"*a".repeat(18)}b`;
    const name = "a".repeat(32);
    expect(compileAddressGlob(glob).test(name)).toBe(false);
    expect(compileAddressGlob(glob).test(`${"a".repeat(40)}b`)).toBe(true);
  }, 5_000);

  it("know parents", () => {
    const t = addr.trigger("p", "b", "n");
    expect(ancestorsOf(t)).toEqual(['project["p"]', 'project["p"].pipeline["b"]']);
    expect(isWithin(t, 'project["p"]')).toBe(true);
    expect(isWithin('project["pp"]', 'project["p"]')).toBe(false);
  });
});
