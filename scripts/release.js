#!/usr/bin/env node
/**
 * `npm run release` (issues 20 and 30; design.md §3 "Distribution and integration"): the
 * release artifacts, in release/ (git-ignored):
 *
 *   waybill-<version>.tgz   the npm package: bin/, dist/ and schemas/ of a clean build, a
 *                           manifest with exact dependency versions and no `scripts` (so
 *                           npm runs nothing at install), and npm-shrinkwrap.json (the
 *                           production part of package-lock.json: every transitive
 *                           dependency pinned by version and integrity hash)
 *   waybill.mjs             one file that runs with plain `node` and no node_modules:
 *                           dist/ and the runtime dependencies bundled by esbuild
 *   SHA256SUMS              sha256 of both, in `sha256sum --check` format
 *
 *   node scripts/release.js [--out DIR] [--action] [--allow-dirty]
 *
 * A release is built from a clean git tree only (tracked and untracked files as committed;
 * ignored files aside), so what it holds is what the commit says: `--allow-dirty` is for
 * tests and local tries. dist/ is emptied, then built once; the tarball is packed from a
 * staging folder, so the checkout's own package.json (with its dev `prepare`) is never
 * edited. `--action` also writes action/waybill.mjs and action/waybill.mjs.sha256, the
 * file the GitHub Action runs (git-ignored: a release commit adds them with `git add -f`;
 * README "The GitHub Action").
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
 * The bundle test (test/integration/release.test.ts) runs the file from an empty folder;
 * the same test packs the tarball and installs it with npm, offline, expecting no warning.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
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
        // The config's parse workers need a module file of their own: none in one file.
        .replace(/new URL\("\.\/parse-worker\.js", import\.meta\.url\)/g, "undefined")
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

/**
 * The tarball's manifest: package.json with exact dependency versions (from the lock) and
 * without `scripts` and `devDependencies`: the package is built already, and npm 11 warns
 * about (and would run) a `prepare` script at install.
 */
export const releaseManifest = (pkgJson, lock) => {
  const { scripts: _scripts, devDependencies: _dev, ...rest } = pkgJson;
  const dependencies = {};
  for (const name of Object.keys(pkgJson.dependencies ?? {})) {
    const locked = lock.packages?.[`node_modules/${name}`]?.version;
    if (!locked) throw new Error(`package-lock.json has no node_modules/${name}: run npm install`);
    dependencies[name] = locked;
  }
  // npm pack leaves npm-shrinkwrap.json out unless `files` names it.
  const files = rest.files ? [...rest.files, "npm-shrinkwrap.json"] : undefined;
  return { ...rest, ...(files ? { files } : {}), dependencies };
};

/**
 * npm-shrinkwrap.json for the tarball: package-lock.json without its dev-only entries, and
 * its root entry matching the release manifest. npm installs exactly these versions.
 */
export const releaseShrinkwrap = (manifest, lock) => {
  const packages = {};
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === "") continue;
    if (entry.dev || entry.devOptional) continue;
    // Decision: each entry names its registry tarball (`resolved`) next to its integrity
    // hash, as `npm install` writes it, so npm fetches exactly that file (from its cache when
    // it has it) rather than asking the registry which file a version is.
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const base = name.startsWith("@") ? name.split("/")[1] : name;
    const resolved =
      entry.resolved ?? `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`;
    packages[path] = { version: entry.version, resolved, ...entry };
  }
  const root = {
    name: manifest.name,
    version: manifest.version,
    license: manifest.license,
    dependencies: manifest.dependencies,
    bin: manifest.bin,
    engines: manifest.engines,
  };
  return {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: lock.lockfileVersion,
    requires: true,
    packages: { "": root, ...packages },
  };
};

/**
 * `npm pack` of a staging copy of bin/, dist/ and schemas/ (as package.json `files` says),
 * README and LICENSE if present, with the release manifest and shrinkwrap. Returns the
 * tarball's path. dist/ must be built already.
 */
export const packTarball = (root, out) => {
  const pkgJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const manifest = releaseManifest(pkgJson, lock);
  const stage = mkdtempSync(join(tmpdir(), "waybill-pack-"));
  try {
    for (const entry of pkgJson.files ?? []) {
      cpSync(join(root, entry), join(stage, entry), { recursive: true });
    }
    for (const f of ["README.md", "LICENSE"]) {
      if (existsSync(join(root, f))) copyFileSync(join(root, f), join(stage, f));
    }
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(
      join(stage, "npm-shrinkwrap.json"),
      `${JSON.stringify(releaseShrinkwrap(manifest, lock), null, 2)}\n`,
    );
    mkdirSync(out, { recursive: true });
    execFileSync(
      "npm",
      ["pack", "--ignore-scripts", "--loglevel=warn", "--pack-destination", out],
      {
        cwd: stage,
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return join(out, `${manifest.name}-${manifest.version}.tgz`);
};

/** `git status --porcelain` lines of the checkout (ignored files aside); throws outside git. */
export const dirtyFiles = (root) =>
  execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((l) => l.trim() !== "");

const main = async () => {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      action: { type: "boolean" },
      "allow-dirty": { type: "boolean" },
    },
  });
  if (!values["allow-dirty"]) {
    let dirty;
    try {
      dirty = dirtyFiles(ROOT);
    } catch (err) {
      console.error(
        `release: cannot read the git status (${err.message}); a release is built from a git checkout`,
      );
      process.exit(1);
    }
    if (dirty.length > 0) {
      console.error(
        `release: the tree has uncommitted changes; commit or stash them (or pass --allow-dirty for a local try):\n${dirty.slice(0, 20).join("\n")}`,
      );
      process.exit(1);
    }
  }
  const OUT = resolve(values.out ?? join(ROOT, "release"));
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // A clean build: no stray file of an older build (a renamed module) reaches the tarball.
  rmSync(join(ROOT, "dist"), { recursive: true, force: true });
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  const tgz = packTarball(ROOT, OUT);
  const mjs = join(OUT, "waybill.mjs");
  await bundle(mjs);
  const files = [tgz, mjs];
  const sums = files.map((f) => `${sha256(f)}  ${relative(OUT, f)}\n`).join("");
  writeFileSync(join(OUT, "SHA256SUMS"), sums);
  writeFileSync(join(OUT, "waybill.mjs.sha256"), `${sha256(mjs)}  waybill.mjs\n`);
  if (values.action) {
    copyFileSync(mjs, join(ROOT, "action", "waybill.mjs"));
    writeFileSync(join(ROOT, "action", "waybill.mjs.sha256"), `${sha256(mjs)}  waybill.mjs\n`);
  }
  console.log(`\nRelease ${pkg.version} in ${relative(process.cwd(), OUT) || "."}:`);
  for (const f of files) {
    console.log(
      `  ${relative(OUT, f)}  ${(statSync(f).size / 1024).toFixed(0)} KiB  sha256 ${sha256(f)}`,
    );
  }
  console.log("  SHA256SUMS (check with: sha256sum --check SHA256SUMS)");
  if (values.action)
    console.log("  action/waybill.mjs and action/waybill.mjs.sha256 (for the Action)");
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
