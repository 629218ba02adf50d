/**
 * A typo in a name a reference writes is a located "did you mean" (src/run/unknown-references.ts),
 * never an internal error, for every kind of the registry whose references name items by
 * name: the walk takes each such reference from the registry, finds the names the examples
 * write for it, misspells each one in a copy of the file at the place the reference says it
 * was written, and checks the diagnostic. Its code is `unknown_<type>`, made from the type
 * (src/kinds/contract.ts `unknownNameCode`) and listed in DIAGNOSTIC_CODES, which is derived
 * from the same references: a kind that others name needs no code listed by hand.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostic.js";
import { loadConfig } from "../../src/config/index.js";
import { type Reference, unknownNameCode } from "../../src/kinds/contract.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { unknownNameDiagnostics } from "../../src/run/unknown-references.js";
import { live, lOrg } from "../helpers/builders.js";

/** The examples that write names for references (full.yaml has every kind; access.yaml groups). */
const EXAMPLES = ["examples/full.yaml", "examples/access.yaml"];

const load = async (file: string): Promise<DesiredConfig> => {
  const r = await loadConfig(file, { env: {}, resolveSecrets: false });
  if (!r.ok) throw new Error(`${file}: ${r.diagnostics.map((d) => d.message).join("; ")}`);
  return r.config;
};

/** A live state with each declared org and nothing in it: only declared names are known. */
const emptyLive = (config: DesiredConfig) =>
  live(...config.orgs.map((o) => lOrg({ slug: o.slug, id: `id-${o.slug}` })));

const byName = ALL_KINDS.flatMap((kind) =>
  (kind.references ?? [])
    .filter((ref) => ref.by.includes("name"))
    .map((ref) => ({ kind, ref: ref as Reference<unknown> })),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-typos-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a misspelt name a reference writes", () => {
  it("is found for some kind (the walk below is not empty)", () => {
    expect(byName.length).toBeGreaterThan(0);
  });

  it("gives every kind's `unknown_<type>` code a place in DIAGNOSTIC_CODES", () => {
    for (const { ref } of byName) expect(DIAGNOSTIC_CODES).toContain(unknownNameCode(ref.to));
  });

  for (const { kind, ref } of byName) {
    it(`${kind.type} ${ref.field} → ${ref.to}: "did you mean", at FILE:LINE:COL`, async () => {
      let checked = 0;
      for (const example of EXAMPLES) {
        const config = await load(example);
        const text = await readFile(example, "utf8");
        const names = config.orgs.flatMap((org) =>
          [...ref.written(org)].filter((w) => w.form === "name"),
        );
        for (const w of names) {
          // The misspelt name goes where the reference says it was written: the first scalar
          // that is the name, from its line and column on (the item's place, or the value's).
          const lines = text.split("\n");
          const scalar = new RegExp(
            `(?<=(?::|^\\s*-)\\s+)${w.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=\\s*(?:#.*)?$)`,
          );
          const n = lines.findIndex(
            (l, i) =>
              i >= w.source.line - 1 &&
              scalar.test(l.slice(i === w.source.line - 1 ? w.source.col - 1 : 0)),
          );
          expect(n, `${example}:${w.source.line}:${w.source.col}`).toBeGreaterThanOrEqual(0);
          lines[n] = (lines[n] ?? "").replace(scalar, `${w.value}x`);
          const copy = join(dir, basename(example));
          await writeFile(copy, lines.join("\n"));
          const mistaken = await load(copy);

          const found = unknownNameDiagnostics(mistaken, emptyLive(mistaken));
          expect(found).toContainEqual({
            file: copy,
            line: w.source.line,
            col: w.source.col,
            path: w.path,
            code: unknownNameCode(ref.to),
            message: expect.stringContaining(`did you mean ${JSON.stringify(w.value)}?`),
          });
          // The original names every item it means: no diagnostic.
          expect(unknownNameDiagnostics(config, emptyLive(config))).toEqual([]);
          checked++;
        }
      }
      // A kind that names items by name shows how in an example (examples/*.yaml).
      expect(checked, `no example writes ${kind.type}'s ${ref.field} by name`).toBeGreaterThan(0);
    });
  }
});
