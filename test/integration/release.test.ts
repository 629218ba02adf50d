/**
 * The single-file release artifact (issue 20): `waybill.mjs`, bundled by scripts/release.js
 * from dist/, runs with plain `node` from an empty folder, with no node_modules anywhere
 * above it: `--version`, a validate that reports errors (the lazily loaded YAML parser and
 * the schema inlined in the bundle), and a plan against the emulator over loopback (undici).
 * .ci/run also installs the npm tarball into a fresh prefix and runs it (.ci/release-smoke.js).
 */
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle } from "../../scripts/release.js";
import { VERSION } from "../../src/cli/version.js";
import { startEmulator } from "../../src/emulator/index.js";
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
