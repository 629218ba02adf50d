/**
 * What apply keeps of its first plan under the lock (src/apply/held-plan.ts): the re-plan
 * made from the same live state gives the first plan back (its order, its own summary and
 * warnings); any difference `diffChanges` would report gives none, so apply plans again as
 * before; a plan with a repeated address is kept whole.
 */
import { describe, expect, it } from "vitest";
import { heldAgain, holdPlan, keepFirst, sameAsFirst } from "../../src/apply/held-plan.js";
import { diffChanges } from "../../src/apply/saved-plan.js";
import { planChanges } from "../../src/plan/plan.js";
import type { Change, Plan } from "../../src/plan/types.js";
import {
  dContext,
  desired,
  dOrg,
  dProject,
  dWebhook,
  lContext,
  live,
  lOrg,
  lProject,
  lWebhook,
} from "../helpers/builders.js";

const config = desired(
  dOrg({
    contexts: [
      dContext("deploy", { env: { REGION: "eu-west-1", TIER: "prod" } }),
      dContext("build", { env: { CI: "true" } }),
    ],
    projects: [
      dProject("p1", {
        env: { A: "1", B: "2" },
        webhooks: [dWebhook("hook", { url: "https://hooks.example.com/secret-path" })],
      }),
    ],
  }),
);
const liveState = (region = "us-east-1", hooks = [lWebhook("old")]) =>
  live(
    lOrg({
      contexts: [lContext("deploy", { env: { REGION: region } })],
      projects: [lProject("p1", { env: [], webhooks: hooks })],
    }),
  );

describe("apply's first plan, held under the lock", () => {
  const first = planChanges(config, liveState());

  it("is given back whole by a re-plan with the same changes, in its own order", () => {
    expect(first.changes.length).toBeGreaterThan(4);
    const again = planChanges(config, liveState());
    const reordered: Plan = { ...again, changes: [...again.changes].reverse(), warnings: [] };
    expect(diffChanges(first, reordered)).toEqual([]);
    const held = keepFirst(first);
    expect(held.held).toBeDefined();
    const back = sameAsFirst(held, reordered);
    expect(back).toEqual(first);
    // The re-plan's change objects (the first plan's are let go), the first plan's own rest.
    expect(back?.changes[0]).toBe(again.changes[0]);
    expect(back?.warnings).toBe(first.warnings);
  });

  it("gives nothing back when diffChanges sees a difference", () => {
    const held = holdPlan(first);
    if (held === undefined) throw new Error("the plan has no repeated address");
    const moved = planChanges(config, liveState("ap-south-1"));
    const gone = planChanges(config, liveState("us-east-1", []));
    const fewer: Plan = { ...first, changes: first.changes.slice(1) };
    const more: Plan = {
      ...first,
      changes: [...first.changes, { ...(first.changes[0] as Change), address: 'context["x"]' }],
    };
    const reworded: Plan = {
      ...first,
      changes: first.changes.map((c, i) => (i === 1 ? { ...c, reason: "another reason" } : c)),
    };
    for (const fresh of [moved, gone, fewer, more, reworded]) {
      expect(diffChanges(first, fresh)).not.toEqual([]);
      expect(heldAgain(held, fresh)).toBeUndefined();
    }
  });

  it("keeps a plan with a repeated address whole and compares it as diffChanges does", () => {
    const twice: Plan = { ...first, changes: [...first.changes, first.changes[0] as Change] };
    const kept = keepFirst(twice);
    expect(kept.held).toBeUndefined();
    expect(sameAsFirst(kept, twice)).toBe(twice);
    expect(sameAsFirst(kept, planChanges(config, liveState("ap-south-1")))).toBeUndefined();
  });
});
