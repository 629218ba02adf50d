/**
 * Rules a platform team writes (design.md §5 "Rules and guards"): `policies:` on the config
 * (validate, offline), on the plan (plan, apply) and on the live state (drift), driven
 * through the CLI against the emulator. An error fails validate and plan (exit 1) and
 * stops apply before any write (exit 4); a warning changes no exit code; violations are
 * printed at the rule's and the item's FILE:LINE:COL, in the JSON plan, as GitHub
 * annotations and at the top of the Markdown comment. `--policy-cmd` pipes the masked JSON
 * plan to a program; its crash, timeout or unreadable answer fails closed.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { baseSeed, matchingConfig, matchingEnv } from "./plan-fixture.js";

/** The base seed plus a production context the matching config does not list. */
const prodSeed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  return {
    ...s,
    orgs: [
      { ...org, contexts: [...(org.contexts ?? []), { name: "prod-db", env: { K: "v" } }] },
      ...rest,
    ],
  };
};

/** The base seed with the api project passing secrets to fork PRs (a live rule's target). */
const forkSecretsSeed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  const projects = (org.projects ?? []).map((p) =>
    p.slug === "gh/acme/api"
      ? { ...p, settings: { ...p.settings, can_pass_secrets_to_fork_pr_jobs: true } }
      : p,
  );
  return { ...s, orgs: [{ ...org, projects }, ...rest] };
};

const denyProdDelete = (level: "error" | "warn") => `policies:
  - id: no-prod-delete
    level: ${level}
    on: plan
    address: context["prod-*"]
    actions: [delete]
    message: never delete a production context
`;

/** The matching config with the slack webhook's events changed: one update. */
const hookUpdated = matchingConfig.replace(
  "        events: [workflow-completed]\n        signing_secret",
  "        events: [workflow-completed, job-completed]\n        signing_secret",
);
const frozenHooks = `policies:
  - id: hooks-frozen
    on: plan
    address: project["*"].webhook["*"]
    actions: [update]
`;

/** A policy program: one violation per change, its message echoing a secret it can read. */
const STUB = `
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const plan = JSON.parse(input);
  const violations = plan.changes.map((c) => ({
    rule: "opa-review",
    level: "error",
    address: c.address,
    message: "external policy refuses " + c.action + " (saw " + process.env.NPM_TOKEN + ")",
  }));
  process.stdout.write(JSON.stringify({ violations }));
});
`;

const lineOf = (text: string, line: string): number => text.split("\n").indexOf(line) + 1;

describe("policies on the plan: plan and apply", () => {
  const suite = useEmulatorSuite(prodSeed, {
    denyError: { name: "deny-error.yaml", content: matchingConfig + denyProdDelete("error") },
    denyWarn: { name: "deny-warn.yaml", content: matchingConfig + denyProdDelete("warn") },
    frozen: { name: "frozen.yaml", content: hookUpdated + frozenHooks },
    plain: { name: "plain.yaml", content: matchingConfig },
    stub: { name: "stub.mjs", content: STUB },
  });
  const run = (args: string[]) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env: matchingEnv });
  const writes = async () => (await suite.emulator.requests()).filter((q) => q.method !== "GET");

  it('"deny delete context["prod-*"]": plan exits 1 naming the rule; apply exits 4 with zero writes', async () => {
    const plan = await run(["plan", "-c", suite.files.denyError, "--format", "json"]);
    expect(plan.code, plan.stderr).toBe(1);
    const doc = JSON.parse(plan.stdout) as { policy_violations: unknown[] };
    expect(doc.policy_violations).toEqual([
      {
        rule: "no-prod-delete",
        level: "error",
        on: "plan",
        from: "rule",
        org: "gh/acme",
        address: 'context["prod-db"]',
        message:
          'never delete a production context: the plan deletes context["prod-db"], which is not allowed',
        rule_source: {
          file: suite.files.denyError,
          line: lineOf(matchingConfig + denyProdDelete("error"), "  - id: no-prod-delete"),
          col: 5,
        },
      },
    ]);
    const text = await run(["plan", "-c", suite.files.denyError]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^Error: policy no-prod-delete: never delete a production context/);

    await suite.emulator.clearRequests();
    const apply = await run(["apply", "-c", suite.files.denyError, "--auto-approve"]);
    expect(apply.code, apply.stderr).toBe(4);
    expect(apply.stderr).toMatch(/violates 1 policy rule of level error \(no-prod-delete\)/);
    expect(await writes()).toEqual([]);
    const names = (await suite.emulator.state()).orgs?.[0]?.contexts?.map((c) => c.name);
    expect(names).toContain("prod-db");
  });

  it("a warning is shown and changes no exit code: plan exits 0, apply applies", async () => {
    const plan = await run(["plan", "-c", suite.files.denyWarn]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^Warning: policy no-prod-delete: /);
    const apply = await run(["apply", "-c", suite.files.denyWarn, "--auto-approve"]);
    expect(apply.code, apply.stderr).toBe(0);
    const names = (await suite.emulator.state()).orgs?.[0]?.contexts?.map((c) => c.name);
    expect(names).not.toContain("prod-db");
  });

  it("annotations sit at the item's line and name the rule's (--format github); Markdown leads with them", async () => {
    await suite.emulator.reset(baseSeed());
    const text = hookUpdated + frozenHooks;
    const r = await run(["plan", "-c", suite.files.frozen, "--format", "github"]);
    expect(r.code, r.stderr).toBe(1);
    const item = lineOf(text, "      slack:");
    const ruleLine = lineOf(text, "  - id: hooks-frozen");
    const file = suite.files.frozen.replace(/:/g, "%3A").replace(/,/g, "%2C");
    expect(r.stdout.split("\n")[0]).toBe(
      `::error file=${file},line=${item},col=7,title=waybill policy hooks-frozen::the plan updates project["gh/acme/api"].webhook["slack"], which is not allowed (rule at ${suite.files.frozen}:${ruleLine}:5)`,
    );
    // The text plan follows for the job log.
    expect(r.stdout).toContain("Waybill will perform the following actions:");
    const md = await run(["plan", "-c", suite.files.frozen, "--format", "markdown"]);
    // The plan digest's hidden marker is the first line (design.md §5), then the policies.
    expect(md.stdout.split("\n")[0]).toMatch(/^<!-- waybill-plan-digest: [0-9a-f]{32} -->$/);
    expect(md.stdout.split("\n")[1]).toBe("**Policy: 1 error, 0 warnings**");
    expect(md.stdout.indexOf("hooks-frozen")).toBeLessThan(md.stdout.indexOf("to update"));
  });

  it("a stub --policy-cmd's violations appear in every format, through the redactor", async () => {
    const cmd = `node ${suite.files.stub}`;
    const plan = (format: string) =>
      run(["plan", "-c", suite.files.plain, "--policy-cmd", cmd, "--format", format]);
    for (const format of ["text", "json", "markdown", "github"]) {
      const r = await plan(format);
      expect(r.code, `${format}: ${r.stderr}`).toBe(1);
      expect(r.stdout, format).toContain("opa-review");
      expect(r.stdout, format).toContain("external policy refuses delete");
      // The program echoed a secret it could read: the redactor's mark stands in its place
      // (and runCli fails on any env value in the output).
      expect(r.stdout, format).toContain("(saw (sensitive))");
    }
    const json = await plan("json");
    const doc = JSON.parse(json.stdout) as {
      policy_violations: { from: string; address: string }[];
    };
    expect(doc.policy_violations.map((v) => [v.from, v.address])).toContainEqual([
      "policy_cmd",
      'context["prod-db"]',
    ]);
    await suite.emulator.clearRequests();
    const apply = await run([
      "apply",
      "-c",
      suite.files.plain,
      "--auto-approve",
      "--policy-cmd",
      cmd,
    ]);
    expect(apply.code, apply.stderr).toBe(4);
    expect(await writes()).toEqual([]);
  });

  it.each([
    [
      "crashes",
      `node -e "process.stderr.write('boom'); process.exit(3)"`,
      /exited with status 3.*it said: boom/,
    ],
    ["times out", `node -e "setTimeout(() => {}, 20000)"`, /did not finish within 0.3 s/],
    ["answers what cannot be read", "echo all good", /not JSON/],
    ["answers without a violations list", `echo '{"ok":true}'`, /no "violations" list/],
  ])(
    "a --policy-cmd that %s fails closed: plan and apply exit 1, zero writes",
    async (_, cmd, why) => {
      // Only the case that tests the timeout gets a short one: under load, starting node
      // alone can take longer than 0.3 s, and the other cases would read as time-outs.
      const timeout = /did not finish/.test(why.source) ? "300ms" : "60s";
      const args = ["--policy-cmd", cmd, "--policy-cmd-timeout", timeout];
      const plan = await run(["plan", "-c", suite.files.plain, ...args]);
      expect(plan.code).toBe(1);
      expect(plan.stderr).toMatch(why);
      await suite.emulator.clearRequests();
      const apply = await run(["apply", "-c", suite.files.plain, "--auto-approve", ...args]);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toMatch(/--policy-cmd .*the policy check failed/);
      expect(await writes()).toEqual([]);
    },
  );
});

describe("policies on the live state: drift", () => {
  const liveRule = `policies:
  - id: no-fork-secrets
    on: live
    address: project["*"].settings
    field: can_pass_secrets_to_fork_pr_jobs
    not_equals: true
`;
  const suite = useEmulatorSuite(forkSecretsSeed, {
    config: { name: "waybill.yaml", content: matchingConfig + liveRule },
  });
  it("names the live item that breaks a rule, at the config's line for it, and exits 1", async () => {
    const r = await runCli(["drift", "-c", suite.files.config, "--format", "json"], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout) as {
      policy_violations: { rule: string; address: string; item_source?: { line: number } }[];
    };
    expect(doc.policy_violations).toMatchObject([
      {
        rule: "no-fork-secrets",
        address: 'project["gh/acme/api"].settings',
        item_source: { line: lineOf(matchingConfig, "    settings:") },
      },
    ]);
    await suite.emulator.reset(baseSeed());
    const clean = await runCli(["drift", "-c", suite.files.config], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
  });
});
