/**
 * A kind's after-create step (src/kinds/contract.ts `afterCreate`) is promised before the
 * apply and run by it from one rule, so the promise and the deed cannot differ. Issue 16:
 * the CLI promised to remove the all-members restriction the service adds to a new context
 * whenever the config did not write `group: all-members`, while apply (rightly) kept it
 * when the config names the org by its id, the same restriction.
 */
import { describe, expect, it } from "vitest";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
import { applyEnv, createConfig } from "./apply-fixture.js";
import { baseSeed, ORG_ID } from "./plan-fixture.js";

const withOrgId = createConfig.replace(
  '      - expression: pipeline.git.branch == "dev"\n',
  `      - expression: pipeline.git.branch == "dev"\n      - group: ${ORG_ID}\n`,
);
const withoutIt = createConfig;

describe("apply's after-create step for a new context's default restriction", () => {
  const suite = useEmulatorSuite(baseSeed, {
    byId: { name: "by-id.yaml", content: withOrgId },
    without: { name: "without.yaml", content: withoutIt },
  });
  const env = () => ({
    ...applyEnv,
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
    NO_COLOR: "1",
  });
  const restrictionsOf = async (name: string) => {
    const state = await suite.emulator.state();
    const ctx = state.orgs?.[0]?.contexts?.find((c) => c.name === name);
    return (ctx?.restrictions ?? []).map((r) => `${r.restriction_type}:${r.match_pattern}`);
  };

  it("the org named by its id: nothing is promised, the restriction is kept, the next plan is empty", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.byId, "--auto-approve"], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/all org members/);
    expect(r.stdout + r.stderr).not.toMatch(/removed the all-members restriction/);
    expect(await restrictionsOf("new-ctx")).toContain(`group:${ORG_ID}`);
    const again = await runInProcess(
      ["plan", "-c", suite.files.byId, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout).toBe(0);
  });

  it("not declared: promised, removed, and the next plan is empty", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.without, "--auto-approve"], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /context\["new-ctx"\]: the service gives a new context a restriction for all org members/,
    );
    expect(await restrictionsOf("new-ctx")).not.toContain(`group:${ORG_ID}`);
    const again = await runInProcess(
      ["plan", "-c", suite.files.without, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout).toBe(0);
  });
});
