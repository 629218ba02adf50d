#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { main } from "../dist/cli/main.js";

// Issue 33 (memory): V8 lets the heap grow to a multiple of what a full collection leaves
// alive (up to ~4× when the program allocates fast) before it collects again, and rarely
// gives pages back. Waybill runs once and exits; at 2,000 projects that multiple, not what
// it keeps, was most of its peak RSS. 1.6× keeps the peak near the live state (quiet
// machine, bench/README.md "Issue 33"): plan 336 -> 270 MB, apply from empty 441 MB at 2×
// -> 368 MB, for ~2–3 s more GC CPU in 12–16. V8 reads the flag at each collection (its
// heap controller), so setting it here, before any work, is enough.
setFlagsFromString("--heap-growing-percent=60");

// `waybill plan | head`: the reader went away. Stop quietly, as other Unix tools do,
// instead of crashing with an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv, {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
