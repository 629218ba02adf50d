/**
 * pull never writes what would give away or destroy a secret (issue 41 "A placeholder is a
 * binding"), against the emulator: a URL or a secret is written as a `${env:NAME}`
 * placeholder whatever the key form of its project (slug or name), never the masked
 * rendering the plan shows; a placeholder the config already binds to another item's value
 * is never reused for a new one.
 */
import { readFile, writeFile } from "node:fs/promises";
import { beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { runCli } from "../helpers/cli.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";

const ORG_ID = "5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const ORG = `circleci/${ORG_ID}`;
const PROJECT_ID = "7e1f0c2d-3b4a-4c5d-8e6f-0a1b2c3d4e5f";
const HOOK_ID = "0d7e0000-0000-4000-8000-0000000000aa";
const CTX_ID = "0c7e0000-0000-4000-8000-0000000000aa";
const LIVE_URL = "https://hooks.slack.com/services/T000/B000/live-secret-path-1234";
const HAND_URL = "https://hooks.slack.com/services/T000/B000/changed-by-hand-9876";
const DEPLOY_SECRET = "production-deploy-secret-value-7777";

const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      id: ORG_ID,
      slug: ORG,
      contexts: [{ id: CTX_ID, name: "deploy", env: { AWS: DEPLOY_SECRET } }],
      projects: [
        {
          id: PROJECT_ID,
          slug: "api",
          name: "api",
          webhooks: [{ id: HOOK_ID, name: "slack", url: LIVE_URL, events: ["workflow-completed"] }],
        },
      ],
    },
  ],
});

const env = (name: string) => `\${env:${name}}`;
const CONFIG = `org: ${ORG}
contexts:
  deploy:
    env:
      AWS: ${env("CTX_DEPLOY_AWS")}
projects:
  api:
    env: {}
    webhooks:
      slack:
        url: ${env("SLACK_URL")}
        events: [workflow-completed]
`;

describe("pull and secrets", () => {
  const suite = useEmulatorSuite(seed, { config: { name: "waybill.yaml", content: CONFIG } });
  beforeEach(async () => {
    await writeFile(suite.files.config, CONFIG);
  });
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli([...args, "-c", suite.files.config], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: { SLACK_URL: LIVE_URL, CTX_DEPLOY_AWS: DEPLOY_SECRET, ...extra },
      secrets: [LIVE_URL, HAND_URL, DEPLOY_SECRET],
    });

  it("a project keyed by name: a URL changed by hand and an env var added by hand are written as placeholders, never masked", async () => {
    expect((await cli(["plan", "--detailed-exitcode"])).code).toBe(0);
    expect(
      (await suite.emulator.call("POST", `/api/v3/webhooks/${HOOK_ID}/update`, { url: HAND_URL }))
        .status,
    ).toBe(200);
    expect(
      (
        await suite.emulator.call("POST", `/api/v3/projects/${PROJECT_ID}/environment-variables`, {
          name: "HAND_MADE",
          value: "typed-in-by-hand-Q9Z7",
        })
      ).status,
    ).toBe(201);
    const before = await readFile(suite.files.config, "utf8");
    const r = await cli(["pull"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await readFile(suite.files.config, "utf8");
    // No rendering of a value ever reaches the file.
    expect(after).not.toMatch(/…\(|\(sensitive\)|\(masked url\)/);
    // The URL the config reads from the environment differs: named, not written in clear.
    expect(r.stderr).toMatch(/Not pulled: project\["api"\]\.webhook\["slack"\]: url differs/);
    expect(r.stderr).not.toMatch(/Nothing to pull/);
    // The env var added by hand is pulled, as a placeholder to set.
    expect(after).toMatch(/HAND_MADE: \$\{env:PROJECT_API_HAND_MADE\}/);
    expect(r.stderr).toMatch(/PROJECT_API_HAND_MADE/);
    expect(after.replace(/\n {4}env:\n.*HAND_MADE.*\n/, "\n    env: {}\n")).toBe(before);
    const plan = await cli(["plan", "--format", "json"], {
      PROJECT_API_HAND_MADE: "typed-in-by-hand-Q9Z7",
    });
    const changes = (JSON.parse(plan.stdout) as { changes: { address: string }[] }).changes;
    // Only the URL (the config says its own): nothing is deleted.
    expect(changes.map((c) => c.address)).toEqual(['project["api"].webhook["slack"]']);
  });

  it("a project keyed by name: a literal URL changed by hand becomes a placeholder to set, not the masked rendering", async () => {
    await writeFile(suite.files.config, CONFIG.replace(env("SLACK_URL"), LIVE_URL));
    await suite.emulator.call("POST", `/api/v3/webhooks/${HOOK_ID}/update`, { url: HAND_URL });
    // Issue 41: the dry run shows the line pull replaces masked (it holds the URL), the new
    // line with its placeholder, and says that the diff does not apply there.
    const dry = await cli(["pull", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^- +url: \(sensitive\)\n\+ +url: \$\{env:[A-Z0-9_]+\}$/m);
    expect(dry.stderr).toContain("Note: the diff masks 1 changed line that holds a secret");
    const r = await cli(["pull"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await readFile(suite.files.config, "utf8");
    expect(after).not.toMatch(/…\(|\(sensitive\)/);
    expect(after).not.toContain(LIVE_URL);
    const name = /url: \$\{env:([A-Z0-9_]+)\}/.exec(after)?.[1];
    expect(name).toBeDefined();
    expect(r.stderr).toContain(`  ${name}  project["api"].webhook["slack"]`);
    // With the live URL in that variable, the next plan is empty.
    const plan = await cli(["plan", "--detailed-exitcode"], { [name as string]: HAND_URL });
    expect(plan.code, plan.stdout).toBe(0);
  });

  it("a context made by hand never gets a placeholder the config already binds to another secret", async () => {
    const made = await suite.emulator.call("POST", "/api/v3/contexts", {
      data: { attributes: { name: "Deploy" }, references: { org: { id: ORG_ID } } },
    });
    const id = (made.body as { data: { id: string } }).data.id;
    await suite.emulator.call("POST", `/api/v3/contexts/${id}/env-vars/set`, {
      name: "AWS",
      value: "staging-secret-value-5555",
    });
    const r = await cli(["pull"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await readFile(suite.files.config, "utf8");
    expect(after).toContain("  Deploy:\n");
    // `deploy`'s production secret keeps its name; the new context's gets its own.
    expect(after.match(/\$\{env:CTX_DEPLOY_AWS\}/g)).toHaveLength(1);
    expect(after).toContain("AWS: ${env:CTX_DEPLOY_AWS_2}");
    expect(r.stderr).toContain('  CTX_DEPLOY_AWS_2  context["Deploy"].env["AWS"]');
  });
});
