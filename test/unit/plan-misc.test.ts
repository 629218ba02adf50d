import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/plan/plan.js";
import { renderText } from "../../src/render/text.js";
import {
  dContext,
  desired,
  dOrg,
  dProject,
  lContext,
  live,
  lOrg,
  lProject,
  PROJECT,
} from "../helpers/builders.js";

describe("several orgs and files", () => {
  it("plans each org; addresses repeat across orgs, the org tells them apart", () => {
    const p = planChanges(
      desired(
        dOrg({ slug: "gh/a", contexts: [dContext("x")] }),
        dOrg({ slug: "gh/b", contexts: [dContext("x")] }),
      ),
      live(
        lOrg({ slug: "gh/a", id: "A", contexts: [] }),
        lOrg({ slug: "gh/b", id: "B", contexts: [] }),
      ),
    );
    expect(p.changes.map((c) => [c.org, c.address, c.params.org_id])).toEqual([
      ["gh/a", 'context["x"]', "A"],
      ["gh/b", 'context["x"]', "B"],
    ]);
    expect(p.orgs).toEqual([
      { slug: "gh/a", id: "A" },
      { slug: "gh/b", id: "B" },
    ]);
    expect(renderText(p, { color: false })).toContain("Org gh/b:");
  });

  it("merges files that share an org (contexts in one, projects in another)", () => {
    const p = planChanges(
      desired(
        dOrg({ contexts: [dContext("a")] }),
        dOrg({ projects: [dProject(PROJECT, { env: {} })] }),
      ),
      live(
        lOrg({
          contexts: [lContext("a"), lContext("b")],
          projects: [lProject(PROJECT, { env: [] })],
        }),
      ),
    );
    expect(p.changes.map((c) => `${c.action} ${c.address}`)).toEqual(['delete context["b"]']);
  });
});
