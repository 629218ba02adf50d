import { describe, expect, it } from "vitest";
import type { PlanOptions } from "../../src/plan/types.js";
import { renderJson } from "../../src/render/json.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
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
