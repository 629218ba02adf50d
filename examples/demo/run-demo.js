// Placeholder: the full demo (issue 9) starts the emulator and runs validate, plan, apply
// and drift. Until then it proves the CLI starts.
import { spawnSync } from "node:child_process";

const r = spawnSync(process.execPath, ["bin/waybill.js", "--help"], { stdio: "inherit" });
process.exit(r.status ?? 1);
