/**
 * A large config's files are parsed in worker threads by the built package
 * (src/config/parse-workers.ts): every value and diagnostic must be exactly what the
 * one-thread parse gives. The sources run here (vitest) have no built worker module, so
 * `src` parses in this thread and `dist` in workers: the same input through both.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as inThread from "../../src/config/index.js";
import * as srcWorkers from "../../src/config/parse-workers.js";
import { pathKey } from "../../src/config/yaml-doc.js";

type Workers = typeof srcWorkers;
const distWorkers = "../../dist/config/parse-workers.js";
const distConfig = "../../dist/config/index.js";

/** One file of `n` contexts (~105 bytes each): 5,000 are over the workers' 512 KiB. */
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

describe("parsing a config's files in workers", () => {
  it("the built package has the worker; the sources run here do not", async () => {
    const built = (await import(distWorkers)) as Workers;
    expect(built.workerAvailable()).toBe(true);
    expect(srcWorkers.workerAvailable()).toBe(false);
  });

  it("values, YAML errors, alias bounds and positions are those of the one-thread parse", async () => {
    const files = [
      { file: "a.yaml", text: contextsFile(1, 20) },
      { file: "b.yaml", text: `${contextsFile(2, 5)}  broken: [unclosed\n` },
      { file: "c.yaml", text: "org: gh/acme\nx: &a { k: 1 }\ny:\n  <<: *a\n  j: .inf\n" },
      { file: "d.yaml", text: "org: gh/acme\nm:\n  k: 1\n  k: 2\n" },
      { file: "e.yaml", text: "a: &a [*a]\n" },
    ];
    const built = (await import(distWorkers)) as Workers;
    const viaWorkers = await built.parseFiles(files, {}, 0);
    const here = await srcWorkers.parseFiles(files, {}, 0);
    const plain = (r: (typeof here)[number]) =>
      r.ok ? { ok: true, value: r.value } : { ok: false, diagnostics: r.diagnostics };
    expect(viaWorkers.map(plain)).toEqual(here.map(plain));
    expect(here.map((r) => r.ok)).toEqual([true, false, true, false, false]);
    // Positions are rebuilt in this thread from the text, on demand.
    const at = (r: (typeof here)[number]) =>
      r.ok ? r.positions.get(pathKey(["contexts", "ctx-1-7", "env", "VAR_2"])) : undefined;
    expect(at(viaWorkers[0] as (typeof here)[number])).toEqual(
      at(here[0] as (typeof here)[number]),
    );
    expect(at(here[0] as (typeof here)[number])).toBeDefined();
  });

  it("a folder over 512 KiB loads with the same located errors", async () => {
    const path = join(dir, "invalid");
    mkdirSync(path);
    writeFileSync(join(path, "a.yaml"), contextsFile(1, 3900));
    // A schema error: its line and column come from a parse of the text in this thread.
    writeFileSync(
      join(path, "b.yaml"),
      `${contextsFile(2, 1100)}  ctx-2-0x:\n    env:\n      A: 1\n    unknown_key: true\n`,
    );
    // The same context declared in two files.
    writeFileSync(
      join(path, "c.yaml"),
      "org: gh/acme\ncontexts:\n  ctx-1-7:\n    env:\n      X: y\n",
    );
    const built = (await import(distWorkers)) as Workers;
    expect(built.PARSE_IN_WORKERS_BYTES).toBeLessThan(530_000); // the folder is over it
    const loader = (await import(distConfig)) as typeof inThread;
    const viaWorkers = await loader.loadConfig(path, { env: {} });
    const here = await inThread.loadConfig(path, { env: {} });
    expect(viaWorkers.ok).toBe(false);
    expect(viaWorkers).toEqual(here);
  });
});
