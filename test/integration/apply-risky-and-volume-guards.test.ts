/**
 * The guards a config edit cannot slip past (design.md §5 "Rules and guards"): each risky
 * transition needs `--allow-risky RULE` (or `guards.allow`), and the volume guards
 * (updates of more than 30% of a collection of 10 or more, more than N secret re-sets)
 * need `--allow-mass-change`. Refused: exit 4 and zero writes; allowed: applied. Driven
 * through the CLI against the emulator, asserted on its request log and state.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { runCli } from "../helpers/cli.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { baseSeed, matchingConfig, matchingEnv, ORG_ID } from "./plan-fixture.js";

type SeedOrg = NonNullable<Seed["orgs"]>[number];
const withOrg = (f: (org: SeedOrg) => SeedOrg) => (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  return { ...s, orgs: [f(org), ...rest] };
};
const withApi = (
  f: (p: NonNullable<SeedOrg["projects"]>[number]) => NonNullable<SeedOrg["projects"]>[number],
) =>
  withOrg((org) => ({
    ...org,
    projects: (org.projects ?? []).map((p) => (p.slug === "gh/acme/api" ? f(p) : p)),
  }));

const replaceOnce = (text: string, from: string, to: string): string => {
  if (!text.includes(from)) throw new Error(`not in the config: ${from}`);
  return text.replace(from, to);
};

const orgSetting = (line: string) =>
  replaceOnce(
    matchingConfig,
    "  enable_private_orbs: false\n",
    `  enable_private_orbs: false\n  ${line}\n`,
  );

// A standalone org with SSO mappings (groups are for standalone orgs only).
const STANDALONE = "circleci/5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const ssoSeed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      slug: STANDALONE,
      groups: [{ name: "platform" }],
      sso_group_mappings: [{ idp_group_name: "okta-platform", group: "platform" }],
    },
  ],
});

interface Case {
  readonly rule: string;
  readonly seed: () => Seed;
  readonly config: string;
  /** What the state holds once applied. */
  readonly applied: (s: Seed) => unknown;
  readonly expected: unknown;
}

const apiOf = (s: Seed) => s.orgs?.[0]?.projects?.find((p) => p.slug === "gh/acme/api");

const RISKY: readonly Case[] = [
  {
    rule: "org-running-disabled",
    seed: baseSeed,
    config: orgSetting("is_running_disabled: true"),
    applied: (s) => s.orgs?.[0]?.settings?.is_running_disabled,
    expected: true,
  },
  {
    rule: "context-group-restriction-off",
    seed: withOrg((org) => ({
      ...org,
      settings: { ...org.settings, is_context_group_restriction_required: true },
    })),
    config: orgSetting("is_context_group_restriction_required: false"),
    applied: (s) => s.orgs?.[0]?.settings?.is_context_group_restriction_required,
    expected: false,
  },
  {
    rule: "fork-pr-secrets",
    seed: baseSeed,
    config: replaceOnce(
      matchingConfig,
      "      enable_auto_cancel_redundant_workflows: false\n",
      "      enable_auto_cancel_redundant_workflows: false\n      can_pass_secrets_to_fork_pr_jobs: true\n",
    ),
    applied: (s) => apiOf(s)?.settings?.can_pass_secrets_to_fork_pr_jobs,
    expected: true,
  },
  {
    rule: "webhook-tls-off",
    seed: baseSeed,
    config: replaceOnce(
      matchingConfig,
      "        events: [workflow-completed]\n",
      "        events: [workflow-completed]\n        should_verify_tls: false\n",
    ),
    applied: (s) => apiOf(s)?.webhooks?.find((w) => w.name === "slack")?.should_verify_tls,
    expected: false,
  },
  {
    rule: "context-all-members-added",
    // The production context had only an expression restriction; the config adds all-members.
    seed: withOrg((org) => ({
      ...org,
      contexts: (org.contexts ?? []).map((c) =>
        c.name === "deploy-prod"
          ? {
              ...c,
              restrictions: (c.restrictions ?? []).filter((r) => r.restriction_type !== "group"),
            }
          : c,
      ),
    })),
    config: matchingConfig,
    applied: (s) =>
      s.orgs?.[0]?.contexts
        ?.find((c) => c.name === "deploy-prod")
        ?.restrictions?.some((r) => r.restriction_type === "group" && r.match_pattern === ORG_ID),
    expected: true,
  },
  {
    rule: "sso-mappings-emptied",
    seed: ssoSeed,
    config: `org: ${STANDALONE}\nsso_group_mappings: []\n`,
    applied: (s) => s.orgs?.[0]?.sso_group_mappings,
    expected: [],
  },
];

/** Ten webhooks on the api project, four of them changed by the config: 40% of 10. */
const TEN = Array.from({ length: 10 }, (_, i) => `w${i}`);
const tenHooksSeed = withApi((p) => ({
  ...p,
  webhooks: TEN.map((name) => ({
    name,
    url: `https://hooks.example.com/${name}`,
    events: ["workflow-completed" as const],
  })),
}));
const tenHooksConfig = (changed: number, guards = "") => `org: gh/acme
projects:
  gh/acme/api:
    webhooks:
${TEN.map((n, i) => `      ${n}: { url: "https://hooks.example.com/${n}", events: [${i < changed ? "job-completed" : "workflow-completed"}] }`).join("\n")}
${guards}`;

/** Two env values differ from the live ones: two secret re-sets. */
const twoResets = (guards: string) => `${matchingConfig}${guards}`;
const twoResetsEnv = {
  ...matchingEnv,
  PROD_AWS_SECRET: "another-prod-aws-secret-value-A1234",
  NPM_TOKEN: "another-npm-token-value-B5678",
};

describe("risky transitions: refused without --allow-risky, applied with it", () => {
  for (const c of RISKY) {
    describe(c.rule, () => {
      const suite = useEmulatorSuite(c.seed, {
        config: { name: "waybill.yaml", content: c.config },
        allowed: { name: "allowed.yaml", content: `${c.config}guards:\n  allow: [${c.rule}]\n` },
      });
      const run = (file: string, ...more: string[]) =>
        runCli(["apply", "-c", file, "--auto-approve", ...more], {
          baseUrl: suite.emulator.url,
          token: suite.emulator.token,
          env: matchingEnv,
        });
      const writes = async () =>
        (await suite.emulator.requests()).filter((q) => q.method !== "GET");

      it("exit 4 and zero writes without the flag; listed first in the plan and in guards.blocked[]", async () => {
        const before = c.applied(await suite.emulator.state());
        expect(before).not.toEqual(c.expected);
        const r = await run(suite.files.config);
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toContain(`--allow-risky ${c.rule}`);
        expect(await writes()).toEqual([]);
        expect(c.applied(await suite.emulator.state())).toEqual(before);
        const plan = await runCli(["plan", "-c", suite.files.config, "--format", "json"], {
          baseUrl: suite.emulator.url,
          token: suite.emulator.token,
          env: matchingEnv,
        });
        const doc = JSON.parse(plan.stdout) as { guards: { blocked?: { rule: string }[] } };
        expect(doc.guards.blocked?.map((b) => b.rule)).toEqual([c.rule]);
        const text = await runCli(["plan", "-c", suite.files.config], {
          baseUrl: suite.emulator.url,
          token: suite.emulator.token,
          env: matchingEnv,
        });
        expect(text.stdout.split("\n")[0]).toMatch(new RegExp(`^Blocked \\(${c.rule}\\): `));
      });

      it("applied with --allow-risky RULE", async () => {
        const r = await run(suite.files.config, "--allow-risky", c.rule);
        expect(r.code, r.stderr).toBe(0);
        expect(c.applied(await suite.emulator.state())).toEqual(c.expected);
      });

      it("applied when the config's guards.allow lists it", async () => {
        const r = await run(suite.files.allowed);
        expect(r.code, r.stderr).toBe(0);
        expect(c.applied(await suite.emulator.state())).toEqual(c.expected);
      });
    });
  }

  it("--allow-risky with an unknown rule is a usage error before any request", async () => {
    const r = await runCli([
      "apply",
      "-c",
      "nowhere.yaml",
      "--auto-approve",
      "--allow-risky",
      "everything",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--allow-risky everything: no such rule/);
  });
});

describe("volume guards: refused without --allow-mass-change, applied with it", () => {
  describe("mass-update: more than 30% of a collection of 10 or more", () => {
    const suite = useEmulatorSuite(tenHooksSeed, {
      four: { name: "four.yaml", content: tenHooksConfig(4) },
      three: { name: "three.yaml", content: tenHooksConfig(3) },
      raised: {
        name: "raised.yaml",
        content: tenHooksConfig(
          4,
          `guards:\n  collections:\n    project["*"].webhooks: { max_update_percent: 50 }\n`,
        ),
      },
      lowered: {
        name: "lowered.yaml",
        content: tenHooksConfig(3, "guards:\n  max_update_percent: 20\n"),
      },
    });
    const run = (file: string, ...more: string[]) =>
      runCli(["apply", "-c", file, "--auto-approve", ...more], {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
      });
    const changedHooks = async () =>
      (apiOf(await suite.emulator.state())?.webhooks ?? []).filter((w) =>
        w.events.includes("job-completed"),
      ).length;
    const writes = async () => (await suite.emulator.requests()).filter((q) => q.method !== "GET");

    it("4 of 10: exit 4, zero writes", async () => {
      const r = await run(suite.files.four);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        'the plan updates or replaces 4 of the 10 items of project["*"].webhooks in gh/acme, more than 30% (--allow-mass-change)',
      );
      expect(await writes()).toEqual([]);
      expect(await changedHooks()).toBe(0);
    });

    it("4 of 10 with --allow-mass-change: applied", async () => {
      const r = await run(suite.files.four, "--allow-mass-change");
      expect(r.code, r.stderr).toBe(0);
      expect(await changedHooks()).toBe(4);
    });

    it("3 of 10 (30%, not more) needs no flag", async () => {
      const r = await run(suite.files.three);
      expect(r.code, r.stderr).toBe(0);
      expect(await changedHooks()).toBe(3);
    });

    it("thresholds per collection and per org under guards:", async () => {
      expect((await run(suite.files.raised)).code).toBe(0);
      await suite.emulator.reset(tenHooksSeed());
      await suite.emulator.clearRequests();
      const lowered = await run(suite.files.lowered);
      expect(lowered.code).toBe(4);
      expect(lowered.stderr).toMatch(/3 of the 10 items .* more than 20%/);
      expect(await writes()).toEqual([]);
    });
  });

  describe("mass-secret-reset: more secret re-sets than guards.max_secret_resets", () => {
    const suite = useEmulatorSuite(baseSeed, {
      one: { name: "one.yaml", content: twoResets("guards:\n  max_secret_resets: 1\n") },
      two: { name: "two.yaml", content: twoResets("guards:\n  max_secret_resets: 2\n") },
    });
    const run = (file: string, ...more: string[]) =>
      runCli(["apply", "-c", file, "--auto-approve", ...more], {
        baseUrl: suite.emulator.url,
        token: suite.emulator.token,
        env: twoResetsEnv,
      });
    const npm = async () => apiOf(await suite.emulator.state())?.env?.NPM_TOKEN;

    it("2 re-sets over a limit of 1: exit 4, zero writes; applied with --allow-mass-change", async () => {
      const r = await run(suite.files.one);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain(
        "the plan re-sets 2 secrets in gh/acme, more than 1 (--allow-mass-change)",
      );
      expect((await suite.emulator.requests()).filter((q) => q.method !== "GET")).toEqual([]);
      expect(await npm()).toBe(matchingEnv.NPM_TOKEN);
      const ok = await run(suite.files.one, "--allow-mass-change");
      expect(ok.code, ok.stderr).toBe(0);
      expect(await npm()).toBe(twoResetsEnv.NPM_TOKEN);
    });

    it("2 re-sets within a limit of 2 need no flag", async () => {
      const r = await run(suite.files.two);
      expect(r.code, r.stderr).toBe(0);
      expect(await npm()).toBe(twoResetsEnv.NPM_TOKEN);
    });
  });
});
