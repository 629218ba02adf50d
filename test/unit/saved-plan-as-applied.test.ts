/**
 * Issue 30 "Saved plans are shown as applied": what a plan file claims about its changes (the
 * summary, the targets, the excludes) is checked against them, and no string of a plan reaches the reader
 * with a terminal control character.
 */
import { describe, expect, it } from "vitest";
import { savedPlanDisagreements } from "../../src/apply/saved-plan.js";
import { asApplied } from "../../src/cli/show.js";
import type { Plan } from "../../src/plan/types.js";
import { renderJson, renderMarkdown, renderText, stripControls } from "../../src/render/index.js";
import { mixedPlan } from "../helpers/plan-fixtures.js";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("a saved plan's claims", () => {
  const plan = mixedPlan();

  it("a plan as made agrees with itself", () => {
    expect(plan.changes.length).toBeGreaterThan(2);
    expect(savedPlanDisagreements(plan)).toEqual([]);
  });

  it("a summary edited to 'No changes' disagrees; show counts the changes instead", () => {
    const edited: Plan = { ...plan, summary: { create: 0, update: 0, replace: 0, delete: 0 } };
    expect(savedPlanDisagreements(edited).join()).toContain("its summary says 0 create");
    expect(asApplied(edited).summary).toEqual(plan.summary);
    expect(renderText(asApplied(edited), { color: false })).not.toContain("No changes.");
  });

  it("targets that select fewer changes than the file lists disagree", () => {
    const first = plan.changes[0]?.address ?? "";
    const edited: Plan = { ...plan, targets: [first] };
    expect(savedPlanDisagreements(edited).join()).toMatch(/selects \d+ of its \d+ changes/);
  });

  it("excludes that leave out a change the file lists disagree; those that match none agree", () => {
    // Nothing matched: the file is what `plan --exclude` made.
    expect(savedPlanDisagreements({ ...plan, excludes: ['context["nowhere"]'] })).toEqual([]);
    // A change added back after its glob left it out.
    const one = savedPlanDisagreements({
      ...plan,
      excludes: ['project["gh/acme/api"].webhook["slack"]'],
    });
    expect(one).toEqual([
      `its --exclude project["gh/acme/api"].webhook["slack"] leaves out 1 of its ${plan.changes.length} changes`,
    ]);
    // A parent's glob leaves out its children, and a change that needs an excluded one
    // first (context["fresh"].env["X"] depends on context["fresh"]) is left out with it.
    const parent = savedPlanDisagreements({ ...plan, excludes: ['context["fresh"]'] });
    expect(parent.join()).toContain("leaves out 2 of its");
    // A targeted change that needs an excluded one (not its parent): the planner refuses
    // such a plan, so a file that holds one was edited.
    const slack = 'project["gh/acme/api"].webhook["slack"]';
    const fresh = plan.changes.find((c) => c.address === 'context["fresh"]');
    const hook = plan.changes.find((c) => c.address === slack);
    if (fresh === undefined || hook === undefined) throw new Error("fixture changed");
    const both = savedPlanDisagreements({
      ...plan,
      targets: ['context["fresh"]'],
      excludes: [slack],
      changes: [hook, { ...fresh, depends_on: [slack] }],
      summary: { create: 1, update: 1, replace: 0, delete: 0 },
    });
    expect(both.join()).toContain(`its --exclude ${slack} and --target disagree`);
  });
});

describe("control characters", () => {
  it("stripControls makes every C0 (but newline and tab), DEL, C1 and bidi control visible", () => {
    expect(stripControls("a\u001b[31mb\tc\nd\r\u007f\u009b\u202e")).toBe(
      "a\\u001b[31mb\tc\nd\\u000d\\u007f\\u009b\\u202e",
    );
    const clean = "plain text";
    expect(stripControls(clean)).toBe(clean);
  });

  it("no rendering of a plan holding them prints one", () => {
    const plan = mixedPlan();
    const c = plan.changes[0];
    if (c === undefined) throw new Error("no change");
    const evil: Plan = {
      ...plan,
      changes: [
        { ...c, reason: "ok\u001b]0;owned\u0007\u001b[2J", address: `${c.address}\u009b1m` },
        ...plan.changes.slice(1),
      ],
      warnings: ["\u001b[1Awarn"],
    };
    for (const out of [
      renderText(evil, { color: false }),
      renderMarkdown(evil),
      renderJson(evil),
    ]) {
      expect(out).not.toMatch(CONTROL);
    }
    // Colour is still ours to add.
    expect(renderText(evil, { color: true })).toContain("\u001b[1m");
  });
});
