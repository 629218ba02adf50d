/**
 * `waybill pull` against the emulator (issue 32, design.md §4 "Drift back into Git"): five
 * changes made by hand on the service (a setting, webhook events, a trigger's cron, a new
 * restriction, a new env var whose value the service never returns), then `pull`, then
 * `plan` is empty but for the secret pull names; the config's diff is exactly those lines,
 * and every comment of the original file is still there.
 */
import { readFile } from "node:fs/promises";
import { diffLines } from "diff";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { gnuPatch } from "../helpers/gnu-patch.js";
import {
  API_ID,
  baseSeed,
  CTX_PROD_ID,
  envRef,
  matchingConfig,
  matchingEnv,
  TRIGGER_NIGHTLY_ID,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

/** matchingConfig with comments on many lines (the ones pull edits among them). */
const commented = `# The acme org, as Git says it should be.
${matchingConfig
  .split("\n")
  .map((line, i) =>
    line.trim() === "" || line.startsWith("org:")
      ? line
      : i % 3 === 0
        ? `${line} # note ${i}`
        : i % 3 === 1 && !line.trimStart().startsWith("-")
          ? `${" ".repeat(line.length - line.trimStart().length)}# about line ${i}\n${line}`
          : line,
  )
  .join("\n")}`;

const commentsOf = (text: string): string[] =>
  text
    .split("\n")
    .map((l) => /#.*$/.exec(l)?.[0])
    .filter((c): c is string => c !== undefined);

describe("waybill pull", () => {
  const suite = useEmulatorSuite(baseSeed, {
    config: { name: "waybill.yaml", content: commented },
  });
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli([...args, "-c", suite.files.config], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: { ...matchingEnv, ...env },
    });

  it("brings five changes made by hand back into the file, keeping every comment", async () => {
    expect((await cli(["plan", "--detailed-exitcode"])).code).toBe(0);
    const calls = [
      await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/update-settings`, {
        enable_auto_cancel_redundant_workflows: true,
      }),
      await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
        events: ["workflow-completed", "job-completed"],
      }),
      await suite.emulator.call("POST", `/api/v3/triggers/${TRIGGER_NIGHTLY_ID}/update`, {
        event: { schedule: { cron_expression: "30 4 * * 1" } },
      }),
      await suite.emulator.call("POST", "/api/v3/context-restrictions", {
        data: {
          attributes: { restriction_type: "expression", match_pattern: 'pipeline.git.tag != ""' },
          references: { context: { id: CTX_PROD_ID } },
        },
      }),
      await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/environment-variables`, {
        name: "HAND_MADE",
        value: "typed-in-by-hand-Q9Z7",
      }),
    ];
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 201, 201]);

    const before = await readFile(suite.files.config, "utf8");
    const dry = await cli(["pull", "--dry-run"]);
    expect(dry.stderr).not.toMatch(/^Error/m);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^-.*cron_expression: "0 2 \* \* \*"/m);
    expect(await readFile(suite.files.config, "utf8")).toBe(before);

    const pulled = await cli(["pull"]);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toMatch(/PROJECT_API_HAND_MADE/);
    expect(pulled.stderr).not.toMatch(/Not pulled/);
    const after = await readFile(suite.files.config, "utf8");

    // Issue 41: the dry run's diff is a patch of the file: `patch` gives what pull wrote. No
    // line of it is masked (none that it prints holds a secret), and no secret is in it:
    // not the literal `AWS_REGION` value, not the URLs written in clear (the `events` line
    // it changes stands right under one: that hunk has no context, not a masked one).
    expect(gnuPatch(before, dry.stdout)).toBe(after);
    expect(dry.stdout).not.toContain("(sensitive)");
    expect(dry.stderr).not.toMatch(/the diff masks/);
    for (const secret of [
      "eu-west-1",
      "https://hooks.example.com/services/T0",
      "https://old.example.com/hook",
      ...Object.values(matchingEnv),
    ]) {
      expect(dry.stdout).not.toContain(secret);
    }

    // Only those lines changed (as a line diff), and every comment is still there.
    const changed = diffLines(before, after).filter((p) => p.added || p.removed);
    const removed = changed.filter((p) => p.removed).flatMap((p) => p.value.trimEnd().split("\n"));
    const added = changed.filter((p) => p.added).flatMap((p) => p.value.trimEnd().split("\n"));
    expect(removed.map((l) => l.trim().replace(/ #.*$/, ""))).toEqual([
      "enable_auto_cancel_redundant_workflows: false",
      "events: [workflow-completed]",
      'schedule: { cron_expression: "0 2 * * *", attribution_actor: system }',
    ]);
    expect(added.map((l) => l.trim().replace(/ #.*$/, ""))).toEqual([
      '- expression: pipeline.git.tag != ""',
      "enable_auto_cancel_redundant_workflows: true",
      `HAND_MADE: ${envRef("PROJECT_API_HAND_MADE")}`,
      "events: [workflow-completed, job-completed]",
      'schedule: { cron_expression: "30 4 * * 1", attribution_actor: system }',
    ]);
    expect(commentsOf(after)).toEqual(expect.arrayContaining(commentsOf(before)));
    expect(commentsOf(after)).toHaveLength(commentsOf(before).length);

    // The next plan is empty, but for the secret it names (its value is not the live one).
    const plan = await cli(["plan", "--format", "json"], {
      PROJECT_API_HAND_MADE: "not-the-live-value-1234",
    });
    expect(plan.code).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { changes: { address: string }[] }).changes;
    expect(changes.map((c) => c.address)).toEqual(['project["gh/acme/api"].env["HAND_MADE"]']);
    // With the live value, nothing at all.
    const exact = await cli(["plan", "--detailed-exitcode"], {
      PROJECT_API_HAND_MADE: "typed-in-by-hand-Q9Z7",
    });
    expect(exact.code).toBe(0);
  });

  it("--dry-run never prints a literal secret of the config, and its diff still applies", async () => {
    await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/update-settings`, {
      enable_auto_cancel_redundant_workflows: true,
    });
    const literal = "literal-secret-in-yaml-7781";
    const config = await suite.tmp.write(
      "literal.yaml",
      matchingConfig.replace(
        "    env:\n      NPM_TOKEN",
        "    env:\n      LITERAL_FIRST: " + literal + "\n      NPM_TOKEN",
      ),
    );
    const r = await runCli(["pull", "--dry-run", 'project["gh/acme/api"].settings', "-c", config], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\+ +enable_auto_cancel_redundant_workflows: true/m);
    // Issue 41: the line holding the literal is not printed at all (it is no context), the
    // rest is the file's own text, and the diff applies.
    expect(r.stdout).not.toContain(literal);
    expect(r.stdout).not.toContain("(sensitive)");
    const text = await readFile(config, "utf8");
    expect(gnuPatch(text, r.stdout)).toBe(
      text.replace(
        "enable_auto_cancel_redundant_workflows: false",
        "enable_auto_cancel_redundant_workflows: true",
      ),
    );
  });

  it("ignore_fields: a webhook paused by hand is neither drift nor pulled", async () => {
    const paused = await suite.emulator.call(
      "POST",
      `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/set-enabled`,
      { is_enabled: false },
    );
    expect(paused.status).toBe(200);
    const config = await suite.tmp.write(
      "ignore-fields.yaml",
      matchingConfig.replace(
        "ignore:\n",
        `ignore_fields: ['project["*"].webhook["*"].is_enabled']\nignore:\n`,
      ),
    );
    const run = (args: string[]) =>
      runCli([...args, "-c", config], {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
        env: matchingEnv,
      });
    expect((await run(["drift"])).code).toBe(0);
    const before = await readFile(config, "utf8");
    const pulled = await run(["pull"]);
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toMatch(/Nothing to pull/);
    expect(await readFile(config, "utf8")).toBe(before);
    // Without it, the same pause is drift.
    const plain = await runCli(
      ["drift", "-c", await suite.tmp.write("plain.yaml", matchingConfig)],
      {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
        env: matchingEnv,
      },
    );
    expect(plain.code).toBe(2);
    expect(plain.stdout).toMatch(/is_enabled/);
  });
});
