/**
 * Issue 19 "Export at scale": an export larger than the loader's per-file bound (1 MiB) is
 * never written as one file that `validate` would refuse: to stdout or -o FILE it is refused
 * with the way out (nothing written); -o DIR/ writes one file per project, each under the
 * bound, and the folder validates.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { DEFAULT_MAX_FILE_BYTES } from "../../src/config/load.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000ee";
const PROJECTS = 16;
const VARS = 100;
// Long names: each exported line (`NAME: ${env:PROJECT_NAME}`) is ~800 bytes, so the
// projects together pass 1 MiB while each project's file stays well under it. Few, long
// variables rather than many short ones: the bound is about bytes, and the time of the three
// exports about variables (1,600 of them take half the time 4,800 did).
const varName = (v: number) =>
  `A_RATHER_LONG_VARIABLE_NAME_FOR_THE_EXPORT_SIZE_TEST_${"PADDING_".repeat(45)}${v}`;

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/huge",
      name: "huge",
      projects: Array.from({ length: PROJECTS }, (_, i) => ({
        id: `0b7e0000-0000-4000-8000-0000000001${String(i).padStart(2, "0")}`,
        slug: `gh/huge/p${i}`,
        env: Object.fromEntries(
          Array.from({ length: VARS }, (_, v) => [varName(v), `value-${i}-${v}-abcd`]),
        ),
      })),
    },
  ],
});

describe("export larger than a config file may be", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;

  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  const run = (args: string[]) =>
    runCli(args, { baseUrl: emulator.url, token: emulator.token, cwd: tmp.dir });

  it("is refused as one file (stdout or -o FILE), nothing written; -o DIR/ writes files that validate", async () => {
    const single = await run(["export", "--org", "gh/huge", "--all-projects"]);
    expect(single.code).toBe(1);
    expect(single.stdout).toBe("");
    expect(single.stderr).toMatch(
      /the export is \d+\.\d MiB, over the 1 MiB a config file may hold .*nothing was written: write a folder instead, .* -o DIR\//,
    );
    const file = await run(["export", "--org", "gh/huge", "--all-projects", "-o", "big.yaml"]);
    expect(file.code).toBe(1);
    await expect(stat(join(tmp.dir, "big.yaml"))).rejects.toThrow();

    const folder = await run(["export", "--org", "gh/huge", "--all-projects", "-o", "out/"]);
    expect(folder.code, folder.stderr.slice(-1000)).toBe(0);
    const names = (await readdir(join(tmp.dir, "out"))).filter((n) => n.endsWith(".yaml"));
    expect(names.length).toBe(PROJECTS + 1);
    let total = 0;
    for (const n of names) {
      const size = (await stat(join(tmp.dir, "out", n))).size;
      expect(size, n).toBeLessThanOrEqual(DEFAULT_MAX_FILE_BYTES);
      total += size;
    }
    expect(total).toBeGreaterThan(DEFAULT_MAX_FILE_BYTES);
    const valid = await run(["validate", "-c", "out", "--skip-secrets"]);
    expect(valid.code, valid.stderr).toBe(0);
  });
});
