/**
 * Issue 19 `keep_unlisted`: under its globs, live items the config does not list are left
 * alone (not deleted) and named in the plan's `kept_unlisted` (drift reports them); declared
 * items are managed as usual. And the plan's secret-destroying deletes come first, in the
 * summary line and the Markdown header.
 */
import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/plan/plan.js";
import { secretDeletes, summaryLine } from "../../src/render/common.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import { dContext, desired, dOrg, lContext, live, lOrg } from "../helpers/builders.js";

const liveOrg = () =>
  lOrg({
    contexts: [
      lContext("deploy", { env: { A: "aaaa-value", OLD: "old-value-1" } }),
      lContext("legacy", { env: { X: "x-value-123" } }),
      lContext("other", {}),
    ],
  });

describe("keep_unlisted", () => {
  it("without it, an authoritative `contexts:` deletes the contexts it does not list", () => {
    const plan = planChanges(
      desired(dOrg({ contexts: [dContext("deploy", { env: { A: "aaaa-value" } })] })),
      live(liveOrg()),
    );
    expect(plan.changes.filter((c) => c.action === "delete").map((c) => c.address)).toEqual([
      'context["deploy"].env["OLD"]',
      'context["legacy"]',
      'context["other"]',
    ]);
    expect(plan.kept_unlisted).toBeUndefined();
  });

  it('context["*"] keeps everything unlisted under any context; what is declared is managed', () => {
    const plan = planChanges(
      desired({
        ...dOrg({ contexts: [dContext("deploy", { env: { A: "changed-WXYZ" } })] }),
        keep_unlisted: ['context["*"]'],
      }),
      live(liveOrg()),
    );
    // "Under" these globs, as `ignore`: the unlisted env var inside a declared context is
    // kept too; the declared variable is updated as usual.
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update context["deploy"].env["A"]',
    ]);
    expect(plan.kept_unlisted).toEqual([
      { address: 'context["deploy"].env["OLD"]', resource_type: "context_env_var" },
      { address: 'context["legacy"]', resource_type: "context" },
      { address: 'context["other"]', resource_type: "context" },
    ]);
  });

  it("a glob inside one context keeps its unlisted env vars only", () => {
    const plan = planChanges(
      desired({
        ...dOrg({
          contexts: [
            dContext("deploy", { env: { A: "aaaa-value", NEW: "new-value-1" } }),
            dContext("legacy", { env: {} }),
          ],
        }),
        keep_unlisted: ['context["deploy"].env["*"]'],
      }),
      live(liveOrg()),
    );
    expect(plan.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      'create context["deploy"].env["NEW"]',
      'delete context["legacy"].env["X"]',
      'delete context["other"]',
    ]);
    expect(plan.kept_unlisted).toEqual([
      { address: 'context["deploy"].env["OLD"]', resource_type: "context_env_var" },
    ]);
  });
});

describe("secret-destroying deletes first", () => {
  const plan = planChanges(
    desired(dOrg({ contexts: [dContext("deploy", { env: { A: "aaaa-value" } })] })),
    live(liveOrg()),
  );

  it("counts env var deletes and contexts with env vars, not an empty context", () => {
    expect(secretDeletes(plan).map((c) => c.address)).toEqual([
      'context["deploy"].env["OLD"]',
      'context["legacy"]',
    ]);
  });

  it("says so in the summary line, and names them first in the text and the Markdown header", () => {
    expect(summaryLine(plan)).toBe(
      "Plan: 0 to create, 0 to update, 0 to replace, 3 to delete (2 of the deletes destroy secrets).",
    );
    const text = renderText(plan, { color: false });
    expect(text.split("\n")[0]).toBe(
      'Destroys secrets that cannot be recovered: context["deploy"].env["OLD"], context["legacy"] (1 secret).',
    );
    const md = renderMarkdown(plan);
    expect(md.indexOf('context["legacy"] (1 secret)')).toBeLessThan(md.indexOf("<details>"));
  });
});
