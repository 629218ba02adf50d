import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import {
  dContext,
  desired,
  dOrg,
  lContext,
  live,
  lOrg,
  ORG_ID,
  PROJECT,
  PROJECT_ID,
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
