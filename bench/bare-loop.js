// A bare request loop, run as its own process like the CLI (bench/run.js spawns it): reads a
// JSON list of paths on stdin and GETs them against argv[2] (base URL) with argv[3]
// parallel workers through one keep-alive undici Agent, reading and parsing each body.
// No client, config, paging, planner or limiter: what this machine and transport can do at
// all. Prints {"ms": wall time of the loop, "failed": non-200 answers} on stdout.
// The token comes from SERVICE_TOKEN (never from argv, where `ps` would show it).
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent } from "undici";

// The client's own connection settings (keep-alive margin, pool bound), so the loop meets
// the emulator's 1 s keep-alive the way the CLI does (issue 22 §3).
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { agentConnectionOptions } = await import(
  pathToFileURL(join(root, "dist", "api", "agent-options.js")).href
);

const [baseUrl, parallelismArg] = process.argv.slice(2);
const parallelism = Number(parallelismArg);
const token = process.env.SERVICE_TOKEN ?? "";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const paths = JSON.parse(input);
const agent = new Agent(agentConnectionOptions(parallelism));
const origin = new URL(baseUrl).origin;
let next = 0;
let failed = 0;
const worker = async () => {
  while (next < paths.length) {
    const path = paths[next++];
    const res = await agent.request({
      origin,
      path: `/api/v3${path}`,
      method: "GET",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    JSON.parse(await res.body.text());
    if (res.statusCode !== 200) failed++;
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: parallelism }, worker));
const ms = performance.now() - started;
await agent.close();
console.log(JSON.stringify({ ms, failed }));
