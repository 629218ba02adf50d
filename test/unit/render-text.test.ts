import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { planChanges } from "../../src/plan/plan.js";
import { renderText } from "../../src/render/text.js";
import { dContext, desired, dOrg, lContext, live, lOrg } from "../helpers/builders.js";
import { mixedPlan } from "../helpers/plan-fixtures.js";

const ANSI = /\u001b\[/;

describe("renderText", () => {
  const text = renderText(mixedPlan(), { color: false });
  const lines = text.split("\n");

  it("uses Terraform's symbols per action", () => {
    expect(lines).toContain('  + context["fresh"]');
    expect(lines).toContain("  ~ org_settings");
    expect(lines).toContain('-/+ project["gh/acme/api"].webhook["scoped"]');
    expect(lines).toContain('  - context["old"]');
  });

  it("shows field-level old -> new and what forces replacement", () => {
    expect(lines).toContain("      ~ enable_private_orbs = false -> true");
    expect(lines).toContain('      ~ scope = "project" -> "org" # forces replacement');
    expect(lines).toContain('      ~ pr_only_branch_overrides = ["main"] -> ["main","release"]');
  });

  it("shows a multi-line value as a unified diff", () => {
    const at = lines.indexOf("      ~ description:");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6)).toEqual([
      "          @@ -1,3 +1,3 @@",
      "           line one",
      "          -line 2",
      "          +line two",
      "           line three",
    ]);
    expect(text).not.toContain("No newline at end of file");
  });

  it("says what a context delete destroys, and lists the calls", () => {
    expect(text).toContain("destroys 2 secrets");
    expect(text).toContain(
      "# call: POST /projects/{project_id}/environment-variables (name, value)",
    );
  });

  it("ends with the summary, the unverified count and the warnings", () => {
    expect(text).toContain(
      "Plan: 4 to create, 7 to update, 2 to replace, 5 to delete (3 of the deletes destroy secrets).",
    );
    expect(text).toContain("2 secrets are unverified");
    expect(text).toMatch(/Warning: .*not re-created/);
  });

  it("shows secrets as (sensitive)", () => {
    expect(lines).toContain("      ~ value = (sensitive) -> (sensitive)");
  });

  it("has colour only when asked", () => {
    expect(text).not.toMatch(ANSI);
    const colored = renderText(mixedPlan(), { color: true });
    expect(colored).toMatch(ANSI);
    expect(colored).toContain('\u001b[32m+\u001b[0m context["fresh"]');
    expect(colored.replace(/\u001b\[\d+m/g, "")).toBe(text);
  });

  it('says "No changes." for an empty plan', () => {
    const empty = planChanges(desired(dOrg()), live(lOrg()));
    expect(renderText(empty, { color: false })).toBe(`No changes.\nPlan digest: ${empty.digest}\n`);
  });
});

describe("renderText with --skip-secrets", () => {
  it("marks creates whose secrets were not resolved and says the plan cannot be applied", () => {
    const plan = planChanges(
      desired(dOrg({ contexts: [dContext("c", { env: { K: Secret.unresolved("env:K") } })] })),
      live(lOrg({ contexts: [lContext("c")] })),
      { skipSecrets: true },
    );
    const text = renderText(plan, { color: false });
    expect(text).toContain("! not resolved (--skip-secrets): value");
    expect(text).toContain("This plan cannot be saved or applied");
  });
});
