#!/usr/bin/env node
/**
 * Build dist/ only when it is missing or older than what it is built from (src/, schemas/,
 * the tsconfig files, package.json). `npm run demo` runs this instead of `npm run build`:
 * after `npm ci` (whose `prepare` just built) the demo starts at once instead of building a
 * second time, and after an edit under src/ it still builds first.
 *
 * Decision: file modification times, as make does. A checkout or a pull that changes a
 * source file gives it a new mtime, so dist/ is then older and is rebuilt.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUTPUT = join(ROOT, "dist", "cli", "main.js");
const INPUTS = [
  "src",
  "emulator",
  "schemas",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
];

const newest = (path) => {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let max = info.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
};

const built = (() => {
  try {
    return statSync(OUTPUT).mtimeMs;
  } catch {
    return undefined;
  }
})();
const source = Math.max(...INPUTS.map((p) => newest(join(ROOT, p))));
if (built === undefined || built < source) {
  console.error(built === undefined ? "dist/ is missing: building" : "src/ changed: building");
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
}
