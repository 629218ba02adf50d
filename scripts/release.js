#!/usr/bin/env node
/**
 * `npm run release` (issue 20; design.md §3 "Distribution and integration"): the release
 * artifacts, in release/ (git-ignored):
 *
 *   waybill-<version>.tgz   `npm pack` of this checkout, after one `npm run build`;
 *                           install it with `npm install --global ./waybill-<version>.tgz`
 *   waybill.mjs             one file that runs with plain `node` and no node_modules:
 *                           dist/ and the runtime dependencies bundled by esbuild
 *   SHA256SUMS              sha256 of both, in `sha256sum --check` format
 *
 *   node scripts/release.js [--out DIR] [--skip-build]
 *
 * `--skip-build` uses dist/ as it is (CI, right after `npm ci` built it): one build per run.
 *
 * The bundle is made from dist/ (the same JavaScript the tarball ships), not from src/.
 * Three things the bundler cannot see through are rewritten for it, and only for it:
 *   - `createRequire(import.meta.url)` then `require("pkg")`: the lazy loads of `yaml`,
 *     undici's Agent and ajv's runtime helpers (they stay lazy in the bundle: esbuild wraps
 *     CommonJS modules in functions called on first require);
 *   - `readFileSync(new URL("../../x.json", import.meta.url))`: package.json (the version)
 *     and the config schema, inlined as text;
 *   - Node built-ins required from bundled CommonJS code: a `require` made with
 *     createRequire is put in scope by the banner, for built-ins only.
 * The bundle test (test/integration/release.test.ts) runs the file from an empty folder.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** The loader plugin: the three rewrites described at the top, on dist/ files only. */
const bundleFriendly = {
  name: "waybill-bundle-friendly",
  setup(b) {
    const dist = join(ROOT, "dist");
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist)) return undefined;
      let text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return { contents: text, loader: "js" };
      text = text
        .replace(/^const require = createRequire\(import\.meta\.url\);$/m, "")
        .replace(/^\s*const require = createRequire\(import\.meta\.url\);$/m, "")
        .replace(/createRequire\(import\.meta\.url\)\(/g, "require(")
        .replace(
          /readFileSync\(new URL\("([^"]+\.json)", import\.meta\.url\), "utf8"\)/g,
          (_m, rel) =>
            JSON.stringify(readFileSync(resolve(dirname(args.path), rel), "utf8").trim()),
        );
      if (text.includes("import.meta.url")) {
        throw new Error(
          `${relative(ROOT, args.path)} still uses import.meta.url after the bundle rewrites; teach scripts/release.js about it`,
        );
      }
      return { contents: text, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

export const bundle = async (outfile) => {
  await build({
    entryPoints: [join(ROOT, "bin", "waybill.js")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    // Error classes name themselves from their constructor (src/core/errors.ts).
    keepNames: true,
    legalComments: "eof",
    banner: {
      js: 'import { createRequire as __waybillCreateRequire } from "node:module";\nconst require = __waybillCreateRequire(import.meta.url);',
    },
    plugins: [bundleFriendly],
    logLevel: "warning",
  });
};

const main = async () => {
  const { values } = parseArgs({
    options: { out: { type: "string" }, "skip-build": { type: "boolean" } },
  });
  const OUT = resolve(values.out ?? join(ROOT, "release"));
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  if (!values["skip-build"]) execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  // --ignore-scripts: `prepare` would build a second time.
  execFileSync("npm", ["pack", "--ignore-scripts", "--loglevel=warn", "--pack-destination", OUT], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const tgz = join(OUT, `waybill-${pkg.version}.tgz`);
  const mjs = join(OUT, "waybill.mjs");
  await bundle(mjs);
  const files = [tgz, mjs];
  const sums = files.map((f) => `${sha256(f)}  ${relative(OUT, f)}\n`).join("");
  writeFileSync(join(OUT, "SHA256SUMS"), sums);
  writeFileSync(join(OUT, "waybill.mjs.sha256"), `${sha256(mjs)}  waybill.mjs\n`);
  console.log(`\nRelease ${pkg.version} in ${relative(process.cwd(), OUT) || "."}:`);
  for (const f of files) {
    console.log(
      `  ${relative(OUT, f)}  ${(statSync(f).size / 1024).toFixed(0)} KiB  sha256 ${sha256(f)}`,
    );
  }
  console.log("  SHA256SUMS (check with: sha256sum --check SHA256SUMS)");
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
