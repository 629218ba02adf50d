/**
 * A large config's files are parsed in worker threads by the built package
 * (src/config/parse-workers.ts), when the plain-subset reader declines them: every value
 * and diagnostic must be exactly what the one-thread parse gives. The sources run here (vitest) have no built worker module, so
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

/**
 * One file of `n` contexts (~105 bytes each): 5,000 are over the workers' 512 KiB. Its
 * anchor puts it outside the plain subset of YAML (yaml-plain.ts), which is read in this
 * thread: only what that reader declines goes to `yaml` in workers.
 */
const contextsFile = (file: number, n: number): string => {
  const lines = ["org: gh/acme", "x-note: &note an anchor", "contexts:"];
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

  it("a folder of files outside the plain subset loads in workers with the same located errors", async () => {
    const path = join(dir, "invalid");
    mkdirSync(path);
    writeFileSync(join(path, "a.yaml"), contextsFile(1, 120));
    // A schema error: its line and column come from a parse of the text in this thread.
    writeFileSync(
      join(path, "b.yaml"),
      `${contextsFile(2, 40)}  ctx-2-0x:\n    env:\n      A: 1\n    unknown_key: true\n`,
    );
    // The same context declared in two files (this one in the plain subset, read here).
    writeFileSync(
      join(path, "c.yaml"),
      "org: gh/acme\ncontexts:\n  ctx-1-7:\n    env:\n      X: y\n",
    );
    const built = (await import(distWorkers)) as Workers;
    // The real threshold is a folder of 512 KiB; this one is lowered to the test's 17 KB.
    expect(built.PARSE_IN_WORKERS_BYTES).toBe(512 * 1024);
    const loader = (await import(distConfig)) as typeof inThread;
    const viaWorkers = await loader.loadConfig(path, { env: {}, parseInWorkersFrom: 1000 });
    const here = await inThread.loadConfig(path, { env: {} });
    expect(viaWorkers.ok).toBe(false);
    expect(viaWorkers).toEqual(here);
    expect(
      here.ok ? [] : here.diagnostics.map((d) => `${d.file.slice(path.length)}:${d.line}`),
    ).toEqual(["/b.yaml:206", "/b.yaml:207", "/c.yaml:3"]);
  });

  it("parses in workers only the files the plain subset declines", async () => {
    const built = (await import(distWorkers)) as Workers;
    const files = [
      { file: "plain.yaml", text: contextsFile(3, 30).replace("x-note: &note an anchor\n", "") },
      { file: "anchored.yaml", text: contextsFile(4, 30) },
    ];
    const viaWorkers = await built.parseFiles(files, {}, 0);
    const here = await srcWorkers.parseFiles(files, {}, 0);
    expect(viaWorkers.map((r) => r.ok && r.value)).toEqual(here.map((r) => r.ok && r.value));
    expect(here.every((r) => r.ok)).toBe(true);
  });
});
