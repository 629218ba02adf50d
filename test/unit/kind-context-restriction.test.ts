/**
 * Context restrictions (src/kinds/context-restriction.ts; spec: api-v3.md "Context
 * restriction", Context restrictions): create and delete only; identity is type + what the
 * service stores (a project id, the org id for `all-members`), so a changed restriction is a
 * create plus a delete; a group named in the config is resolved to its id, at apply when this
 * plan creates the group. No secrets.
 */
import { describe, expect, it } from "vitest";
import { contextRestrictionKind } from "../../src/kinds/context-restriction.js";
import type { KindRefs } from "../../src/kinds/contract.js";
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

describe("context restriction: pure members", () => {
  const k = contextRestrictionKind;
  const refs: KindRefs = {
    orgId: ORG_ID,
    projectId: (slug) => (slug === PROJECT ? PROJECT_ID : undefined),
    refId: (_to, name) =>
      name === "platform"
        ? "g-platform"
        : name === "new-team"
          ? { pending: 'group["new-team"]' }
          : undefined,
  };
  const env = { ...refs, forceSecrets: false };

  it("the desired key is the config's words without refs, the stored pattern with them", () => {
    expect(k.desiredKey(rProject(PROJECT))).toBe(`project:${PROJECT}`);
    expect(k.desiredKey(rProject(PROJECT), refs)).toBe(`project:${PROJECT_ID}`);
    expect(k.desiredKey(rGroup("all-members"), refs)).toBe(`group:${ORG_ID}`);
    expect(k.desiredKey(rGroup("platform"), refs)).toBe("group:g-platform");
    expect(k.desiredKey(rExpr("a == 1"), refs)).toBe("expression:a == 1");
    // An unknown project keeps its slug, marked: it matches no live restriction.
    expect(k.desiredKey(rProject("gh/acme/ghost"), refs)).toBe("project:?gh/acme/ghost");
  });

  it("a live restriction matches by its pattern and is addressed by its readable value", () => {
    const l = lRestriction("project", PROJECT, { id: "r1" });
    expect(k.liveKey(l)).toBe(`project:${PROJECT_ID}`);
    expect(k.liveAddressKey(l)).toBe(`project:${PROJECT}`);
    expect(k.liveId(l)).toBe("r1");
  });

  it("nothing compares or updates in place: a restriction is created or deleted", () => {
    expect(k.compare(rExpr("a"), lRestriction("expression", "a"), env)).toMatchObject({
      fields: [],
      replace_reasons: [],
    });
    expect(k.updateCalls([])).toEqual([]);
    expect(k.unresolvedSecrets(rExpr("a"))).toEqual([]);
  });

  it("the create sends the pattern; a group by name takes its id from a param", () => {
    expect(k.createCalls(rProject(PROJECT))).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/context-restrictions",
        body: "envelope",
        body_fields: ["restriction_type", "match_pattern", "references.context"],
        sensitive_fields: [],
      }),
    ]);
    const [byName] = k.createCalls(rGroup("new-team"));
    expect(byName?.body_fields).toEqual(["restriction_type", "references.context"]);
    expect(byName?.param_fields).toEqual({ match_pattern: "group_id" });
    expect(k.refParams?.(rGroup("new-team"), refs)).toEqual({
      group_id: { pending: 'group["new-team"]' },
    });
    expect(k.refParams?.(rGroup("platform"), refs)).toEqual({ group_id: "g-platform" });
    expect(k.refParams?.(rGroup("all-members"), refs)).toEqual({});
    expect(k.refParams?.(rProject(PROJECT), refs)).toEqual({});
  });

  it("the desired view says the pattern to send, null when it is not known yet", () => {
    expect(k.desiredView(rGroup("all-members"), env)).toEqual({
      restriction_type: "group",
      match_pattern: ORG_ID,
      value: "all-members",
    });
    expect(k.desiredView(rGroup("new-team"), env).match_pattern).toBeNull();
  });

  it("export writes {type: value} sorted by type then value, and ignores what it cannot say", () => {
    const out = k.toConfig(
      [
        lRestriction("group", "all-members"),
        lRestriction("expression", "b == 2"),
        lRestriction("expression", "a == 1"),
        lRestriction("project", PROJECT),
        lRestriction("project", "not a slug"),
        lRestriction("expression", "dup", { id: "x1" }),
        lRestriction("expression", "dup", { id: "x2" }),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a live value holding `${`, written escaped
        lRestriction("expression", "${literal}"),
      ],
      { parent: "deploy" },
      { env: () => expect.unreachable() as never },
    );
    expect(
      out.map((e) => ("written" in e ? e.doc : `ignored ${e.ignored.glob}: ${e.ignored.reason}`)),
    ).toEqual([
      { project: PROJECT },
      'ignored context["deploy"].restriction["project:not a slug"]: the project is neither a slug nor an id',
      { expression: "$${literal}" },
      { expression: "a == 1" },
      { expression: "b == 2" },
      'ignored context["deploy"].restriction["expression:dup"]: 2 live restrictions share this key (ids x1, x2)',
      { group: "all-members" },
    ]);
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/identified by its type and value/);
  });
});
