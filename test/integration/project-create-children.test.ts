// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs spell ${env:…} references
/**
 * A `create: true` project: everything declared inside it, its settings included (from the
 * item or from a template), is written in the same apply, each with a write that answered
 * 2xx, and a plan right after is empty.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG = "gh/acme";
const STANDALONE = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";

const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [{ slug: ORG }, { slug: STANDALONE }],
});

const bySlug = `org: ${ORG}
templates:
  projects:
    service:
      settings:
        enable_dynamic_config: true
projects:
  ${ORG}/new-service:
    create: true
    extends: [service]
    settings:
      enable_auto_cancel_redundant_workflows: true
      pr_only_branch_overrides: [main, release]
    env:
      TOKEN: \${env:NEW_SECRET}
    webhooks:
      notify:
        url: https://hooks.example.com/new
        events: [workflow-completed]
    checkout_keys: [deploy-key]
`;

const byName = `org: ${STANDALONE}
templates:
  projects:
    service:
      settings:
        is_ssh_disabled: true
projects:
  api:
    create: true
    extends: [service]
    env:
      TOKEN: \${env:NEW_SECRET}
`;

describe("a project created in this apply gets every child written in the same apply", () => {
  const suite = useEmulatorSuite(seed, {
    bySlug: { name: "by-slug.yaml", content: bySlug },
    byName: { name: "by-name.yaml", content: byName },
  });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
    NEW_SECRET: "a-new-secret-4c1d",
  });
  const project = async (org: string) =>
    (await suite.emulator.state()).orgs?.find((o) => o.slug === org)?.projects?.[0];

  it.each([
    ["by slug, settings from the item and a template", "bySlug", ORG],
    ["by name in a standalone org, settings from a template", "byName", STANDALONE],
  ] as const)("%s: settings sent, a plan right after is empty", async (_, file, org) => {
    const r = await runInProcess(["apply", "-c", suite.files[file], "--auto-approve"], env());
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The settings exist with the project: they are set (updated), never "created".
    expect(r.stderr).toMatch(/\.settings: updated in \d+\.\d\ds/);
    expect(r.stderr).not.toMatch(/\.settings: created/);
    const made = await project(org);
    if (file === "bySlug") {
      expect(made?.settings).toMatchObject({
        enable_dynamic_config: true,
        enable_auto_cancel_redundant_workflows: true,
        pr_only_branch_overrides: ["main", "release"],
      });
      expect(made?.webhooks?.map((w) => w.name)).toEqual(["notify"]);
      expect(made?.checkout_keys?.map((k) => k.type)).toEqual(["deploy-key"]);
    } else {
      expect(made?.settings).toMatchObject({ is_ssh_disabled: true });
    }
    expect(made?.env).toEqual({ TOKEN: "a-new-secret-4c1d" });
    // The settings step is one update-settings POST that answered 200.
    const settingsWrites = (await suite.emulator.requests()).filter(
      (q) => q.method === "POST" && q.path.endsWith("/update-settings"),
    );
    expect(settingsWrites.map((q) => q.status)).toEqual([200]);
    const again = await runInProcess(
      ["plan", "-c", suite.files[file], "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
