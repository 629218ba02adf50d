// Runs the CLI (bin/waybill.js) in this process and, when it exits, writes its resource use
// as JSON to the file named by BENCH_USAGE_FILE: peak RSS (bytes) and CPU time (ms).
// process.resourceUsage().maxRSS is in kilobytes (Node docs).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const usageFile = process.env.BENCH_USAGE_FILE;
process.on("exit", () => {
  if (!usageFile) return;
  const u = process.resourceUsage();
  writeFileSync(
    usageFile,
    JSON.stringify({
      maxRssBytes: u.maxRSS * 1024,
      cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000,
    }),
  );
});

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "waybill.js");
// bin/waybill.js reads process.argv: drop this wrapper's own path so it sees the CLI's args.
process.argv = [process.argv[0], bin, ...process.argv.slice(2)];
await import(pathToFileURL(bin).href);
