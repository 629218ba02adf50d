/**
 * A large config's files are parsed in worker threads by the built package
 * (src/config/parse-workers.ts): the loaded config and every diagnostic must be exactly what
 * the one-thread parse gives. The sources run here (vitest) have no built worker module, so
 * `src` parses in this thread and `dist` in workers: the same input through both.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as inThread from "../../src/config/index.js";
import { workerAvailable as srcWorkers } from "../../src/config/parse-workers.js";

type Loader = typeof inThread;
const dist = "../../dist/config/index.js";
const distWorkers = "../../dist/config/parse-workers.js";

/** One file of `n` contexts (~112 bytes each): 5,000 are over the workers' 512 KiB. */
const contextsFile = (file: number, n: number): string => {
  const lines = ["org: gh/acme", "contexts:"];
  for (let i = 0; i < n; i++) {
    lines.push(`  ctx-${file}-${i}:`, "    env:");
    for (let v = 0; v < 3; v++) lines.push(`      VAR_${v}: value-${file}-${i}-${v}`);
  }
  return `${lines.join("\n")}\n`;
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "waybill-workers-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const folder = (name: string, files: Record<string, string>): string => {
  const d = join(dir, name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
};

describe("parsing a large config in workers", () => {
  it("the built package has the worker; the sources run here do not", async () => {
    const built = (await import(distWorkers)) as { workerAvailable: () => boolean };
    expect(built.workerAvailable()).toBe(true);
    expect(srcWorkers()).toBe(false);
  });

  it("a valid folder of 590 KB loads to the same config", async () => {
    const path = folder("valid", {
      "a.yaml": contextsFile(1, 2100),
      "b.yaml": contextsFile(2, 2100),
      "c.yaml": `${contextsFile(3, 1100)}projects:\n  gh/acme/api:\n    env:\n      K: v\n`,
    });
    const loader = (await import(dist)) as Loader;
    const viaWorkers = await loader.loadConfig(path, { env: {} });
    const here = await inThread.loadConfig(path, { env: {} });
    expect(viaWorkers.ok).toBe(true);
    expect(viaWorkers).toEqual(here);
  });

  it("YAML, schema and cross-file errors are the same, with the same positions", async () => {
    const path = folder("invalid", {
      "a.yaml": contextsFile(1, 2100),
      // A YAML syntax error deep in a large file.
      "b.yaml": `${contextsFile(2, 2100)}  broken: [unclosed\n`,
      // A schema error: its line and column come from a parse of the text in this thread.
      "c.yaml": `${contextsFile(3, 1100)}  ctx-3-0x:\n    env:\n      A: 1\n    unknown_key: true\n`,
      // The same context declared in two files.
      "d.yaml": "org: gh/acme\ncontexts:\n  ctx-1-7:\n    env:\n      X: y\n",
    });
    const loader = (await import(dist)) as Loader;
    const viaWorkers = await loader.loadConfig(path, { env: {} });
    const here = await inThread.loadConfig(path, { env: {} });
    expect(viaWorkers.ok).toBe(false);
    expect(viaWorkers).toEqual(here);
    const codes = viaWorkers.ok ? [] : viaWorkers.diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(["yaml_syntax", "unknown_key"]));
  });
});
