import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/plan/plan.js";
import {
  dContext,
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  dWebhook,
  lContext,
  live,
  lOrg,
  lPipeline,
  lProject,
  lSchedule,
  OTHER_REPO,
  PROJECT,
} from "../helpers/builders.js";

const d = desired(
  dOrg({
    contexts: [dContext("new", { env: { A: "a", B: "b" } }), dContext("kept", { env: { C: "c" } })],
    projects: [
      dProject(PROJECT, {
        webhooks: [dWebhook("slack")],
        pipelines: [
          dPipeline("build", {
            config: { type: "vcs", file_path: ".service/config.yml", vcs: OTHER_REPO },
            triggers: [dTrigger("nightly")],
          }),
        ],
      }),
    ],
  }),
);
const l = live(
  lOrg({
    contexts: [lContext("kept"), lContext("old")],
    projects: [
      lProject(PROJECT, {
        webhooks: [],
        pipelines: [lPipeline("build")],
        triggers: [lSchedule("nightly", "pl:build")],
      }),
    ],
  }),
);
const addresses = (targets: string[]) =>
  planChanges(d, l, { targets }).changes.map((c) => c.address);

describe("--target", () => {
  it("selects an address and everything inside it", () => {
    expect(addresses(['context["new"]'])).toEqual([
      'context["new"]',
      'context["new"].env["A"]',
      'context["new"].env["B"]',
    ]);
  });

  it("adds what a selected change depends on (a new context for its env var)", () => {
    expect(addresses(['context["new"].env["B"]'])).toEqual([
      'context["new"]',
      'context["new"].env["B"]',
    ]);
  });

  it("a trigger replaced with its pipeline brings the pipeline replacement", () => {
    expect(addresses(['project["gh/acme/api"].pipeline["build"].trigger["nightly"]'])).toEqual([
      'project["gh/acme/api"].pipeline["build"]',
      'project["gh/acme/api"].pipeline["build"].trigger["nightly"]',
    ]);
  });

  it("globs, and several targets", () => {
    expect(addresses(['context["*"].env["C"]', 'project["gh/acme/api"].webhook["*"]'])).toEqual([
      'context["kept"].env["C"]',
      'project["gh/acme/api"].webhook["slack"]',
    ]);
    expect(addresses(['context["old"]'])).toEqual(['context["old"]']);
  });

  it("warns when a target selects nothing, and when changes are left out", () => {
    const p = planChanges(d, l, { targets: ['context["nope"]'] });
    expect(p.changes).toEqual([]);
    expect(p.warnings.join("\n")).toContain("selects none");
    expect(planChanges(d, l, { targets: ['context["old"]'] }).warnings.join("\n")).toMatch(
      /other change\(s\) are left/,
    );
  });

  it("an empty target list plans everything, like no --target at all", () => {
    const all = planChanges(d, l, {});
    const empty = planChanges(d, l, { targets: [] });
    expect(empty.changes.length).toBeGreaterThan(0);
    expect(empty).toEqual(all);
  });

  it("the summary and guards count only the selected changes", () => {
    const p = planChanges(d, l, { targets: ['context["new"]'] });
    expect(p.summary).toEqual({ create: 3, update: 0, replace: 0, delete: 0 });
    expect(p.guards.mass_delete).toEqual([]);
    expect(p.targets).toEqual(['context["new"]']);
  });
});
