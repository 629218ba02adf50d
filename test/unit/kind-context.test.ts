import { describe, expect, it } from "vitest";
import { PlanError } from "../../src/core/errors.js";
import { Secret } from "../../src/core/secret.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import {
  dContext,
  desired,
  dOrg,
  lContext,
  live,
  lOrg,
  lRestriction,
  ORG_ID,
  PROJECT,
  PROJECT_ID,
  rExpr,
  rGroup,
  rProject,
} from "../helpers/builders.js";

type Ctx = ReturnType<typeof dContext>;
type LCtx = ReturnType<typeof lContext>;

const plan = (
  contexts: Ctx[] | undefined,
  liveContexts: LCtx[],
  options: PlanOptions = {},
  extra: { ignore?: string[] } = {},
) =>
  planChanges(
    desired(dOrg({ ...(contexts ? { contexts } : {}), ...extra })),
    live(lOrg({ contexts: liveContexts, projectIds: { [PROJECT]: PROJECT_ID } })),
    options,
  );

const brief = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.address}`);

describe("context", () => {
  it.each([
    {
      name: "no-op",
      d: [dContext("deploy")],
      l: [lContext("deploy")],
      want: [],
    },
    {
      name: "create",
      d: [dContext("deploy")],
      l: [],
      want: ['create context["deploy"]'],
    },
    {
      name: "delete (collection managed)",
      d: [],
      l: [lContext("old")],
      want: ['delete context["old"]'],
    },
    {
      name: "unmanaged collection: nothing deleted",
      d: undefined,
      l: [lContext("old")],
      want: [],
    },
    {
      name: "exact name match (not substring)",
      d: [dContext("deploy")],
      l: [lContext("deploy-prod")],
      want: ['create context["deploy"]', 'delete context["deploy-prod"]'],
    },
  ])("$name", ({ d, l, want }) => {
    expect(brief(plan(d, l))).toEqual(want);
  });

  it("create calls POST /contexts with an enveloped body", () => {
    const c = plan([dContext("deploy")], []).changes[0];
    expect(c?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/contexts",
        body: "envelope",
        phase: "create",
      }),
    ]);
    expect(c?.params).toEqual({ org_id: ORG_ID });
  });

  it("a delete says how many secrets it destroys", () => {
    const p = plan([], [lContext("old", { env: { A: "aaaa", B: "bbbb", C: "cccc" } })]);
    const c = p.changes[0];
    expect(c?.action).toBe("delete");
    expect(c?.action === "delete" && c.destroys_secrets).toBe(3);
    expect(c?.reason).toContain("destroys 3 secrets");
    expect(c?.calls[0]).toMatchObject({ method: "DELETE", route: "/contexts/{id}" });
    expect(c?.params.id).toBe("ctx:old");
  });

  it("ignore excludes the address and its children", () => {
    const p = plan(
      [dContext("keep", { env: {} })],
      [lContext("keep", { env: { X: "1234" } }), lContext("legacy-1"), lContext("legacy-2")],
      {},
      { ignore: ['context["legacy-*"]', 'context["keep"].env["X"]'] },
    );
    expect(brief(p)).toEqual([]);
  });

  it("two live contexts with one name: the one holding the secrets is kept; `id:` pins one", () => {
    const l = [lContext("dup", { id: "c1" }), lContext("dup", { id: "c2", env: { K: "abcd" } })];
    const p0 = plan([dContext("dup")], l);
    expect(p0.changes.map((c) => [c.action, c.address, c.params.id])).toEqual([
      ["delete", 'context["dup#c1"]', "c1"],
    ]);
    expect(p0.changes[0]?.reason).toMatch(
      /^surplus: 2 live items share this key; keeping c2 .*; destroys 0 secrets/,
    );
    const p = plan([dContext("dup", { id: "c2" })], l);
    expect(p.changes.map((c) => [c.action, c.address, c.params.id])).toEqual([
      ["delete", 'context["dup#c1"]', "c1"],
    ]);
    const p1 = plan([dContext("dup", { id: "c1" })], l);
    expect(p1.changes.map((c) => [c.action, c.address, c.params.id])).toEqual([
      ["delete", 'context["dup#c2"]', "c2"],
    ]);
  });

  it("a pin that matches nothing is an error", () => {
    expect(() => plan([dContext("x", { id: "nope" })], [lContext("x")])).toThrow(/nope/);
  });
});

describe("context env var", () => {
  const one = (value: string | Secret, liveValue: string | undefined, options: PlanOptions = {}) =>
    plan(
      [dContext("c", { env: { K: value } })],
      liveValue === undefined ? [lContext("c")] : [lContext("c", { env: { K: liveValue } })],
      options,
    );

  it("create is the set call, with the parent id", () => {
    const p = one("secret-value", undefined);
    expect(brief(p)).toEqual(['create context["c"].env["K"]']);
    expect(p.changes[0]?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/contexts/{context_id}/env-vars/set",
        body_fields: ["name", "value"],
        sensitive_fields: ["value"],
      }),
    ]);
    expect(p.changes[0]?.params).toMatchObject({ context_id: "ctx:c", name: "K" });
  });

  it("changed last four → update with the same set call", () => {
    const p = one("new-value-9999", "old-value-1111");
    expect(brief(p)).toEqual(['update context["c"].env["K"]']);
    const c = p.changes[0];
    expect(c?.fields).toEqual([
      { path: "value", before: "(sensitive)", after: "(sensitive)", sensitive: true },
    ]);
    expect(c?.calls[0]).toMatchObject({
      route: "/contexts/{context_id}/env-vars/set",
      phase: "update",
    });
    expect(p.unverified_secrets).toBe(0);
  });

  it("same last four → unverified, no change", () => {
    const p = one("value-1234", "other-1234");
    expect(brief(p)).toEqual([]);
    expect(p.unverified_secrets).toBe(1);
    expect(p.unverified).toEqual(['context["c"].env["K"]#value']);
  });

  it("--force-secrets re-sets an unverified secret", () => {
    const p = one("value-1234", "other-1234", { forceSecrets: ['context["c"].*'] });
    expect(brief(p)).toEqual(['update context["c"].env["K"]']);
    expect(p.unverified_secrets).toBe(0);
    expect(brief(one("value-1234", "other-1234", { forceSecrets: ["*"] }))).toHaveLength(1);
    expect(brief(one("value-1234", "other-1234", { forceSecrets: [] }))).toHaveLength(0);
    expect(
      brief(one("value-1234", "other-1234", { forceSecrets: ['context["d"].*'] })),
    ).toHaveLength(0);
  });

  it("--skip-secrets: no value update for an existing var; a create is marked", () => {
    const skipped = one(Secret.unresolved("env:X"), "other-1234", { skipSecrets: true });
    expect(brief(skipped)).toEqual([]);
    expect(skipped.skipped_secrets).toBe(1);
    expect(skipped.saveable).toBe(false);
    const created = one(Secret.unresolved("env:X"), undefined, { skipSecrets: true });
    expect(brief(created)).toEqual(['create context["c"].env["K"]']);
    expect(created.changes[0]?.unresolved_secrets).toEqual(["value"]);
    expect(created.saveable).toBe(false);
  });

  it("an unresolved secret without --skip-secrets is an error", () => {
    expect(() => one(Secret.unresolved("env:X"), undefined)).toThrow(PlanError);
  });

  it("delete uses filter[name]", () => {
    const p = plan([dContext("c", { env: {} })], [lContext("c", { env: { OLD: "abcd" } })]);
    expect(brief(p)).toEqual(['delete context["c"].env["OLD"]']);
    expect(p.changes[0]?.calls[0]).toMatchObject({
      method: "DELETE",
      route: "/contexts/{context_id}/env-vars",
      query: { "filter[name]": "{name}" },
    });
  });

  it("env of a new context depends on the context (pending id)", () => {
    const p = plan([dContext("new", { env: { A: "x" } })], []);
    expect(brief(p)).toEqual(['create context["new"]', 'create context["new"].env["A"]']);
    expect(p.changes[1]?.params.context_id).toEqual({ pending: 'context["new"]' });
    expect(p.changes[1]?.depends_on).toEqual(['context["new"]']);
  });

  it("a var without truncated_value is unverified, not re-set", () => {
    const p = planChanges(
      desired(dOrg({ contexts: [dContext("c", { env: { K: "abcdef" } })] })),
      live(lOrg({ contexts: [{ id: "c1", name: "c", env: [{ name: "K" }], restrictions: [] }] })),
    );
    expect(p.changes).toEqual([]);
    expect(p.unverified_secrets).toBe(1);
  });
});

describe("context restriction", () => {
  const withR = (d: ReturnType<typeof rExpr>[], l: ReturnType<typeof lRestriction>[]) =>
    plan([dContext("c", { restrictions: d })], [lContext("c", { restrictions: l })]);

  it.each([
    {
      name: "no-op project",
      d: [rProject(PROJECT)],
      l: [lRestriction("project", PROJECT)],
      want: [],
    },
    {
      name: "no-op all-members",
      d: [rGroup("all-members")],
      l: [lRestriction("group", "all-members")],
      want: [],
    },
    {
      name: "create",
      d: [rExpr('pipeline.git.branch == "main"')],
      l: [],
      want: ['create context["c"].restriction["expression:pipeline.git.branch == \\"main\\""]'],
    },
    {
      name: "delete",
      d: [],
      l: [lRestriction("group", "g1")],
      want: ['delete context["c"].restriction["group:g1"]'],
    },
    {
      name: "changed value: create the new one, delete the old one",
      d: [rExpr("a == 1")],
      l: [lRestriction("expression", "a == 2")],
      want: [
        'create context["c"].restriction["expression:a == 1"]',
        'delete context["c"].restriction["expression:a == 2"]',
      ],
    },
  ])("$name", ({ d, l, want }) => {
    expect(brief(withR(d, l))).toEqual(want);
  });

  it("identity is what the service stores: a project by slug or by id is the same restriction", () => {
    expect(withR([rProject(PROJECT_ID)], [lRestriction("project", PROJECT)]).changes).toEqual([]);
    // The live reader could not name the project (key_value is the id): still the same one.
    expect(
      withR([rProject(PROJECT)], [lRestriction("project", PROJECT_ID, { pattern: PROJECT_ID })])
        .changes,
    ).toEqual([]);
    expect(withR([rGroup(ORG_ID)], [lRestriction("group", "all-members")]).changes).toEqual([]);
    const uuid = "0f6b3c1e-1111-4222-8333-944445555666";
    expect(withR([rProject(uuid)], []).changes[0]?.after?.match_pattern).toBe(uuid);
  });

  it("create resolves the match_pattern: project id, org id for all-members", () => {
    const p = withR([rProject(PROJECT), rGroup("all-members")], []);
    expect(
      Object.fromEntries(p.changes.map((c) => [c.after?.value, c.after?.match_pattern])),
    ).toEqual({ [PROJECT]: PROJECT_ID, "all-members": ORG_ID });
    expect(p.changes[0]?.calls[0]).toMatchObject({
      method: "POST",
      route: "/context-restrictions",
    });
  });

  it("a restriction on an unknown project is an error (absent or not visible)", () => {
    expect(() => withR([rProject("gh/acme/ghost")], [])).toThrow(/absent or not visible/);
  });

  it("delete needs filter[context_id]", () => {
    const c = withR([], [lRestriction("expression", "x", { id: "r9" })]).changes[0];
    expect(c?.calls[0]).toMatchObject({
      route: "/context-restrictions/{id}",
      query: { "filter[context_id]": "{context_id}" },
    });
    expect(c?.params).toMatchObject({ id: "r9", context_id: "ctx:c" });
  });

  it("ignore", () => {
    const p = planChanges(
      desired(
        dOrg({
          contexts: [dContext("c", { restrictions: [] })],
          ignore: ['context["c"].restriction["group:*"]'],
        }),
      ),
      live(lOrg({ contexts: [lContext("c", { restrictions: [lRestriction("group", "g1")] })] })),
    );
    expect(p.changes).toEqual([]);
  });

  it("restrictions not declared are unmanaged", () => {
    const p = plan(
      [dContext("c")],
      [lContext("c", { restrictions: [lRestriction("group", "g")] })],
    );
    expect(p.changes).toEqual([]);
  });
});
