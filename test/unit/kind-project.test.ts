/**
 * Projects themselves (src/kinds/project.ts; spec: api-v2-v1.md Endpoints (V2), api-v3.md
 * Projects), as pure code: identity = slug; never compared, updated or replaced; created (V2
 * POST of a name) only with `create: true` and deleted only with `delete: true`; the planner's
 * project walk and the loader/export handle them, so the generic members are inert. No secrets.
 */
import { describe, expect, it } from "vitest";
import type { KindEnv } from "../../src/kinds/contract.js";
import { isProjectName, projectKind, projectName } from "../../src/kinds/project.js";
import type { DesiredProject } from "../../src/model/desired.js";
import { dOrg, dProject, lProject, PROJECT, PROJECT_ID } from "../helpers/builders.js";

const env: KindEnv = {
  orgId: "org-1",
  projectId: () => undefined,
  refId: () => undefined,
  forceSecrets: false,
};

const k = projectKind;

describe("project", () => {
  it("identity is the slug; the id is the live id; there is no pin", () => {
    const l = lProject(PROJECT);
    expect(k.desiredKey(dProject(PROJECT))).toBe(PROJECT);
    expect([k.liveKey(l), k.liveAddressKey(l), k.liveId(l)]).toEqual([
      PROJECT,
      PROJECT,
      PROJECT_ID,
    ]);
    expect(k.pinnedId(dProject(PROJECT))).toBeUndefined();
  });

  it("a new project's name is a name key itself, or a slug's last segment", () => {
    expect(projectName("gh/acme/api")).toBe("api");
    expect(projectName("api")).toBe("api");
    expect(isProjectName("api")).toBe(true);
    expect(isProjectName("gh/acme/api")).toBe(false);
    expect(k.desiredView(dProject("gh/acme/api"), env)).toEqual({ name: "api" });
  });

  it("nothing of a project compares or updates, and it is never replaced", () => {
    expect(k.compare(dProject(PROJECT), lProject(PROJECT, { name: "other" }), env)).toMatchObject({
      fields: [],
      replace_reasons: [],
      unverified: [],
      skipped: [],
    });
    expect(k.updateCalls([])).toEqual([]);
    expect(k.replaceOrder).toBe("never");
    expect(k.unresolvedSecrets(dProject(PROJECT))).toEqual([]);
  });

  it("create is a V2 POST of the name; delete a V2 DELETE by slug; no secret", () => {
    const calls = [...k.createCalls(dProject(PROJECT)), ...k.deleteCalls()];
    expect(calls.map((c) => [c.phase, c.method, c.api, c.route, c.body, c.body_fields])).toEqual([
      ["create", "POST", "v2", "/organization/{org_id}/project", "flat", ["name"]],
      ["delete", "DELETE", "v2", "/project/{project_slug}", "none", []],
    ]);
    expect(calls.flatMap((c) => c.sensitive_fields)).toEqual([]);
  });

  it("only a project marked create or delete is an item of the kind", () => {
    const mark = (slug: string, m: Partial<DesiredProject>): DesiredProject => ({
      ...dProject(slug),
      ...m,
    });
    const org = dOrg({
      projects: [
        dProject("gh/acme/plain"),
        mark("gh/acme/made", { create: true }),
        mark("gh/acme/gone", { delete: true }),
      ],
    });
    expect([...k.desiredItems(org)].map((x) => x.address)).toEqual([
      'project["gh/acme/made"]',
      'project["gh/acme/gone"]',
    ]);
  });

  it("the created slug is given to the project's children; an adopted one by its name", () => {
    expect(k.createdValues?.fromResponse({ id: "p1", slug: "gh/acme/new" })).toEqual({
      slug: "gh/acme/new",
    });
    expect(k.createdValues?.fromResponse({ message: "no" })).toEqual({});
    expect(k.createdValues?.fromLive(lProject("gh/acme/new"))).toEqual({ slug: "gh/acme/new" });
    expect(k.adopt.by).toBe("relist");
    if (k.adopt.by !== "relist") return;
    expect(k.adopt.matches(dProject("gh/acme/new"), {}, lProject("gh/acme/new"))).toBe(true);
    expect(k.adopt.matches(dProject("new"), {}, lProject("gh/acme/new"))).toBe(true);
    expect(k.adopt.matches(dProject("gh/acme/new"), {}, lProject("gh/acme/other"))).toBe(false);
  });

  it("the generic walks leave it alone: no export entries, never read, never diffed", () => {
    expect(
      k.toConfig([lProject(PROJECT)], {}, { env: () => expect.unreachable() as never }),
    ).toEqual([]);
    expect(k.collection.desiredIn(dOrg({ projects: [dProject(PROJECT)] }))).toBeUndefined();
    expect(k.livePlace.under === "org" && k.livePlace.readFor(dOrg())).toBe(false);
    expect(k.config.builtByLoader).toBe(true);
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/cannot be renamed/);
  });
});
