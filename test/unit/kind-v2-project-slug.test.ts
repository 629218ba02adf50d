/**
 * The slug a project's V2 routes take (spec: api-v2-v1.md "Conventions of V2"): an OAuth
 * provider's project keeps its slug; an app-based one is `<vcs-slug>/<org id>/<project id>`,
 * never built from its name. The emulator names projects on V2 routes the same way.
 */
import { describe, expect, it } from "vitest";
import { v2SlugOf } from "../../emulator/src/families/projects.js";
import { scopeSlug, v2ProjectSlug } from "../../src/kinds/listing.js";

const ORG = "5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const PROJECT = "7e1f0c2d-3b4a-4c5d-8e6f-0a1b2c3d4e5f";

describe("V2 project slugs", () => {
  it("keeps an OAuth provider's slug, short or long provider names, any case", () => {
    for (const slug of ["gh/acme/api", "github/acme/api", "bb/acme/api", "BitBucket/acme/api"]) {
      expect(v2ProjectSlug(slug, ORG, PROJECT)).toBe(slug);
    }
  });

  it("builds an app-based project's slug from the ids, whatever V3 lists", () => {
    const want = `circleci/${ORG}/${PROJECT}`;
    expect(v2ProjectSlug(`circleci/${ORG}/api`, ORG, PROJECT)).toBe(want);
    expect(v2ProjectSlug(`circleci/other-name/api`, ORG, PROJECT)).toBe(want);
    // Idempotent: a slug already built from the ids stays as it is.
    expect(v2ProjectSlug(want, ORG, PROJECT)).toBe(want);
    expect(
      scopeSlug({ org_id: ORG, project_id: PROJECT, project_slug: `circleci/${ORG}/api` }),
    ).toBe(want);
  });

  it("the emulator's V2 name of a project agrees", () => {
    expect(v2SlugOf({ id: PROJECT, orgId: ORG, slug: "gh/acme/api" })).toBe("gh/acme/api");
    expect(v2SlugOf({ id: PROJECT, orgId: ORG, slug: `circleci/${ORG}/api` })).toBe(
      `circleci/${ORG}/${PROJECT}`,
    );
  });
});
