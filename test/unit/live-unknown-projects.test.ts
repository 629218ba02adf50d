/**
 * Which project references are plan-time config errors (src/run/unknown-projects.ts), and
 * how they read: only slugs that did not resolve; not ids, not ignored items, not a project
 * that exists but could not be read.
 */
import { describe, expect, it } from "vitest";
import { findUnknownProjects, unknownProjectDiagnostics } from "../../src/run/unknown-projects.js";
import {
  dContext,
  desired,
  dOrg,
  dProject,
  live,
  lOrg,
  lProject,
  notVisible,
  rExpr,
  rProject,
} from "../helpers/builders.js";

const UUID = "0f6b3c1e-1111-4222-8333-444455556666";

describe("findUnknownProjects", () => {
  it("finds declared projects and restrictions whose slug did not resolve, and nothing else", () => {
    const config = desired(
      dOrg({
        contexts: [
          dContext("prod", {
            restrictions: [
              rExpr("true"),
              rProject("gh/acme/api"),
              rProject("gh/acme/wbe"),
              rProject(UUID),
            ],
          }),
          dContext("legacy", { restrictions: [rProject("gh/acme/gone")] }),
        ],
        projects: [
          dProject("gh/acme/api"),
          dProject("gh/acme/aip"),
          dProject("gh/acme/locked"),
          dProject("gh/acme/old"),
        ],
        ignore: ['context["legacy"]', 'project["gh/acme/old"]'],
      }),
    );
    const state = live(
      lOrg({
        projects: [
          lProject("gh/acme/api"),
          ["gh/acme/aip", notVisible()],
          // Resolved to an id, then a 403 on a collection: it exists, the planner reports it.
          ["gh/acme/locked", notVisible("GET /api/v3/projects/x/settings answered 403")],
        ],
        projectIds: { "gh/acme/api": "prj-api", "gh/acme/locked": "prj-locked" },
      }),
    );
    expect(findUnknownProjects(config, state).map((r) => [r.slug, r.path])).toEqual([
      ["gh/acme/aip", "projects.gh/acme/aip"],
      ["gh/acme/wbe", "contexts.prod.restrictions.2.project"],
    ]);
  });
});

describe("unknownProjectDiagnostics", () => {
  const ref = {
    org: "gh/acme",
    orgId: "org-1",
    slug: "gh/acme/aip",
    source: { file: "w.yaml", line: 7, col: 3 },
    path: "projects.gh/acme/aip",
  };

  it("suggests the closest slug of the org", () => {
    const [d] = unknownProjectDiagnostics(
      [ref],
      new Map([["gh/acme", ["gh/acme/web", "gh/acme/api"]]]),
    );
    expect(d).toEqual({
      file: "w.yaml",
      line: 7,
      col: 3,
      path: "projects.gh/acme/aip",
      code: "unknown_project",
      message:
        'no project "gh/acme/aip" in org gh/acme (absent or not visible to this token); did you mean "gh/acme/api"?',
    });
  });

  it("says what to check when nothing is close, or the org could not be listed", () => {
    for (const slugs of [["gh/acme/something-else"], []]) {
      const [d] = unknownProjectDiagnostics([ref], new Map([["gh/acme", slugs]]));
      expect(d?.message).toBe(
        'no project "gh/acme/aip" in org gh/acme (absent or not visible to this token); check the slug (provider/org/name) and the token\'s access',
      );
    }
  });
});
