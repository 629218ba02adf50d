/**
 * The plan as a pull-request comment, read as a reviewer reads it (design.md §1 "Plans"):
 * every change mark in the first column of the `diff` block (where the code host colours
 * it), the org, the config and the commit named, and "cannot be saved or applied" said
 * once. Against the emulator over loopback.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { baseSeed, envRef, matchingConfig, matchingEnv } from "./plan-fixture.js";

const SHA = "4f2a9c0d1e2b3a4c5d6e7f8091a2b3c4d5e6f708";

describe("plan --format markdown", () => {
  const suite = useEmulatorSuite(baseSeed, {
    config: {
      name: "infra/waybill.yaml",
      content: matchingConfig
        .replace("AWS_REGION: eu-west-1", "AWS_REGION: eu-west-2")
        .replace("events: [job-completed]", "events: [job-completed, workflow-completed]")
        .replace("    env:\n      ONE:", `    env:\n      THREE: ${envRef("NEW_ONE")}\n      ONE:`),
    },
  });
  const plan = (args: readonly string[], env: Record<string, string> = {}) =>
    runCli(["plan", "-c", suite.files.config, "--format", "markdown", ...args], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: { ...matchingEnv, NEW_ONE: "a-new-secret-value-for-three-X1", ...env },
    });

  it("names the org, the config and the commit, and marks changes in the first column", async () => {
    const r = await plan([], { GITHUB_SHA: SHA });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    // The plan digest's hidden marker comes first (design.md §5), and ends the context line.
    const digest = /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->$/.exec(lines[0] ?? "")?.[1];
    expect(digest).toBeDefined();
    expect(lines[1]).toMatch(/^\*\*Plan: 1 to create, 2 to update/);
    expect(lines[3]).toBe(
      `Waybill plan of \`gh/acme\` · config \`${suite.files.config}\` · commit \`${SHA.slice(0, 12)}\` · plan digest \`${digest}\``,
    );
    const block = r.stdout.slice(r.stdout.indexOf("```diff\n") + 8, r.stdout.lastIndexOf("\n```"));
    expect(block).toContain('\n~   context["deploy-prod"].env["AWS_REGION"]');
    expect(block).toContain('\n+   context["stale"].env["THREE"]');
    expect(block).toMatch(/\n~ {7}events = /);
    for (const line of block.split("\n").filter((l) => /^\s+(-\/\+|[+~-]) /.test(l))) {
      expect.fail(`a change mark not in the first column: ${line}`);
    }
  });

  it("a commit named by no CI variable is git's, and a forged one is not shown", async () => {
    const r = await plan([], { GITHUB_SHA: "main; rm -rf /" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("rm -rf");
    // The temp folder is no git repository: no commit is named at all.
    expect(r.stdout.split("\n")[3]).toMatch(
      new RegExp(
        `^Waybill plan of \`gh/acme\` · config \`${suite.files.config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\` · plan digest \`[0-9a-f]{32}\`$`,
      ),
    );
  });

  it("says once, not twice, that a plan made with --skip-secrets cannot be saved or applied", async () => {
    const r = await plan(["--skip-secrets"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/cannot be saved or applied/g)).toHaveLength(1);
    const text = await runCli(["plan", "-c", suite.files.config, "--skip-secrets"], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
    });
    expect(text.stdout.match(/cannot be saved or applied/g)).toHaveLength(1);
  });

  it("--format github: an annotation per change at the config line that declares it", async () => {
    const r = await runCli(["plan", "-c", suite.files.config, "--format", "github"], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: { ...matchingEnv, NEW_ONE: "a-new-secret-value-for-three-X1" },
    });
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(suite.files.config, "utf8");
    const lineOf = (needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
    const file = suite.files.config.replace(/:/g, "%3A").replace(/,/g, "%2C");
    const annotations = r.stdout.split("\n").filter((l) => l.startsWith("::"));
    expect(annotations).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^::notice file=${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")},line=${lineOf("AWS_REGION: eu-west-2")},col=\\d+,title=waybill plan updates context\\["deploy-prod"\\]\\.env\\["AWS_REGION"\\]::`,
        ),
      ),
    );
    expect(annotations).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^::notice file=[^,]+,line=${lineOf("THREE:")},col=\\d+,title=waybill plan creates context\\["stale"\\]\\.env\\["THREE"\\]::`,
        ),
      ),
    );
    const events = annotations.find((a) => a.includes('webhook["old-hook"]'));
    expect(events).toMatch(
      /^::notice file=.*%0Aevents: \["job-completed"\] → \["job-completed","workflow-completed"\]$/,
    );
    // The text plan follows the annotations, for the log.
    expect(r.stdout).toContain("Waybill will perform the following actions:");
    expect(r.stdout).not.toContain("a-new-secret-value-for-three-X1");
  });

  it("a --target that is not a well-formed address glob is an error before any request", async () => {
    await suite.emulator.clearRequests();
    for (const target of ["webhook[slack]", 'context["deploy-prod"', "nonsense"]) {
      for (const command of ["plan", "drift"]) {
        const r = await runCli([command, "-c", suite.files.config, "--target", target], {
          baseUrl: suite.emulator.url,
          token: suite.emulator.token,
          env: { ...matchingEnv, NEW_ONE: "a-new-secret-value-for-three-X1" },
        });
        expect(r.code, `${command} ${target}`).toBe(1);
        expect(r.stderr).toContain(`--target '${target}'`);
        expect(r.stdout).not.toMatch(/No changes|No drift/);
      }
    }
    expect(await suite.emulator.requests()).toEqual([]);
    // Well-formed ones still plan.
    const ok = await runCli(
      [
        "plan",
        "-c",
        suite.files.config,
        "--target",
        'context["deploy-prod"]*',
        "--target",
        'project["gh/acme/api"].webhook["*"]',
      ],
      {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
        env: { ...matchingEnv, NEW_ONE: "a-new-secret-value-for-three-X1" },
      },
    );
    expect(ok.code, ok.stderr).toBe(0);
  });
});
