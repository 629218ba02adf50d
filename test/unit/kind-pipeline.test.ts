import { describe, expect, it } from "vitest";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  live,
  lOrg,
  lPipeline,
  lProject,
  lSchedule,
  OTHER_REPO,
  PROJECT,
} from "../helpers/builders.js";

type DP = ReturnType<typeof dPipeline>;
type DPOpts = Parameters<typeof dPipeline>[1];
type LP = ReturnType<typeof lPipeline>;
type LT = ReturnType<typeof lSchedule>;

const plan = (d: DP[] | undefined, l: LP[], triggers: LT[] = []) =>
  planChanges(
    desired(dOrg({ projects: [dProject(PROJECT, d ? { pipelines: d } : {})] })),
    live(lOrg({ projects: [lProject(PROJECT, { pipelines: l, triggers })] })),
  );
const brief = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.address}`);
const P = 'project["gh/acme/api"].pipeline["build"]';

describe("pipeline", () => {
  it.each([
    { name: "no-op", d: [dPipeline("build")], l: [lPipeline("build")], want: [] },
    { name: "create", d: [dPipeline("build")], l: [], want: [`create ${P}`] },
    { name: "delete", d: [], l: [lPipeline("build")], want: [`delete ${P}`] },
    { name: "unmanaged", d: undefined, l: [lPipeline("build")], want: [] },
    {
      name: "an omitted description is not managed",
      d: [dPipeline("build")],
      l: [lPipeline("build", { description: "kept" })],
      want: [],
    },
  ])("$name", ({ d, l, want }) => {
    expect(brief(plan(d, l))).toEqual(want);
  });

  it.each([
    { path: "description", d: { description: "new" } },
    {
      path: "config.file_path",
      d: {
        config: { type: "vcs" as const, file_path: "other.yml", vcs: lPipeline("x").config.vcs },
      },
    },
    {
      path: "config.file_type",
      d: {
        config: {
          type: "vcs" as const,
          file_path: ".service/config.yml",
          file_type: "yaml",
          vcs: lPipeline("x").config.vcs,
        },
      },
    },
  ])("update of $path", ({ path, d }) => {
    const p = plan([dPipeline("build", d as DPOpts)], [lPipeline("build")]);
    expect(brief(p)).toEqual([`update ${P}`]);
    expect(p.changes[0]?.calls).toEqual([
      expect.objectContaining({ route: "/pipelines/{id}/update", body_fields: [path] }),
    ]);
  });

  it("rename through a pinned id is an update of name", () => {
    const p = plan([dPipeline("build", { id: "pl:old" })], [lPipeline("old")]);
    expect(p.changes[0]?.fields).toEqual([{ path: "name", before: "old", after: "build" }]);
  });

  it.each([
    {
      cause: "config.vcs",
      d: { config: { type: "vcs" as const, file_path: ".service/config.yml", vcs: OTHER_REPO } },
    },
    {
      cause: "config.type",
      d: {
        config: {
          type: "hosted" as const,
          file_path: ".service/config.yml",
          hosted: { provider: "x" },
        },
      },
    },
    { cause: "checkout.vcs", d: { checkout: { vcs: OTHER_REPO } } },
  ])("a change of $cause forces replacement, delete before create", ({ cause, d }) => {
    const p = plan([dPipeline("build", d as DPOpts)], [lPipeline("build")]);
    expect(brief(p)).toEqual([`replace ${P}`]);
    const c = p.changes[0];
    expect(c?.reason).toContain(cause);
    expect(c?.fields.find((f) => f.path === cause)?.forces_replacement).toBe(true);
    expect(c?.action === "replace" && c.replace_order).toBe("delete_before_create");
    expect(c?.calls.map((x) => x.phase)).toEqual(["delete", "create"]);
  });

  it("replacing a pipeline replaces its triggers (forced), in a safe order", () => {
    const p = plan(
      [
        dPipeline("build", {
          config: { type: "vcs", file_path: ".service/config.yml", vcs: OTHER_REPO },
          triggers: [dTrigger("nightly"), dTrigger("weekly")],
        }),
      ],
      [lPipeline("build")],
      [lSchedule("nightly", "pl:build"), lSchedule("old", "pl:build")],
    );
    expect(brief(p)).toEqual([
      `replace ${P}`,
      `replace ${P}.trigger["nightly"]`,
      `delete ${P}.trigger["old"]`,
      `create ${P}.trigger["weekly"]`,
    ]);
    expect(p.changes[1]?.reason).toContain("forced by the pipeline's replacement");
    expect(p.changes[1]?.params.pipeline_id).toEqual({ pending: P });
    expect(p.changes[3]?.params.pipeline_id).toEqual({ pending: P });
    const ops = orderOperations(p).operations.map((o) => `${o.phase} ${o.address}`);
    const at = (s: string) => ops.indexOf(s);
    expect(at(`delete ${P}.trigger["nightly"]`)).toBeLessThan(at(`delete ${P}`));
    expect(at(`delete ${P}.trigger["old"]`)).toBeLessThan(at(`delete ${P}`));
    expect(at(`delete ${P}`)).toBeLessThan(at(`create ${P}`));
    expect(at(`create ${P}`)).toBeLessThan(at(`create ${P}.trigger["nightly"]`));
    expect(at(`create ${P}`)).toBeLessThan(at(`create ${P}.trigger["weekly"]`));
  });

  it("replacing a pipeline whose triggers are unmanaged deletes them, with a warning", () => {
    const p = plan(
      [dPipeline("build", { checkout: { vcs: OTHER_REPO } })],
      [lPipeline("build")],
      [lSchedule("nightly", "pl:build")],
    );
    expect(brief(p)).toEqual([`replace ${P}`, `delete ${P}.trigger["nightly"]`]);
    expect(p.warnings.join("\n")).toContain("not re-created");
  });

  it("deleting a pipeline deletes its triggers first", () => {
    const p = plan([], [lPipeline("build")], [lSchedule("nightly", "pl:build")]);
    expect(brief(p)).toEqual([`delete ${P}`, `delete ${P}.trigger["nightly"]`]);
    const ops = orderOperations(p).operations.map((o) => o.address);
    expect(ops).toEqual([`${P}.trigger["nightly"]`, P]);
  });

  it("the synthetic OAuth pipeline is never touched", () => {
    const synth = lPipeline("oauth", { id: "syn", synthetic: true });
    expect(brief(plan([], [synth], [lSchedule("x", "syn", { synthetic: true })]))).toEqual([]);
    expect(() => plan([dPipeline("oauth")], [synth])).toThrow(/synthetic/);
  });

  it("two live pipelines named alike: the one holding triggers is kept, the other removed; id pins", () => {
    const l = [lPipeline("build", { id: "p1" }), lPipeline("build", { id: "p2" })];
    const p = plan([dPipeline("build")], l, [lSchedule("x", "p2")]);
    expect(p.changes.map((c) => `${c.action} ${c.params.id}`)).toEqual(["delete p1"]);
    expect(p.changes[0]?.reason).toMatch(/^surplus: 2 live items share this key; keeping p2/);
    expect(plan([dPipeline("build", { id: "p2" })], l).changes.map((c) => c.params.id)).toEqual([
      "p1",
    ]);
    // The surplus pipeline's own triggers go before it (children before parents).
    const t = plan([dPipeline("build")], l, [
      lSchedule("x", "p2"),
      lSchedule("y", "p2"),
      lSchedule("z", "p1"),
    ]);
    expect(t.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'delete project["gh/acme/api"].pipeline["build#p1"]',
      'delete project["gh/acme/api"].pipeline["build#p1"].trigger["z"]',
    ]);
  });

  it("ignore excludes a pipeline and its triggers", () => {
    const p = planChanges(
      desired(dOrg({ ignore: [P], projects: [dProject(PROJECT, { pipelines: [] })] })),
      live(
        lOrg({
          projects: [
            lProject(PROJECT, {
              pipelines: [lPipeline("build")],
              triggers: [lSchedule("n", "pl:build")],
            }),
          ],
        }),
      ),
    );
    expect(p.changes).toEqual([]);
  });

  it("triggers of a new pipeline wait for it", () => {
    const p = plan([dPipeline("build", { triggers: [dTrigger("nightly")] })], []);
    expect(brief(p)).toEqual([`create ${P}`, `create ${P}.trigger["nightly"]`]);
    expect(p.changes[1]?.depends_on).toEqual([P]);
  });
});

describe("pipeline duplicates", () => {
  it("triggers of a deleted duplicate pipeline sit under its #id address and go first", () => {
    const p = plan(
      [dPipeline("build", { id: "p1" })],
      [lPipeline("build", { id: "p1" }), lPipeline("build", { id: "p2" })],
      [lSchedule("n", "p2")],
    );
    expect(brief(p)).toEqual([
      `delete ${P.replace('"build"', '"build#p2"')}`,
      `delete ${P.replace('"build"', '"build#p2"')}.trigger["n"]`,
    ]);
    expect(orderOperations(p).operations.map((o) => o.address)).toEqual([
      `${P.replace('"build"', '"build#p2"')}.trigger["n"]`,
      P.replace('"build"', '"build#p2"'),
    ]);
  });
});
