/**
 * The generic walks (apply, the planner, the live reader and drift, export, the run and the
 * CLI) name no kind (issue 31, docs/adding-a-kind.md): what is particular to a kind is the
 * kind's data (src/kinds). The walk's two parents, `context` and `project`, are the walk
 * itself; what is still named besides them is listed here, with why, so that a new one
 * fails this test instead of going unnoticed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RESOURCE_TYPES } from "../../src/model/address.js";

const ROOT = join(import.meta.dirname, "../../src");
const GENERIC = ["apply", "plan", "live", "export", "run", "cli"];
const WALKED_PARENTS = new Set(["context", "project"]);

/** Kinds still named outside src/kinds, by file, and why. */
const STILL_NAMED: Readonly<Record<string, readonly string[]>> = {
  // The synthetic OAuth pipeline (spec: api-v3.md Pipelines): which pipelines a plan touches
  // are probed, by a request only the pipeline kind's routes answer.
  "live/synthetic.ts": ["pipeline", "trigger"],
  // Drift lists the synthetic pipeline and its trigger apart.
  "live/unmanaged.ts": ["pipeline", "trigger"],
  // Not the kind: `drift --format webhook`, the name of an output format (design.md §5 "Drift").
  "cli/drift.ts": ["webhook"],
};

const filesOf = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesOf(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );

/** The kinds a file names: a type as a string literal, or `KINDS.<type>`. */
const kindsNamed = (text: string): string[] => {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return RESOURCE_TYPES.filter(
    (t) => code.includes(`"${t}"`) || new RegExp(`KINDS\\.${t}\\b`).test(code),
  );
};

describe("the generic walks name no kind", () => {
  it("only the walked parents and the listed exceptions are named outside src/kinds", () => {
    const named: Record<string, string[]> = {};
    for (const dir of GENERIC) {
      for (const file of filesOf(dir)) {
        const kinds = kindsNamed(readFileSync(join(ROOT, file), "utf8")).filter(
          (t) => !WALKED_PARENTS.has(t),
        );
        if (kinds.length > 0) named[file] = kinds;
      }
    }
    expect(named).toEqual(STILL_NAMED);
  });
});
