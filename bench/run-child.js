// Run the CLI through bench/child.js as a child process, as every bench measures it: the
// output, the wall time (and when stdout first spoke and the process exited), and the peak
// RSS and CPU time child.js reports. BENCH_CHILD_NODE_ARGS: Node flags for the CLI's process
// only (a heap snapshot near a heap limit, a CPU profile), not for the bench's own process,
// which runs the emulator.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** `cwd`: the folder the CLI runs in (its usage file is written there); `env`: added to ours. */
export const runChild = (cliArgs, { cwd, env }) =>
  new Promise((resolve, reject) => {
    const usageFile = join(cwd, `usage-${Date.now()}-${Math.random()}.json`);
    const started = performance.now();
    const nodeArgs = process.env.BENCH_CHILD_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...nodeArgs, join(here, "child.js"), ...cliArgs], {
      cwd,
      env: { ...process.env, ...env, BENCH_USAGE_FILE: usageFile, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let firstOutAt;
    child.stdout.on("data", (d) => {
      firstOutAt ??= performance.now();
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      const exitedAt = performance.now();
      const wallMs = exitedAt - started;
      const usage = existsSync(usageFile) ? JSON.parse(readFileSync(usageFile, "utf8")) : {};
      resolve({ code, wallMs, out, err, startedAt: started, firstOutAt, exitedAt, ...usage });
    });
  });
