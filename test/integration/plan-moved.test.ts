/**
 * Issue 19 `moved`, against the emulator: renaming a webhook, a pipeline and a schedule
 * trigger in the config with `moved` entries renames them in place (same ids, the webhook's
 * signing secret kept); a plan after apply is empty. Without the entries, the plan hints at
 * them. A `moved` entry for a kind the API cannot rename is a validation error, before any
 * request.
 */
import { describe, expect, it } from "vitest";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import {
  ALL_SECRETS,
  baseSeed,
  LIVE_SECRETS,
  matchingConfig,
  matchingEnv,
  PIPELINE_BUILD_ID,
  TRIGGER_NIGHTLY_ID,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

const P = 'project["gh/acme/api"]';
const renamed = matchingConfig
  .replace("      slack:\n", "      slack-alerts:\n")
  .replace("      build:\n", "      ci:\n")
  .replace("          nightly:\n", "          every-night:\n");
const moves = `moved:
  - from: ${P}.webhook["slack"]
    to: ${P}.webhook["slack-alerts"]
  - from: ${P}.pipeline["build"]
    to: ${P}.pipeline["ci"]
  - from: ${P}.pipeline["ci"].trigger["nightly"]
    to: ${P}.pipeline["ci"].trigger["every-night"]
`;

describe("moved: renames in place", () => {
  const suite = useEmulatorSuite(baseSeed, {
    withoutMoves: { name: "renamed.yaml", content: renamed },
    withMoves: { name: "moved.yaml", content: `${renamed}${moves}` },
    contextMove: {
      name: "context-move.yaml",
      content: `${matchingConfig}moved:\n  - from: context["stale"]\n    to: context["stale-2"]\n`,
    },
    typoMove: {
      name: "typo-move.yaml",
      content: `${renamed}moved:\n  - from: ${P}.webhook["slack"]\n    to: ${P}.webhook["slack-alert"]\n`,
    },
  });
  const run = (args: string[]) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env: matchingEnv });

  it("without moved entries, the plan hints at them", async () => {
    const r = await run(["plan", "-c", suite.files.withoutMoves]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `${P}.webhook["slack"] → ${P}.webhook["slack-alerts"] looks like a rename (same fields): add a moved entry`,
    );
  });

  it("with them, apply renames in place (same ids, signing secret kept) and a plan after is empty", async () => {
    const planned = await run(["plan", "-c", suite.files.withMoves, "--format", "json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: { action: string; address: string }[] };
    expect(plan.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      `update ${P}.pipeline["ci"]`,
      `update ${P}.pipeline["ci"].trigger["every-night"]`,
      `update ${P}.webhook["slack-alerts"]`,
    ]);

    const applied = await run(["apply", "-c", suite.files.withMoves, "--auto-approve"]);
    expect(applied.code, applied.stderr).toBe(0);
    expectNoSecrets({ stdout: applied.stdout, stderr: applied.stderr }, ALL_SECRETS);
    const project = (await suite.emulator.state()).orgs?.[0]?.projects?.find(
      (p) => p.slug === "gh/acme/api",
    );
    const hook = project?.webhooks?.find((w) => w.id === WEBHOOK_SLACK_ID);
    expect(hook?.name).toBe("slack-alerts");
    expect(hook?.signing_secret).toBe(LIVE_SECRETS.slackSigning);
    const pipeline = project?.pipelines?.find((p) => p.id === PIPELINE_BUILD_ID);
    expect(pipeline?.name).toBe("ci");
    const trigger = pipeline?.triggers?.find((t) => t.id === TRIGGER_NIGHTLY_ID);
    expect((trigger?.event.schedule as { name?: string } | undefined)?.name).toBe("every-night");

    const again = await run(["plan", "-c", suite.files.withMoves, "--detailed-exitcode"]);
    expect(again.code, again.stdout).toBe(0);
  });

  it("a moved entry for a context is a validation error, and nothing is requested", async () => {
    await suite.emulator.clearRequests();
    const r = await run(["plan", "-c", suite.files.contextMove]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/context-move\.yaml:\d+:\d+/);
    expect(r.stderr).toContain(
      "a context cannot be renamed: the API has no route that renames a context",
    );
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("a moved entry whose `to` the config does not declare is a validation error at the `to`, with the near name, and nothing is requested", async () => {
    await suite.emulator.clearRequests();
    for (const args of [["plan"], ["apply", "--auto-approve"], ["drift"]]) {
      const r = await run([...args, "-c", suite.files.typoMove]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /typo-move\.yaml:\d+:9: moved\.0\.to: project\["gh\/acme\/api"\]\.webhook\["slack-alert"\] is not declared in the config of org gh\/acme/,
      );
      expect(r.stderr).toContain(`did you mean ${P}.webhook["slack-alerts"]?`);
    }
    expect(await suite.emulator.requests()).toEqual([]);
  });
});
