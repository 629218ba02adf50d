// The plan digest's config half (issue 44): `planConfigDigest` of a preset's config, the
// canonical text of every org hashed once per run, before the plan's first request
// (src/run/plan-run.ts). Figures: CPU and wall of each call in one process; the first call
// is the one a CLI run pays (once, cold), the later ones the warmed-up cost.
//
//   npm run build && node bench/digest.js [--preset large-org] [--runs 7]

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateOrg } from "./generate.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => pathToFileURL(join(root, "dist", p)).href;
const { values } = parseArgs({
  options: {
    preset: { type: "string", default: "large-org" },
    runs: { type: "string", default: "7" },
  },
});
const { loadConfigOrThrow } = await import(dist("config/load.js"));
const { planConfigDigest } = await import(dist("plan/digest.js"));

const gen = generateOrg(values.preset);
const work = mkdtempSync(join(tmpdir(), "waybill-digest-bench-"));
try {
  mkdirSync(join(work, "config"));
  const files = gen.configFiles ?? [{ name: "waybill.yaml", text: gen.configYaml }];
  for (const f of files) writeFileSync(join(work, "config", f.name), f.text);
  const desired = await loadConfigOrThrow(join(work, "config"), {
    env: { ...process.env, ...gen.secrets },
  });
  const cpu = [];
  const wall = [];
  let digest = "";
  for (let i = 0; i < Number(values.runs); i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    digest = planConfigDigest(desired.orgs);
    const c = process.cpuUsage(c0);
    wall.push(Math.round(performance.now() - t0));
    cpu.push(Math.round((c.user + c.system) / 1000));
  }
  const later = cpu.slice(1).sort((a, b) => a - b);
  console.log(`planConfigDigest, preset ${values.preset} (digest ${digest.slice(0, 16)}…)`);
  console.log(`  first call   ${cpu[0]} ms CPU, ${wall[0]} ms wall (what a CLI run pays)`);
  console.log(
    `  later calls  ${later.join(", ")} ms CPU (median ${later[Math.floor(later.length / 2)] ?? "-"})`,
  );
  console.log(`  load average ${(await import("node:os")).loadavg()[0].toFixed(2)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
