/**
 * Issue 30 "Saved plans are shown as applied": what a plan file claims about its changes (the
 * summary, the targets) is checked against them, and no string of a plan reaches the reader
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
