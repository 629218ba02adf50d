/**
 * What stops an apply before it writes (issue 5 "Done when"): a non-TTY apply without
 * --auto-approve, the mass-delete guard (exit 4), a stale saved plan (exit 3), a saved plan
 * for another service; and a saved plan that still matches is applied.
 */
import { readFile, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { createApiClient } from "../../src/api/client.js";
import { indexDesired } from "../../src/apply/desired-index.js";
import { savedPlanMeta, writeSavedPlan } from "../../src/apply/saved-plan.js";
import { configDigest } from "../../src/config/digest.js";
import { loadConfigOrThrow } from "../../src/config/index.js";
import { runPlan } from "../../src/run/plan-run.js";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, configWrites, contextNames, createConfig } from "./apply-fixture.js";
import {
  ALL_SECRETS,
  baseSeed,
  matchingConfig,
  matchingEnv,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

/** The base seed plus four contexts the matching config does not list (mass delete). */
const crowdedSeed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  return {
    ...s,
    orgs: [
      {
        ...org,
        contexts: [
          ...(org.contexts ?? []),
          ...[1, 2, 3, 4].map((n) => ({ name: `extra-${n}`, env: { K: `extra-value-${n}-xxxx` } })),
        ],
      },
      ...rest,
    ],
  };
};

/** The base seed with four signed webhooks on the api project (and no others). */
const HOOKS = ["h0", "h1", "h2", "h3"];
const signedHooksSeed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (!org) throw new Error("no org in the seed");
  const projects = (org.projects ?? []).map((p) =>
    p.slug === "gh/acme/api"
      ? {
          ...p,
          webhooks: HOOKS.map((name) => ({
            name,
            url: `https://hooks.example.com/${name}`,
            events: ["workflow-completed" as const],
            signing_secret: `signing-secret-of-${name}-xxxx`,
          })),
        }
      : p,
  );
  return { ...s, orgs: [{ ...org, projects }, ...rest] };
};

/** The same four webhooks without their signing secret: a stored one is removed by a replace. */
const unsignedHooksConfig = `org: gh/acme
projects:
  gh/acme/api:
    webhooks:
${HOOKS.map((n) => `      ${n}: { url: "https://hooks.example.com/${n}", events: [workflow-completed] }`).join("\n")}
`;

describe("waybill apply: approval, guards, saved plans", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
    matchingPath: { name: "matching.yaml", content: matchingConfig },
    unsignedHooks: { name: "unsigned-hooks.yaml", content: unsignedHooksConfig },
  });

  const run = (args: string[], env: Readonly<Record<string, string>> = applyEnv) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env });

  /** `plan --out` as the plan command will do it (src/apply/saved-plan.ts writeSavedPlan). */
  const savePlan = async (configPath: string, out: string, baseUrl = suite.emulator.url) => {
    const desired = await loadConfigOrThrow(configPath, { env: applyEnv, resolveSecrets: true });
    const api = createApiClient({ baseUrl: suite.emulator.url, token: suite.emulator.token });
    try {
      const { plan, live } = await runPlan(api.readOnly(), desired, {});
      await writeSavedPlan(
        out,
        plan,
        savedPlanMeta({
          version: "test",
          baseUrl,
          configDigest: configDigest(desired),
          live,
          plan,
          desired: indexDesired(desired),
        }),
      );
      return plan;
    } finally {
      await api.close();
    }
  };

  it("refuses a non-TTY apply without --auto-approve before any request", async () => {
    const r = await run(["apply", "-c", suite.files.createPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--auto-approve/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("blocks a mass delete with exit 4 and no write, unless --allow-mass-delete", async () => {
    await suite.emulator.reset(crowdedSeed());
    await suite.emulator.clearRequests();
    const contextsBefore = contextNames(await suite.emulator.state());
    const r = await run(["apply", "-c", suite.files.matchingPath, "--auto-approve"], matchingEnv);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/--allow-mass-delete/);
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    expect(contextNames(await suite.emulator.state())).toEqual(contextsBefore);

    const ok = await run(
      ["apply", "-c", suite.files.matchingPath, "--auto-approve", "--allow-mass-delete"],
      matchingEnv,
    );
    expect(ok.code, ok.stderr).toBe(0);
    const names = (await suite.emulator.state()).orgs?.[0]?.contexts?.map((c) => c.name).sort();
    expect(names).toEqual(["deploy-prod", "legacy-build", "stale"]);
  });

  it("counts replaces in the mass-delete guard: re-creating 4 of 4 webhooks needs the flag", async () => {
    // Issue 28: a replace destroys the live item (its id, its signing secret) as a delete
    // does; re-creating every webhook of a project needed no flag.
    await suite.emulator.reset(signedHooksSeed());
    await suite.emulator.clearRequests();
    const r = await run(["apply", "-c", suite.files.unsignedHooks, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/--allow-mass-delete/);
    expect(r.stderr).toMatch(/\(4 of 4, each re-created \(a replace deletes the live item\)\)/);
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    const ok = await run([
      "apply",
      "-c",
      suite.files.unsignedHooks,
      "--auto-approve",
      "--allow-mass-delete",
    ]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("applies a saved plan that still matches; the file is 0600 and holds no secret", async () => {
    const file = suite.tmp.path("plan-ok.json");
    await savePlan(suite.files.createPath, file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, "utf8");
    expectNoSecrets({ saved: text }, ALL_SECRETS);
    const saved = JSON.parse(text) as { saved_plan_format: number; orgs: unknown[] };
    expect(saved.saved_plan_format).toBe(1);

    // No --auto-approve: a reviewed plan file is the approval.
    const r = await run(["apply", "-c", suite.files.createPath, file]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toContain("the plan was saved by Waybill test");
    const again = await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"]);
    expect(again.code).toBe(0);
  });

  it("refuses a stale saved plan with exit 3 and shows the difference, before any write", async () => {
    const file = suite.tmp.path("plan-stale.json");
    await savePlan(suite.files.createPath, file);
    // Someone edits the service by hand after the plan was saved.
    const edit = await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://hooks.example.com/services/EDITED",
    });
    expect(edit.status).toBe(200);
    await suite.emulator.clearRequests();
    const contextsBefore = contextNames(await suite.emulator.state());
    const r = await run(["apply", "-c", suite.files.createPath, file]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('project["gh/acme/api"].webhook["slack"]');
    expect(r.stderr).toMatch(/stale/);
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    expect(contextNames(await suite.emulator.state())).toEqual(contextsBefore);
  });

  it("refuses a saved plan made for another service", async () => {
    const file = suite.tmp.path("plan-other.json");
    await savePlan(suite.files.createPath, file, "https://other.example.com");
    const contextsBefore = contextNames(await suite.emulator.state());
    const r = await run(["apply", "-c", suite.files.createPath, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("https://other.example.com");
    expect(configWrites(await suite.emulator.requests())).toEqual([]);
    expect(contextNames(await suite.emulator.state())).toEqual(contextsBefore);
  });
});
