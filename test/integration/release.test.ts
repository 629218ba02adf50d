/**
 * The release artifacts (issues 20 and 30). The npm tarball (packTarball, as `npm run
 * release` makes it): holds npm-shrinkwrap.json, a manifest without `scripts` or dev
 * dependencies and with exact versions, and installs with npm into a fresh prefix without a
 * single warning. A release refuses a dirty git tree (dirtyFiles).
 *
 * The single-file release artifact (issue 20): `waybill.mjs`, bundled by scripts/release.js
 * from dist/, runs with plain `node` from an empty folder, with no node_modules anywhere
 * above it: `--version`, a validate that reports errors (the lazily loaded YAML parser and
 * the schema inlined in the bundle), and a plan against the emulator over loopback (undici).
 * .ci/run also installs the npm tarball into a fresh prefix and runs it (.ci/release-smoke.js).
 */
import { execFile } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/src/index.js";
import { bundle, dirtyFiles, packTarball } from "../../scripts/release.js";
import { VERSION } from "../../src/cli/version.js";
import { expectNoSecrets, makeTempDir, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";
import { DEMO_SECRETS, DEMO_TOKEN } from "./docs-shell.js";

const run = (
  cwd: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<NodeRun> =>
  // Only PATH and what is given: no NODE_PATH, nothing that could find a node_modules.
  runNode(["waybill.mjs", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env },
  });

describe("waybill.mjs, the single-file release", () => {
  let build: TempDir;
  let empty: TempDir;
  beforeAll(async () => {
    build = await makeTempDir("waybill-release-");
    await bundle(build.path("waybill.mjs"));
    // A folder under the OS temp dir, not the repository: no node_modules above it.
    empty = await makeTempDir("waybill-empty-");
    expect(empty.dir.startsWith(tmpdir())).toBe(true);
    await copyFile(build.path("waybill.mjs"), empty.path("waybill.mjs"));
  }, 60_000);
  afterAll(async () => {
    await build?.remove();
    await empty?.remove();
  });

  it("prints its version", async () => {
    const r = await run(empty.dir, ["--version"]);
    expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("prints the config and plan schemas, with no schemas/ folder next to it", async () => {
    for (const [which, file] of [
      ["config", "waybill.schema.json"],
      ["plan", "plan.schema.json"],
    ] as const) {
      const r = await run(empty.dir, ["schema", which]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(
        JSON.parse(await readFile(join(REPO_ROOT, "schemas", file), "utf8")),
      );
    }
  });

  it("validates, with located errors, from an empty folder", async () => {
    await writeFile(empty.path("bad.yaml"), "org: gh/acme\ncontexts:\n  x:\n    colour: red\n");
    const bad = await run(empty.dir, ["validate", "-c", "bad.yaml"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.yaml:4:5: contexts.x.colour: unknown key "colour"');
  });

  it("plans against the emulator, as the npm package does", async () => {
    const config = await readFile(join(REPO_ROOT, "examples", "demo", "waybill.yaml"), "utf8");
    await writeFile(empty.path("waybill.yaml"), config);
    const seed = JSON.parse(
      await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8"),
    );
    const emulator = await startEmulator({ seed });
    try {
      const r = await run(empty.dir, ["plan", "--detailed-exitcode"], {
        ...DEMO_SECRETS,
        SERVICE_BASE_URL: emulator.url,
        SERVICE_TOKEN: DEMO_TOKEN,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toMatch(/^Plan: 2 to create, \d+ to update, 0 to replace, 0 to delete\.$/m);
      expect(r.stderr).not.toMatch(/Warning/);
      expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, Object.values(DEMO_SECRETS));
    } finally {
      await emulator.close();
    }
  });
});

const exec = promisify(execFile);

interface Lock {
  packages: Record<
    string,
    {
      version?: string;
      dev?: boolean;
      integrity?: string;
      resolved?: string;
      dependencies?: Record<string, string>;
    }
  >;
}

describe("waybill-<version>.tgz, the npm package", { timeout: 180_000 }, () => {
  let tmp: TempDir;
  let tgz: string;
  beforeAll(async () => {
    tmp = await makeTempDir("waybill-pack-");
    tgz = packTarball(REPO_ROOT, tmp.path("out"));
    await exec("tar", ["-xzf", tgz, "-C", tmp.dir]);
  }, 120_000);
  afterAll(async () => {
    await tmp?.remove();
  });

  it("ships npm-shrinkwrap.json and a manifest without scripts, with exact versions", async () => {
    const manifest = JSON.parse(await readFile(tmp.path("package/package.json"), "utf8")) as {
      scripts?: unknown;
      devDependencies?: unknown;
      dependencies: Record<string, string>;
    };
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies).length).toBeGreaterThan(0);
    for (const [name, version] of Object.entries(manifest.dependencies)) {
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
    }
    const wrap = JSON.parse(
      await readFile(tmp.path("package/npm-shrinkwrap.json"), "utf8"),
    ) as Lock;
    const lock = JSON.parse(await readFile(join(REPO_ROOT, "package-lock.json"), "utf8")) as Lock;
    expect(wrap.packages[""]?.dependencies).toEqual(manifest.dependencies);
    const locked = Object.keys(wrap.packages).filter((k) => k !== "");
    // Exactly the production part of the lock: no dev tool, every entry pinned by hash.
    expect(locked.sort()).toEqual(
      Object.entries(lock.packages)
        .filter(([k, v]) => k !== "" && !v.dev)
        .map(([k]) => k)
        .sort(),
    );
    expect(locked).not.toContain("node_modules/vitest");
    for (const k of locked) {
      expect(wrap.packages[k]?.integrity, k).toMatch(/^sha512-/);
      expect(wrap.packages[k]?.version, k).toBe(lock.packages[k]?.version);
    }
  });

  it("installs into a fresh prefix without any warning and runs", async () => {
    const prefix = tmp.path("prefix");
    const { stderr } = await exec(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        tgz,
      ],
      { cwd: tmp.dir, env: { ...process.env, NO_COLOR: "1", npm_config_loglevel: "warn" } },
    );
    expect(stderr).not.toMatch(/warn/i);
    const { stdout } = await exec(join(prefix, "bin", "waybill"), ["--version"], {
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(stdout).toBe(`${VERSION}\n`);
  });
});

describe("a release is built from a clean git tree", () => {
  it("dirtyFiles lists changed and untracked files, and nothing in a clean tree", async () => {
    const repo = await makeTempDir("waybill-dirty-");
    try {
      const git = (...args: string[]) =>
        exec("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
          cwd: repo.dir,
        });
      await git("init", "-q");
      await repo.write("a.txt", "a\n");
      await git("add", "a.txt");
      await git("commit", "-q", "-m", "a");
      expect(dirtyFiles(repo.dir)).toEqual([]);
      await repo.write("a.txt", "changed\n");
      await repo.write("stray.js", "old build\n");
      expect(dirtyFiles(repo.dir)).toEqual([" M a.txt", "?? stray.js"]);
    } finally {
      await repo.remove();
    }
  });
});
