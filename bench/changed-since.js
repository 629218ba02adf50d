// `node bench/changed-since.js [--preset large-org] [--latency 20] [--parallelism 10]`
//
// design.md §5 "Scoped plans and the reviewed plan" (issue 44): the cost of a pull request's
// plan. The preset's config is committed in a temporary git repository (tag `base`), then
//   1. one webhook's events are changed in one file: `plan --changed-since base` reads and
//      plans only that webhook's project (target ≤ 30 requests, ≤ 2 s at 20 ms latency);
//   2. a template that every project `extends` is edited: the plan falls back to a full plan
//      and says why (one run: it reads the whole org).
// Prints one `figures` line per run: wall, requests, peak RSS, CPU, and the 1-minute load.
// Not part of npm test; `npm run build` first (it runs dist/ through bench/child.js).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateOrg, TOKEN } from "./generate.js";
import { runChild } from "./run-child.js";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "dist");
if (!existsSync(join(dist, "emulator", "index.js"))) {
  console.error("bench: dist/ is missing; run `npm run build` first.");
  process.exit(1);
}
const { startEmulator } = await import(pathToFileURL(join(dist, "emulator", "index.js")).href);
const { values: args } = parseArgs({
  options: {
    preset: { type: "string", default: "large-org" },
    latency: { type: "string", default: "20" },
    parallelism: { type: "string", default: "10" },
    only: { type: "string", default: "one-webhook,template" },
  },
});
const latency = Number(args.latency);
const only = new Set(args.only.split(","));
const gen = generateOrg(args.preset);
const work = mkdtempSync(join(tmpdir(), "waybill-bench-since-"));

const git = (cwd, ...a) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...a], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });

/** A repository holding the preset's config folder (and `extra` files), tagged `base`. */
const repo = (name, edit = (files) => files) => {
  const dir = join(work, name);
  const cfg = join(dir, "waybill");
  mkdirSync(cfg, { recursive: true });
  for (const f of edit(gen.configFiles)) writeFileSync(join(cfg, f.name), f.text);
  git(dir, "init", "-q");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "base");
  git(dir, "tag", "base");
  return cfg;
};

const runCli = (url, cliArgs) =>
  runChild(cliArgs, {
    cwd: work,
    env: { ...gen.secrets, SERVICE_BASE_URL: url, SERVICE_TOKEN: TOKEN },
  });

const measure = async (name, cfg, expect) => {
  const emu = await startEmulator({ seed: gen.seed, admin: true, faults: { latency_ms: latency } });
  try {
    const r = await runCli(emu.url, [
      "plan",
      "-c",
      cfg,
      "--changed-since",
      "base",
      "--format",
      "json",
      "--parallelism",
      args.parallelism,
    ]);
    const { requests } = await (await fetch(`${emu.url}/__admin/requests`)).json();
    if (r.code !== 0) throw new Error(`${name}: exit ${r.code}\n${r.err.slice(-2000)}`);
    const plan = JSON.parse(r.out);
    const load = loadavg()[0];
    console.log(`## ${name}`);
    console.log(
      `  scope           ${plan.scope === undefined ? "none (full plan)" : `${plan.scope.addresses.length} of ${plan.scope.total} addresses`}; ${plan.changes.length} change(s)`,
    );
    if (plan.scope === undefined) console.log(`  reason          ${plan.warnings[0]}`);
    console.log(
      `  figures         wall ${r.wallMs.toFixed(0)} ms | requests ${requests.length} | CPU ${r.cpuMs?.toFixed(0)} ms | RSS ${((r.maxRssBytes ?? Number.NaN) / 2 ** 20).toFixed(0)} MB | load ${load.toFixed(2)}`,
    );
    console.log(`  expected        ${expect(plan, requests.length, r.wallMs)}\n`);
  } finally {
    await emu.close();
  }
};

console.log(
  `changed-since bench — preset ${args.preset}, latency ${latency} ms, parallelism ${args.parallelism}, node ${process.version}\n`,
);
try {
  if (only.has("one-webhook")) {
    const cfg = repo("one-webhook");
    // The first webhook of the first file: its events, nothing else.
    const file = join(cfg, "part-00.yaml");
    const text = readFileSync(file, "utf8");
    const at = text.indexOf("        events: [");
    const end = text.indexOf("\n", at);
    writeFileSync(
      file,
      `${text.slice(0, at)}        events: [workflow-completed, job-completed]${text.slice(end)}`,
    );
    await measure("one webhook changed, plan --changed-since base", cfg, (plan, n, wall) =>
      [
        `one change: ${plan.changes.length === 1 ? "yes" : "NO"}`,
        `≤ 30 requests: ${n <= 30 ? "yes" : "NO"}`,
        `≤ 2 s: ${wall <= 2000 ? "yes" : "NO"}`,
      ].join(", "),
    );
  }
  if (only.has("template")) {
    // Every project `extends` one template that adds an env var; the edit changes where
    // its value comes from, which reaches every project.
    const withTemplate = (value) => (files) => [
      {
        name: "00-templates.yaml",
        text: `org: gh/bench\ntemplates:\n  projects:\n    common:\n      env:\n        FROM_TEMPLATE: \${env:${value}}\n`,
      },
      ...files.map((f) => ({
        ...f,
        text: f.text.replace(/^( {2}gh\/bench\/p\d+:)$/gm, "$1\n    extends: [common]"),
      })),
    ];
    const cfg = repo("template", withTemplate("BENCH_SECRET_00"));
    writeFileSync(join(cfg, "00-templates.yaml"), withTemplate("BENCH_SECRET_01")([])[0].text);
    await measure(
      "a template every project extends, edited",
      cfg,
      (plan) =>
        `a full plan with the reason: ${plan.scope === undefined && /the change since base reaches/.test(plan.warnings[0] ?? "") ? "yes" : "NO"}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
