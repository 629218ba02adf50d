#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

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
