// Where a CLI run's memory goes, phase by phase (issue 44: apply's peak RSS). Loaded into the
// CLI's process only, through run.js's BENCH_CHILD_NODE_ARGS:
//
//   BENCH_CHILD_NODE_ARGS="--expose-gc --import $PWD/bench/heap-probe.js" \
//     node bench/run.js --preset large-org --only apply --parallelism 10 --no-baseline
//
// It appends a line to HEAP_PROBE_FILE (default heap-probe-<pid>.log in the temp folder) at
// each progress line the CLI writes to stderr (not the per-operation ones) and every
// HEAP_PROBE_MS (default 3000; 0: only at the lines): RSS and heap used as found, then the
// heap left after a full collection (`live`: what the run keeps; needs --expose-gc), and the
// highest RSS seen by a 100 ms sampler. A peak inside one synchronous step (no timer runs
// there) shows as heap used far above `live` on the line after it. The collections it forces
// change when V8 collects, so judge peak RSS on a run without it; add --trace-gc to see
// every collection's sizes on the CLI's stdout.
import { appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const file = process.env.HEAP_PROBE_FILE ?? join(tmpdir(), `heap-probe-${process.pid}.log`);
const every = Number(process.env.HEAP_PROBE_MS ?? 3000);
const t0 = performance.now();
const mb = (n) => (n / 1048576).toFixed(0);
const seconds = () => ((performance.now() - t0) / 1000).toFixed(1);
let peak = 0;
let peakAt = "0";
const track = (rss) => {
  if (rss > peak) {
    peak = rss;
    peakAt = seconds();
  }
};
setInterval(() => track(process.memoryUsage.rss()), 100).unref();

const sample = (tag) => {
  const found = process.memoryUsage();
  track(found.rss);
  let live = "-";
  if (typeof globalThis.gc === "function") {
    globalThis.gc();
    live = mb(process.memoryUsage().heapUsed);
  }
  appendFileSync(
    file,
    `${seconds()} s  rss ${mb(found.rss)}  heap used ${mb(found.heapUsed)} of ${mb(found.heapTotal)}  live ${live}  peak rss ${mb(peak)} at ${peakAt} s  ${tag}\n`,
  );
};
if (every > 0) setInterval(() => sample(""), every).unref();

// A progress line (not an operation's `address: created in …` line, not a `\r` update).
const write = process.stderr.write.bind(process.stderr);
let last = "";
process.stderr.write = (chunk, ...rest) => {
  const text = String(chunk);
  const line = text.split("\n")[0].slice(0, 80);
  if (!/"\]: |^\r|^\s*$/.test(text) && line !== last) {
    last = line;
    sample(`| ${line}`);
  }
  return write(chunk, ...rest);
};
process.on("exit", () => sample("| exit"));
