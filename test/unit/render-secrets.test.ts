import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DesiredConfig } from "../../src/model/desired.js";
import { isSecret, type Secret } from "../../src/model/secret.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import { renderJson } from "../../src/render/json.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import { desiredConfigArb } from "../helpers/arbitraries.js";
import { liveFromDesired } from "../helpers/live-from-desired.js";
import { mixedPlan, SECRET_VALUES } from "../helpers/plan-fixtures.js";

describe("no secret value in any output format", () => {
  it.each<[string, PlanOptions]>([
    ["default", {}],
    ["--force-secrets *", { forceSecrets: ["*"] }],
    ["--target", { targets: ['project["gh/acme/api"].*'] }],
  ])("%s", (_, options) => {
    const plan = mixedPlan(options);
    const outputs = {
      text: renderText(plan, { color: false }),
      color: renderText(plan, { color: true }),
      json: renderJson(plan),
      markdown: renderMarkdown(plan),
      inspect: JSON.stringify(plan),
    };
    // The fixture does use every secret: the plan has sensitive fields.
    expect(outputs.json).toContain("(sensitive)");
    for (const [format, out] of Object.entries(outputs)) {
      for (const value of SECRET_VALUES) {
        expect(out, `${format} leaks ${value.slice(0, 8)}…`).not.toContain(value);
        // Nor a distinctive part of it (its middle or its last four characters).
        expect(out, `${format} leaks part of a secret`).not.toContain(value.slice(-9, -5));
        expect(out, `${format} leaks the last four`).not.toContain(value.slice(-4));
      }
    }
  });
});

/** Every secret value in a desired config. */
const secretValues = (d: DesiredConfig, urls = true): string[] => {
  const out: Secret[] = [];
  for (const org of d.orgs) {
    for (const c of org.contexts?.values() ?? [])
      for (const e of c.env?.values() ?? []) out.push(e.value);
    for (const p of org.projects.values()) {
      for (const e of p.env?.values() ?? []) out.push(e.value);
      for (const w of p.webhooks?.values() ?? []) {
        if (urls && isSecret(w.url)) out.push(w.url);
        if (w.signing_secret) out.push(w.signing_secret);
      }
      for (const pl of p.pipelines?.values() ?? []) {
        for (const t of pl.triggers?.values() ?? []) {
          if (t.event.webhook?.secret) out.push(t.event.webhook.secret);
        }
      }
    }
  }
  return out.map((s) => s.reveal());
};

describe("no secret value in any output format (property)", () => {
  it("for random configs against random live states, forced or not", () => {
    fc.assert(
      fc.property(desiredConfigArb, desiredConfigArb, fc.boolean(), (d, other, force) => {
        let plan: ReturnType<typeof planChanges>;
        try {
          plan = planChanges(d, liveFromDesired(other), force ? { forceSecrets: ["*"] } : {});
        } catch (e) {
          // A refused plan's message must not leak either.
          const message = String(e);
          for (const v of secretValues(d)) expect(message).not.toContain(v);
          return;
        }
        const outputs = [
          renderText(plan, { color: false }),
          renderJson(plan),
          renderMarkdown(plan),
        ].join("\n");
        // A url is a secret only where the config says so: a live webhook the config does not
        // declare shows its url (the service returns it in full).
        for (const v of [...secretValues(d), ...secretValues(other, false)]) {
          expect(outputs).not.toContain(v);
        }
      }),
      { numRuns: 150 },
    );
  });
});
