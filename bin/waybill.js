#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

main(process.argv, {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
