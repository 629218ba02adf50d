/**
 * Issue 22: "The V2 hourly budget is counted; the plan says when a run would exceed it, and
 * the run paces rather than fails" (spec: api-v2-v1.md Limits: 5,000 requests per hour per
 * token). The pacing is tested in client-route-scheduler.test.ts; this is the plan's note.
 */
import { describe, expect, it } from "vitest";
import { V2_REQUESTS_PER_HOUR } from "../../src/core/wire.js";
import { call } from "../../src/kinds/calls.js";
import { finishPlan, v2BudgetWarning } from "../../src/plan/finish.js";
import type { Change } from "../../src/plan/types.js";

/** A delete of a checkout key (V2) or a webhook (V3): only the calls matter here. */
const deleteChange = (i: number, api: "v2" | "v3"): Change => ({
  action: "delete",
  address: `project["gh/acme/p${i}"].checkout_key["deploy-key"]`,
  resource_type: "webhook",
  org: "gh/acme",
  collection: `project["gh/acme/p${i}"].checkout_keys`,
  reason: "not in the config",
  before: {},
  after: null,
  fields: [],
  params: {},
  depends_on: [],
  calls: [call("delete", "DELETE", "/project/{project_slug}/checkout-key/{id}", { api })],
});

const changes = (n: number, api: "v2" | "v3"): Change[] =>
  Array.from({ length: n }, (_, i) => deleteChange(i, api));

describe("the plan's V2 budget note", () => {
  it("says nothing while the plan's V2 calls fit in an hour's budget", () => {
    expect(v2BudgetWarning(changes(V2_REQUESTS_PER_HOUR, "v2"))).toBeUndefined();
    // V3 calls do not count against it.
    expect(v2BudgetWarning(changes(V2_REQUESTS_PER_HOUR + 1, "v3"))).toBeUndefined();
  });

  it("says how many V2 calls, the budget, and the hours an apply takes at least", () => {
    expect(v2BudgetWarning(changes(V2_REQUESTS_PER_HOUR + 1, "v2"))).toMatch(
      /this plan makes 5,001 V2 API calls; the service allows 5,000 an hour per token .*apply paces them rather than fail, so it takes at least 1 hour \(/,
    );
    expect(v2BudgetWarning(changes(12_000, "v2"))).toContain("at least 2 hours");
  });

  it("is one of the plan's warnings", () => {
    const plan = finishPlan({
      configDigest: "0".repeat(64),
      orgs: [{ slug: "gh/acme", id: "o" }],
      changes: changes(V2_REQUESTS_PER_HOUR + 1, "v2"),
      unverified: [],
      skipped: 0,
      unresolvedCreates: 0,
      warnings: [],
      collections: [],
      targets: undefined,
      matchTarget: undefined,
      skipSecrets: false,
    });
    expect(plan.warnings.some((w) => w.includes("5,001 V2 API calls"))).toBe(true);
  });
});
