/**
 * The release artifacts (issues 20 and 30). The npm tarball's manifest and shrinkwrap
 * (releaseManifest, releaseShrinkwrap, which packTarball writes): npm-shrinkwrap.json named
 * in `files`, a manifest without `scripts` or dev dependencies and with exact versions. A
 * release refuses a dirty git tree (dirtyFiles).
 *
 * The tarball itself is not packed or installed here: .ci/run builds it with `npm run
 * release`, installs it into a fresh prefix and fails on any npm warning, and
 * .ci/release-smoke.js checks the installed package (npm-shrinkwrap.json present and
 * installed as pinned, the manifest as above), that its bin prints the version, and that it
 * plans against the emulator. That pack and install cost about 7 s of CPU here.
 *
 * The single-file release artifact (issue 20): `waybill.mjs`, bundled by scripts/release.js
 * from dist/, runs with plain `node` from an empty folder, with no node_modules anywhere
 * above it: `--version`, a validate that reports errors (the lazily loaded YAML parser and
 * the schema inlined in the bundle), and a plan against the emulator over loopback (undici).
 */
import { execFile } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/src/index.js";
import { dirtyFiles, releaseManifest, releaseShrinkwrap } from "../../scripts/release.js";
import { VERSION } from "../../src/cli/version.js";
import { expectNoSecrets, makeTempDir, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import { releaseBundle } from "../helpers/release-bundle.js";
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
  let empty: TempDir;
  beforeAll(async () => {
    // A folder under the OS temp dir, not the repository: no node_modules above it.
    empty = await makeTempDir("waybill-empty-");
    expect(empty.dir.startsWith(tmpdir())).toBe(true);
    // What scripts/release.js `bundle` writes for this dist/ (built once, shared by the files
    // that run the single file: test/helpers/release-bundle.ts).
    await copyFile(await releaseBundle(), empty.path("waybill.mjs"));
  }, 60_000);
  afterAll(async () => {
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

describe("waybill-<version>.tgz, the npm package's manifest and shrinkwrap", () => {
  it("ships npm-shrinkwrap.json and a manifest without scripts, with exact versions", async () => {
    const pkgJson = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
      files?: string[];
    };
    const lockJson: Record<string, unknown> = JSON.parse(
      await readFile(join(REPO_ROOT, "package-lock.json"), "utf8"),
    );
    const lock = lockJson as unknown as Lock;
    const manifest = releaseManifest(pkgJson, lockJson) as {
      scripts?: unknown;
      devDependencies?: unknown;
      files?: string[];
      dependencies: Record<string, string>;
    };
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    // npm pack leaves the shrinkwrap out of the tarball unless `files` names it.
    expect(manifest.files).toEqual([...(pkgJson.files ?? []), "npm-shrinkwrap.json"]);
    expect(Object.keys(manifest.dependencies).length).toBeGreaterThan(0);
    for (const [name, version] of Object.entries(manifest.dependencies)) {
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
      expect(version, name).toBe(lock.packages[`node_modules/${name}`]?.version);
    }
    const wrap = releaseShrinkwrap(manifest, lockJson) as unknown as Lock;
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
