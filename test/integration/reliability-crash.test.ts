/**
 * Issue 7, crash and resume: a large apply (contexts with variables, webhooks, pipelines
 * with triggers, and three deletes) is killed with SIGKILL at seeded random points, eight
 * times in a row, each kill landing in a re-run of the one before. After every kill nothing
 * the config keeps is gone; at the end one more run converges: no duplicate, the plan is
 * empty, and exactly the items the config dropped were deleted.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prng } from "../../src/emulator/faults.js";
import type { Seed } from "../../src/emulator/seed.js";
import { CLI_BIN, makeTempDir, REPO_ROOT, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { duplicates } from "./apply-fixture.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000cc";
const REPO = { provider: "github_app", repo_id: "77", repo_full_name: "crash/app" };
const NEW_CONTEXTS = 30;
const PROJECTS = 3;

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/crash",
      name: "crash",
      default_context_restriction: false,
      contexts: [
        ...[0, 1, 2, 3].map((i) => ({ name: `keep-${i}`, env: { KEPT: `kept-value-${i}-xxxx` } })),
        ...[0, 1, 2].map((i) => ({ name: `drop-${i}`, env: { GONE: `gone-value-${i}-xxxx` } })),
      ],
      projects: Array.from({ length: PROJECTS }, (_, p) => ({
        slug: `app${p}`,
        repo: REPO,
        webhooks: [
          {
            name: "kept-hook",
            url: "https://kept.example.com/hook",
            events: ["workflow-completed"],
          },
        ],
      })),
    },
  ],
});

const config = (): string => {
  const lines = ["org: gh/crash", "contexts:"];
  for (let i = 0; i < 4; i++)
    lines.push(`  keep-${i}:`, "    env:", `      KEPT: kept-value-${i}-xxxx`);
  for (let c = 0; c < NEW_CONTEXTS; c++) {
    lines.push(`  new-${c}:`, "    env:");
    for (let v = 0; v < 4; v++) lines.push(`      VAR_${v}: new-value-${c}-${v}`);
  }
  lines.push("projects:");
  for (let p = 0; p < PROJECTS; p++) {
    lines.push(`  gh/crash/app${p}:`, "    webhooks:");
    lines.push(
      "      kept-hook:",
      "        url: https://kept.example.com/hook",
      "        events: [workflow-completed]",
    );
    for (let w = 0; w < 8; w++) {
      lines.push(
        `      hook-${w}:`,
        `        url: https://hooks.example.com/${p}/${w}`,
        "        events: [job-completed]",
      );
    }
    lines.push("    pipelines:");
    for (let l = 0; l < 2; l++) {
      lines.push(
        `      pipe-${l}:`,
        "        config:",
        "          type: vcs",
        `          file_path: .service/p${l}.yml`,
        `          vcs: { provider: github_app, repo_id: "77", repo_full_name: crash/app }`,
        "        triggers:",
      );
      for (let t = 0; t < 3; t++) {
        lines.push(
          `          nightly-${t}:`,
          "            event:",
          "              type: schedule",
          `              schedule: { cron_expression: "${t} 2 * * *", attribution_actor: system }`,
          "            config: { ref: main }",
          "            checkout: { ref: main }",
        );
      }
    }
  }
  return `${lines.join("\n")}\n`;
};

describe("apply killed with SIGKILL at random points, again and again", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let configPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(seed(), { faults: { latency_ms: 3 } });
    tmp = await makeTempDir();
    configPath = await tmp.write("waybill.yaml", config());
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  /** Start an apply; kill it with SIGKILL after `afterLines` finished operations. */
  const applyAndKill = (afterLines: number): Promise<{ killed: boolean; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [CLI_BIN, "apply", "-c", configPath, "--auto-approve", "--allow-mass-delete"],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? tmpdir(),
            NO_COLOR: "1",
            SERVICE_BASE_URL: emulator.url,
            SERVICE_TOKEN: emulator.token,
          },
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stderr = "";
      let killed = false;
      child.stdout.resume();
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString("utf8");
        const done = (stderr.match(/: (created|adopted|updated|deleted|replaced) in /g) ?? [])
          .length;
        if (!killed && done >= afterLines) {
          killed = true;
          child.kill("SIGKILL");
        }
      });
      const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
      child.on("close", () => {
        clearTimeout(guard);
        resolve({ killed, stderr });
      });
      child.stdin.end();
    });

  const keptIntact = (s: Seed): string[] => {
    const org = s.orgs?.[0];
    const missing: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = org?.contexts?.find((x) => x.name === `keep-${i}`);
      if (c?.env?.KEPT !== `kept-value-${i}-xxxx`) missing.push(`keep-${i}`);
    }
    for (const p of org?.projects ?? [])
      if (!p.webhooks?.some((w) => w.name === "kept-hook")) missing.push(`${p.slug} kept-hook`);
    return missing;
  };

  it("eight kills, then one run converges with no duplicate and only the dropped items deleted", async () => {
    const rand = prng(20261122);
    let kills = 0;
    for (let i = 0; i < 8; i++) {
      // Somewhere in the first ~60 operations of this run (0: during the plan itself).
      const r = await applyAndKill(Math.floor(rand() * 60));
      if (r.killed) kills++;
      const state = await emulator.state();
      expect(keptIntact(state), `after kill ${i + 1}`).toEqual([]);
      expect(duplicates(state), `after kill ${i + 1}`).toEqual([]);
    }
    expect(kills, "the kills must land before the apply finishes").toBeGreaterThanOrEqual(4);

    const last = await runCli(
      ["apply", "-c", configPath, "--auto-approve", "--allow-mass-delete"],
      {
        baseUrl: emulator.url,
        token: emulator.token,
        timeoutMs: 40_000,
      },
    );
    expect(last.code, last.stderr.slice(-2000)).toBe(0);
    const plan = await runCli(["plan", "-c", configPath, "--detailed-exitcode"], {
      baseUrl: emulator.url,
      token: emulator.token,
    });
    expect(plan.code, plan.stdout).toBe(0);

    const state = await emulator.state();
    expect(duplicates(state)).toEqual([]);
    expect(keptIntact(state)).toEqual([]);
    const org = state.orgs?.[0];
    const names = (org?.contexts ?? []).map((c) => c.name).sort();
    expect(names).toEqual(
      [
        ...[0, 1, 2, 3].map((i) => `keep-${i}`),
        ...Array.from({ length: NEW_CONTEXTS }, (_, c) => `new-${c}`),
      ].sort(),
    );
    for (const p of org?.projects ?? []) {
      expect(p.webhooks?.length).toBe(9);
      expect(p.pipelines?.map((x) => x.triggers?.length)).toEqual([3, 3]);
    }
    // Every create was sent exactly once or recovered by a re-list: one webhook per name.
    const log = await emulator.requests();
    const hookCreates = log.filter(
      (e) => e.method === "POST" && e.path === "/api/v3/webhooks" && e.status < 300,
    );
    expect(hookCreates.length).toBe(PROJECTS * 8);
  }, 110_000);
});
