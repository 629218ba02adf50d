/**
 * Issue 19 "Done when": 30 projects from one template with overrides apply, and then a plan
 * is empty — a folder config (templates in one file, projects in a sub-folder) against the
 * emulator.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000dd";
const N = 30;
const slug = (i: number) => `gh/fleet/svc-${String(i).padStart(2, "0")}`;
const projectId = (i: number) => `0b7e0000-0000-4000-8000-0000000000${String(i).padStart(2, "0")}`;

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/fleet",
      name: "fleet",
      projects: Array.from({ length: N }, (_, i) => ({ id: projectId(i), slug: slug(i) })),
    },
  ],
});

const templates = `org: gh/fleet
x-hook: &hook
  url: https://hooks.example.com/services/T0
templates:
  projects:
    service:
      settings:
        enable_auto_cancel_redundant_workflows: true
      env:
        DEPLOY_REGION: eu-west-1
      webhooks:
        slack: { <<: *hook, events: [workflow-completed] }
`;

const projects = (from: number, to: number): string => {
  const lines = ["org: gh/fleet", "projects:"];
  for (let i = from; i < to; i++) {
    lines.push(`  ${slug(i)}:`, "    extends: [service]");
    // Every third project overrides the webhook's events; every fifth drops the env var.
    if (i % 3 === 0) lines.push("    webhooks:", "      slack: { events: [job-completed] }");
    if (i % 5 === 0)
      lines.push("    env:", "      DEPLOY_REGION: null", "      ONLY_HERE: special-value-1");
  }
  return `${lines.join("\n")}\n`;
};

describe("30 projects from one template", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let cfg: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    await tmp.write("cfg/00-templates.yaml", templates);
    await mkdir(join(tmp.dir, "cfg", "teams"), { recursive: true });
    await tmp.write("cfg/teams/a.yaml", projects(0, 15));
    await tmp.write("cfg/teams/b.yaml", projects(15, N));
    cfg = join(tmp.dir, "cfg");
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  const run = (args: string[]) => runCli(args, { baseUrl: emulator.url, token: emulator.token });

  it("applies with the overrides, then a plan is empty", async () => {
    // The plan's "why" of an inherited item names the item's line and the template's.
    const planned = await run(["plan", "-c", cfg, "--format", "json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const changes = (
      JSON.parse(planned.stdout) as { changes: { address: string; reason: string }[] }
    ).changes;
    const hook = changes.find((c) => c.address === `project["${slug(1)}"].webhook["slack"]`);
    expect(hook?.reason).toMatch(
      /^not in the live state \(declared at .*teams\/a\.yaml:\d+:\d+, inherited from template "service" at .*00-templates\.yaml:12:9\)$/,
    );
    // Issue 45: a template that rewrites all 30 projects' settings passes the volume guard
    // only with --allow-mass-change (test/integration/apply-volume-guards.test.ts).
    const applied = await run(["apply", "-c", cfg, "--auto-approve", "--allow-mass-change"]);
    expect(applied.code, applied.stderr.slice(-2000)).toBe(0);
    const state = await emulator.state();
    const projectsLive = state.orgs?.[0]?.projects ?? [];
    for (let i = 0; i < N; i++) {
      const p = projectsLive.find((x) => x.slug === slug(i));
      expect(p?.settings?.enable_auto_cancel_redundant_workflows, slug(i)).toBe(true);
      const hook = p?.webhooks?.find((w) => w.name === "slack");
      expect(hook?.url).toBe("https://hooks.example.com/services/T0");
      expect(hook?.events).toEqual(i % 3 === 0 ? ["job-completed"] : ["workflow-completed"]);
      expect(p?.env).toEqual(
        i % 5 === 0 ? { ONLY_HERE: "special-value-1" } : { DEPLOY_REGION: "eu-west-1" },
      );
    }
    const again = await run(["plan", "-c", cfg, "--detailed-exitcode"]);
    expect(again.code, again.stdout).toBe(0);
  });
});
