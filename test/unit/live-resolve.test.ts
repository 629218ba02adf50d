import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isUuid } from "../../src/core/uuid.js";
import { restrictionKeyValue as keyValue } from "../../src/kinds/context-restriction.js";
import { lastFourFromMasked } from "../../src/kinds/project-env-var.js";
import {
  chooseProjectLookup,
  isNotVisible,
  makeIgnoreMatcher,
  PROJECT_SLUG_LOOKUP_MAX,
} from "../../src/live/resolve.js";

const restrictionKeyValue = (
  type: "project" | "group" | "expression",
  pattern: string,
  org: string,
  slugs: ReadonlyMap<string, string>,
): string => keyValue(type, pattern, org, (id) => slugs.get(id));

const ORG = "11111111-1111-4111-8111-111111111111";
const P1 = "22222222-2222-4222-8222-222222222222";
const P2 = "33333333-3333-4333-8333-333333333333";

describe("live resolution helpers", () => {
  it("recognise UUIDs and nothing else", () => {
    expect(isUuid(P1)).toBe(true);
    expect(isUuid(P1.toUpperCase())).toBe(true);
    expect(isUuid("gh/acme/api")).toBe(false);
    expect(isUuid(`${P1}x`)).toBe(false);
  });

  it("resolve few slugs one by one and many by listing the org", () => {
    expect(chooseProjectLookup(1)).toBe("by_slug");
    expect(chooseProjectLookup(PROJECT_SLUG_LOOKUP_MAX)).toBe("by_slug");
    expect(chooseProjectLookup(PROJECT_SLUG_LOOKUP_MAX + 1)).toBe("list_org");
  });

  it("turn restriction patterns into the keys a config writes", () => {
    const slugs = new Map([[P1, "gh/acme/api"]]);
    expect(restrictionKeyValue("project", P1, ORG, slugs)).toBe("gh/acme/api");
    expect(restrictionKeyValue("project", P2, ORG, slugs)).toBe(P2);
    expect(restrictionKeyValue("group", ORG, ORG, slugs)).toBe("all-members");
    expect(restrictionKeyValue("group", P2, ORG, slugs)).toBe(P2);
    expect(restrictionKeyValue("expression", 'pipeline.git.branch == "main"', ORG, slugs)).toBe(
      'pipeline.git.branch == "main"',
    );
  });

  it("take the last four characters from a V2 masked value", () => {
    expect(lastFourFromMasked("xxxxabcd")).toBe("abcd");
    expect(lastFourFromMasked("xxxxab")).toBe("ab");
    expect(lastFourFromMasked("secretvalue")).toBe("alue");
  });

  it("recover exactly the last four characters V2 masks any value to", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), (value) => {
        // spec: api-v2-v1.md: masked = four x characters plus the last four characters.
        const masked = `xxxx${value.slice(-4)}`;
        expect(lastFourFromMasked(masked)).toBe(value.slice(-4));
      }),
    );
  });

  it("map a restriction pattern to the org-wide key only for the org id", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (org, other) => {
        fc.pre(org !== other);
        expect(restrictionKeyValue("group", org, org, new Map())).toBe("all-members");
        expect(restrictionKeyValue("group", other, org, new Map())).toBe(other);
        expect(restrictionKeyValue("project", other, org, new Map([[other, "gh/a/b"]]))).toBe(
          "gh/a/b",
        );
      }),
    );
  });

  it("treat 403 and 404 as not visible, other failures not", () => {
    expect(isNotVisible(Object.assign(new Error("x"), { status: 404 }))).toBe(true);
    expect(isNotVisible(Object.assign(new Error("x"), { status: 403 }))).toBe(true);
    expect(isNotVisible(Object.assign(new Error("x"), { status: 500 }))).toBe(false);
    expect(isNotVisible(new Error("network"))).toBe(false);
  });

  it("match ignore globs against whole addresses", () => {
    const ignored = makeIgnoreMatcher(['context["legacy-*"]']);
    expect(ignored('context["legacy-a"]')).toBe(true);
    expect(ignored('context["prod"]')).toBe(false);
  });
});
