import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import schema from "../../schemas/plan.schema.json" with { type: "json" };
import { Secret } from "../../src/core/secret.js";
import { planChanges } from "../../src/plan/plan.js";
import { renderJson } from "../../src/render/json.js";
import { dContext, desired, dOrg, lContext, live, lOrg } from "../helpers/builders.js";
import { mixedPlan } from "../helpers/plan-fixtures.js";

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(schema);

const check = (text: string) => {
  const ok = validate(JSON.parse(text));
  return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

describe("renderJson", () => {
  it.each([
    ["a plan with every action", () => mixedPlan()],
    ["a forced-secrets plan", () => mixedPlan({ forceSecrets: ["*"] })],
    ["a targeted plan", () => mixedPlan({ targets: ['context["deploy"]'] })],
    [
      "a partial plan (--changed-since)",
      () =>
        mixedPlan({
          scope: {
            since: "origin/main",
            addresses: [{ org: "gh/acme", address: 'context["deploy"]' }],
            total: 12,
          },
        }),
    ],
    ["an empty plan", () => planChanges(desired(dOrg()), live(lOrg()))],
    [
      "a --skip-secrets plan with an unresolved create",
      () =>
        planChanges(
          desired(dOrg({ contexts: [dContext("c", { env: { K: Secret.unresolved("env:K") } })] })),
          live(lOrg({ contexts: [lContext("c")] })),
          { skipSecrets: true },
        ),
    ],
    [
      "a plan with ignored fields that differ",
      () => ({
        ...mixedPlan(),
        ignored_fields: [{ address: 'project["gh/acme/api"].settings', path: "is_oss" }],
      }),
    ],
  ])("%s validates against schemas/plan.schema.json", (_, make) => {
    expect(check(renderJson(make()))).toEqual([]);
  });

  it("round-trips the plan exactly", () => {
    const plan = mixedPlan();
    expect(JSON.parse(renderJson(plan))).toEqual(plan);
  });

  it("the schema rejects what a plan must never be", () => {
    const plan = JSON.parse(renderJson(mixedPlan()));
    const bad = structuredClone(plan);
    bad.changes[0].action = "rename";
    expect(validate(bad)).toBe(false);
    const noSummary = structuredClone(plan);
    delete noSummary.summary;
    expect(validate(noSummary)).toBe(false);
    const replaceWithoutOrder = structuredClone(plan);
    const r = replaceWithoutOrder.changes.find((c: { action: string }) => c.action === "replace");
    delete r.replace_order;
    expect(validate(replaceWithoutOrder)).toBe(false);
  });
});
