import { describe, expect, it } from "vitest";
import { planChanges } from "../../src/plan/plan.js";
import { MARKDOWN_LIMIT, renderMarkdown } from "../../src/render/markdown.js";
import { dContext, desired, dOrg, live, lOrg } from "../helpers/builders.js";
import { mixedPlan } from "../helpers/plan-fixtures.js";

describe("renderMarkdown", () => {
  it("puts the summary line first (after the digest's hidden marker) and the details in <details>", () => {
    const plan = mixedPlan();
    const md = renderMarkdown(plan);
    const lines = md.split("\n");
    expect(lines[0]).toBe(`<!-- waybill-plan-digest: ${plan.digest} -->`);
    expect(lines[1]).toBe(
      "**Plan: 4 to create, 7 to update, 2 to replace, 5 to delete (3 of the deletes destroy secrets).**",
    );
    // Issue 19: the secret-destroying deletes by name, first of the header's notes, outside
    // the collapsed details.
    expect(lines[3]).toBe(`Waybill plan of \`gh/acme\` · plan digest \`${plan.digest}\``);
    expect(lines[5]).toMatch(/^- \*\*Destroys secrets that cannot be recovered: /);
    expect(md.indexOf("Destroys secrets")).toBeLessThan(md.indexOf("<details>"));
    expect(md).toContain("<details><summary>18 changes</summary>");
    expect(md).toContain("```diff\n");
    expect(md).toContain("</details>");
    expect(md).toContain('\n-/+ project["gh/acme/api"].webhook["scoped"]');
    expect(md).toContain("- 2 secrets are unverified");
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
  });

  it("an empty plan is its summary and what it is about, the digest first in a hidden marker", () => {
    const plan = planChanges(desired(dOrg()), live(lOrg()));
    expect(plan.digest).toMatch(/^[0-9a-f]{32}$/);
    expect(
      renderMarkdown(plan, MARKDOWN_LIMIT, {
        config: "infra/",
        commit: "0a1b2c3",
      }),
    ).toBe(
      `<!-- waybill-plan-digest: ${plan.digest} -->\n**No changes.**\n\nWaybill plan of \`gh/acme\` · config \`infra/\` · commit \`0a1b2c3\` · plan digest \`${plan.digest}\`\n`,
    );
  });

  it("puts every change mark in the first column of the diff block, where the code host colours it", () => {
    const md = renderMarkdown(mixedPlan());
    const block = md.slice(md.indexOf("```diff\n") + 8, md.lastIndexOf("\n```"));
    const marked = block.split("\n").filter((l) => /^\s*(-\/\+|[+~-]) /.test(l));
    expect(marked.length).toBeGreaterThan(10);
    for (const line of marked) expect(line, line).toMatch(/^(-\/\+|[+~-]) /);
    // A field line keeps its indentation after the mark.
    expect(block).toMatch(/\n\+ {7}\S+ = /);
  });

  it("cuts a huge plan under 65,000 characters and says so", () => {
    const env: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) env[`VARIABLE_NUMBER_${i}`] = `value-${i}`;
    const plan = planChanges(
      desired(dOrg({ contexts: [dContext("big", { env })] })),
      live(lOrg({ contexts: [] })),
    );
    const md = renderMarkdown(plan);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md.split("\n")[1]).toBe(
      "**Plan: 3001 to create, 0 to update, 0 to replace, 0 to delete.**",
    );
    expect(md).toMatch(/Output cut to stay under 65,000 characters: \d+ of \d+ lines shown/);
    // The code block and the details are still closed.
    expect(md).toMatch(/```\n\n<\/details>\n\n_Output cut/);
  });

  it("a small limit still gives a well-formed comment", () => {
    const md = renderMarkdown(mixedPlan(), 1500);
    expect(md.length).toBeLessThanOrEqual(1500);
    expect(md.match(/```/g)?.length).toBe(2);
  });

  it("a backtick run in a value cannot close the code block early", () => {
    const plan = planChanges(
      desired(dOrg({ contexts: [dContext("a```b")] })),
      live(lOrg({ contexts: [] })),
    );
    const md = renderMarkdown(plan);
    expect(md).toContain("````diff");
  });

  it("escapes HTML in notes outside the code block", () => {
    const plan = { ...mixedPlan(), warnings: ["<script>x</script>"] };
    expect(renderMarkdown(plan)).toContain("&lt;script&gt;");
  });
});
