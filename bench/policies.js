// Issue 45: what 20 policy rules add to the CPU of the 40,000-item bench plan (preset
// `large-org`, the changed config: ~10% of the items updated). The live state is read once
// from an emulator without latency; then, alternately, the planner alone (`planChanges`)
// and the policy step plan and apply add (`evaluatePolicies` of 20 `on: plan` rules over
// the plan's changes, with 5 exceptions, and `blockedGuards`), and the config rules of
// validate (20 `on: config` rules over the 40,000 declared items). Median CPU (user +
// system) of each. Needs `npm run build`.
//
//   node bench/policies.js [--runs N] [--preset NAME]

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateOrg, TOKEN } from "./generate.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => pathToFileURL(join(root, "dist", p)).href;

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    preset: { type: "string", default: "large-org" },
  },
});
const runs = Number(values.runs);

const at = { file: "policies.yaml", line: 1, col: 1 };
/** 20 rules of every kind of condition, on the bench org's shapes. */
const rules = (on) => {
  const base = { level: "warn", on, expect_match: false, source: at };
  const list = [
    ['project["*"].webhook["*"]', { kind: "not_equals", field: "should_verify_tls", value: false }],
    ['project["*"].webhook["*"]', { kind: "equals", field: "is_enabled", value: true }],
    ['project["*"].webhook["*"]', { kind: "matches", field: "url", pattern: "^https://" }],
    ['project["*"].webhook["*"]', { kind: "exists", field: "events" }],
    ['project["*"].webhook["*"]', { kind: "in", field: "scope", values: ["project"] }],
    ['project["*"].env["*"]', { kind: "exists", field: "value" }],
    ['project["*"].env["AWS_*"]', { kind: "absent", field: "value" }],
    ['context["*"]', { kind: "count", of: "env", max: 50 }],
    ['context["prod-*"]', { kind: "count", of: "restriction", min: 1 }],
    ['context["*"].env["*"]', { kind: "exists", field: "value" }],
    ['context["*"].restriction["*"]', { kind: "absent", field: "nothing" }],
    [
      'project["*"].settings',
      { kind: "not_equals", field: "can_pass_secrets_to_fork_pr_jobs", value: true },
    ],
    ['project["*"].pipeline["*"]', { kind: "exists", field: "config" }],
    [
      'project["*"].pipeline["*"].trigger["*"]',
      { kind: "not_equals", field: "is_disabled", value: true },
    ],
    ['project["p0*"]', { kind: "count", of: "webhook", max: 25 }],
    ["org_settings", { kind: "not_equals", field: "is_running_disabled", value: true }],
    ['context["ctx-9*"]', { kind: "none" }, ["delete"]],
    ['project["*"].webhook["*"]', { kind: "none" }, ["delete", "replace"]],
    ['project["*"].webhook["*"]', { kind: "none" }, undefined, ["should_verify_tls"]],
    ['context["*"].env["*"]', { kind: "none" }, ["create"]],
  ];
  return list.map(([address, condition, actions, changed], i) => ({
    ...base,
    id: `r${i}`,
    address,
    condition,
    ...(on === "plan" && actions ? { actions } : {}),
    ...(on === "plan" && changed ? { changed } : {}),
  }));
};
const exceptions = Array.from({ length: 5 }, (_, i) => ({
  rule: `r${i}`,
  address: `project["p00${i}"]`,
  reason: "bench",
  expires: "2999-12-31",
  source: at,
}));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpu = (f) => {
  const before = process.cpuUsage();
  const out = f();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, out };
};

const { startEmulator } = await import(dist("emulator/index.js"));
const { loadConfig } = await import(dist("config/index.js"));
const { createApiClient } = await import(dist("api/client.js"));
const { readLiveState } = await import(dist("live/read-live-state.js"));
const { planChanges } = await import(dist("plan/plan.js"));
const { evaluatePolicies } = await import(dist("policy/evaluate.js"));
const { blockedGuards } = await import(dist("policy/guards.js"));
const { configSubjects, planSubjects } = await import(dist("policy/subjects.js"));

const gen = generateOrg(values.preset);
const dir = mkdtempSync(join(tmpdir(), "waybill-policies-"));
const emu = await startEmulator({ seed: gen.seed });
try {
  // A folder of files: the large-org config (3.7 MB) is over the loader's 1 MiB per file.
  const path = join(dir, "changed");
  mkdirSync(path);
  for (const f of gen.changedConfigFiles) writeFileSync(join(path, f.name), f.text);
  const loaded = await loadConfig(path, { env: gen.secrets, resolveSecrets: true });
  if (!loaded.ok) throw new Error(`config invalid: ${JSON.stringify(loaded.diagnostics[0])}`);
  const api = createApiClient({ baseUrl: emu.url, token: TOKEN, maxConcurrentRequests: 32 });
  const live = await readLiveState(api.readOnly(), loaded.config);
  await api.close();
  const plannerMs = [];
  const planPolicyMs = [];
  const configPolicyMs = [];
  let changes = 0;
  let violations = 0;
  let declared = 0;
  for (let i = 0; i < runs; i++) {
    const p = cpu(() => planChanges(loaded.config, live, {}));
    plannerMs.push(p.ms);
    changes = p.out.changes.length;
    const e = cpu(() => {
      const v = evaluatePolicies({
        on: "plan",
        rules: rules("plan"),
        exceptions,
        subjects: planSubjects(p.out.changes),
        today: "2026-11-28",
      });
      blockedGuards(p.out, live, loaded.config);
      return v;
    });
    planPolicyMs.push(e.ms);
    violations = e.out.length;
    const c = cpu(() => {
      const subjects = configSubjects(loaded.config);
      declared = subjects.length;
      return evaluatePolicies({
        on: "config",
        rules: rules("config"),
        exceptions,
        subjects,
        today: "2026-11-28",
      });
    });
    configPolicyMs.push(c.ms);
  }
  const planner = median(plannerMs);
  const plan = median(planPolicyMs);
  const config = median(configPolicyMs);
  console.log(
    JSON.stringify(
      {
        preset: values.preset,
        runs,
        changes,
        declared_items: declared,
        plan_violations: violations,
        planner_cpu_ms: Math.round(planner),
        plan_policies_cpu_ms: Math.round(plan),
        plan_policies_share_of_planner: Number((plan / planner).toFixed(3)),
        config_policies_cpu_ms: Math.round(config),
      },
      null,
      2,
    ),
  );
} finally {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
}
