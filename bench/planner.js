// The planner alone (issue 8 target: planning 5,000 items ≤ 1 s of CPU). The live state is
// read once from an emulator without latency, then src/plan's planChanges runs on it
// several times; the figure is the median CPU time (user + system) of one run.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateOrg } from "./generate.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => pathToFileURL(join(root, "dist", p)).href;

export const plannerCpu = async (startEmulator, token, presetName = "xl", runs = 5) => {
  const { loadConfig } = await import(dist("config/index.js"));
  const { createApiClient } = await import(dist("api/client.js"));
  const { readLiveState } = await import(dist("live/read-live-state.js"));
  const { planChanges } = await import(dist("plan/plan.js"));
  const gen = generateOrg(presetName);
  const dir = mkdtempSync(join(tmpdir(), "waybill-planner-"));
  const emu = await startEmulator({ seed: gen.seed });
  try {
    // The changed config, so the planner builds updates as well as comparing.
    const path = join(dir, "waybill.yaml");
    writeFileSync(path, gen.changedConfigYaml);
    const loaded = await loadConfig(path, { env: gen.secrets, resolveSecrets: true });
    if (!loaded.ok)
      throw new Error(`planner bench: config invalid: ${JSON.stringify(loaded.diagnostics[0])}`);
    const api = createApiClient({ baseUrl: emu.url, token, maxConcurrentRequests: 32 });
    const live = await readLiveState(api.readOnly(), loaded.config);
    await api.close();
    const times = [];
    let changes = 0;
    for (let i = 0; i < runs; i++) {
      const before = process.cpuUsage();
      const plan = planChanges(loaded.config, live, {});
      const used = process.cpuUsage(before);
      times.push((used.user + used.system) / 1000);
      changes = plan.changes.length;
    }
    times.sort((a, b) => a - b);
    const items = Object.values(gen.counts).reduce((a, b) => a + b, 0);
    return { items, cpuMs: times[Math.floor(times.length / 2)], runs, changes };
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
