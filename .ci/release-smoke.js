// CI (.ci/run): the release artifacts work where users put them.
//
//   node .ci/release-smoke.js PREFIX RELEASE_DIR
//
// PREFIX holds `npm install --global --prefix PREFIX release/waybill-<version>.tgz`. The
// installed package must hold npm-shrinkwrap.json (exactly the production part of
// package-lock.json, each entry pinned by hash, and installed at that version) and a
// manifest without `scripts` or dev dependencies, with exact versions. Its bin/waybill must
// print the version, start the emulator, and plan the demo config against it (exit 2: the
// demo config has changes). Then release/waybill.mjs is copied into an empty folder outside
// the repository and must do the same with plain `node`.
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [prefix, releaseDir] = process.argv.slice(2);
if (!prefix || !releaseDir) {
  console.error("usage: node .ci/release-smoke.js PREFIX RELEASE_DIR");
  process.exit(1);
}
const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const seed = join(ROOT, "examples", "demo", "seed.json");
const config = join(ROOT, "examples", "demo", "waybill.yaml");
const secrets = {
  DEMO_AWS_SECRET_ACCESS_KEY: "ci-aws-secret-0001",
  DEMO_NPM_TOKEN: "ci-npm-token-0002",
  DEMO_SLACK_SIGNING_SECRET: "ci-slack-signing-0003",
  DEMO_DEPLOY_KEY: "ci-deploy-key-0004",
  DEMO_RELEASE_HOOK_SECRET: "ci-release-hook-0005",
};
// Only PATH: no NODE_PATH and nothing else that could find this checkout's node_modules.
const baseEnv = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };

const run = (argv, cwd, env = {}) =>
  new Promise((res, rej) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...baseEnv, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (b) => {
      out += b;
    });
    child.stderr.on("data", (b) => {
      err += b;
    });
    child.on("error", rej);
    child.on("close", (code) => res({ code, out, err }));
  });

const startEmulator = (argv, cwd) =>
  new Promise((res, rej) => {
    const child = spawn(argv[0], [...argv.slice(1), "emulator", "--seed", seed, "--port", "0"], {
      cwd,
      env: baseEnv,
    });
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      rej(new Error("the emulator did not start in 15 s"));
    }, 15_000);
    child.stdout.on("data", (b) => {
      out += b;
      const m = /Emulator listening on (http:\/\/127\.0\.0\.1:\d+)\r?\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        res({ url: m[1], stop: () => child.kill("SIGTERM") });
      }
    });
  });

const check = (label, ok, detail) => {
  if (!ok) {
    console.error(`release smoke: FAILED: ${label}\n${detail}`);
    process.exit(1);
  }
  console.log(`release smoke: ok: ${label}`);
};

const smoke = async (label, argv, cwd) => {
  const v = await run([...argv, "--version"], cwd);
  check(`${label}: --version prints ${version}`, v.code === 0 && v.out === `${version}\n`, v.err);
  const emulator = await startEmulator(argv, cwd);
  try {
    const plan = await run([...argv, "plan", "-c", config, "--detailed-exitcode"], cwd, {
      ...secrets,
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: "demo-token",
    });
    check(
      `${label}: plan against the emulator exits 2 with the demo's changes`,
      plan.code === 2 && /^Plan: 2 to create/m.test(plan.out),
      `${plan.out}\n${plan.err}`,
    );
  } finally {
    emulator.stop();
  }
};

// The installed package: what npm put into PREFIX from the tarball.
const checkInstalledPackage = () => {
  const dir = join(resolve(prefix), "lib", "node_modules", "waybill");
  const readJson = (file) => JSON.parse(readFileSync(join(dir, file), "utf8"));
  const manifest = readJson("package.json");
  check(
    "the package's manifest has no scripts and no dev dependencies",
    manifest.scripts === undefined && manifest.devDependencies === undefined,
    JSON.stringify(manifest, null, 2),
  );
  const deps = Object.entries(manifest.dependencies ?? {});
  check(
    "the package's dependencies have exact versions",
    deps.length > 0 && deps.every(([, v]) => /^\d+\.\d+\.\d+$/.test(v)),
    JSON.stringify(manifest.dependencies),
  );
  let wrap;
  try {
    wrap = readJson("npm-shrinkwrap.json");
  } catch (err) {
    check("the package holds npm-shrinkwrap.json", false, String(err));
  }
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
  const locked = Object.keys(wrap.packages).filter((k) => k !== "");
  const production = Object.entries(lock.packages)
    .filter(([k, v]) => k !== "" && !v.dev && !v.devOptional)
    .map(([k]) => k);
  check(
    "npm-shrinkwrap.json holds exactly the production part of package-lock.json",
    isDeepStrictEqual([...locked].sort(), [...production].sort()) &&
      isDeepStrictEqual(wrap.packages[""]?.dependencies, manifest.dependencies),
    `shrinkwrap: ${locked.join(", ")}\nlock: ${production.join(", ")}`,
  );
  const wrong = locked.filter((k) => {
    const entry = wrap.packages[k];
    if (!/^sha512-/.test(entry.integrity ?? "") || entry.version !== lock.packages[k]?.version) {
      return true;
    }
    try {
      return readJson(join(k, "package.json")).version !== entry.version;
    } catch {
      return true;
    }
  });
  check(
    "every shrinkwrap entry is pinned by hash and installed at its version",
    wrong.length === 0,
    wrong.join(", "),
  );
};

const empty = mkdtempSync(join(tmpdir(), "waybill-smoke-"));
try {
  checkInstalledPackage();
  await smoke("npm tarball in a fresh prefix", [join(resolve(prefix), "bin", "waybill")], empty);
  copyFileSync(join(resolve(releaseDir), "waybill.mjs"), join(empty, "waybill.mjs"));
  await smoke("waybill.mjs from an empty folder", [process.execPath, "waybill.mjs"], empty);
} finally {
  rmSync(empty, { recursive: true, force: true });
}
