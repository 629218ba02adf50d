/**
 * docs/adding-a-kind.md says which files a new kind touches: the six product files ("Files
 * touched per new kind") and the tests that walk every kind ("Every-kind tests"). This keeps
 * the lists honest from the code: a product file that names every kind (so a new kind must
 * edit it) is in the six; a test or fixture that names every kind, or every kind of the org,
 * or walks the registry, is in one of the doc's two every-kind tables; every listed file
 * exists.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FAMILIES } from "../../emulator/src/families.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { RESOURCE_TYPES } from "../../src/model/address.js";

const DOC = readFileSync("docs/adding-a-kind.md", "utf8");

/** The text of the doc's `## title` section. */
const section = (title: string): string => {
  const start = DOC.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThanOrEqual(0);
  const end = DOC.indexOf("\n## ", start + 1);
  return DOC.slice(start, end === -1 ? undefined : end);
};

/** The backticked paths of a text (`src/kinds/registry.ts`). */
const pathsIn = (text: string): Set<string> =>
  new Set([...text.matchAll(/`([\w./<>-]+\.(?:ts|json|yaml|md))`/g)].map((m) => m[1]!));

const SIX = pathsIn(section("Files touched per new kind"));
const EVERY_KIND = pathsIn(section("Every-kind tests"));

const tracked = (...dirs: string[]): string[] =>
  execFileSync("git", ["ls-files", ...dirs], { encoding: "utf8" })
    .trim()
    .split("\n");

const namesAll = (text: string, words: readonly string[]): boolean =>
  words.every((w) => new RegExp(`\\b${w}\\b`).test(text));

const ORG_TYPES = ALL_KINDS.filter((k) => k.parent === "org").map((k) => String(k.type));

describe("docs/adding-a-kind.md's lists", () => {
  it("name every product file that names every kind (a new kind edits it)", () => {
    const naming = tracked("src", "emulator/src", "schemas").filter((f) =>
      namesAll(readFileSync(f, "utf8"), RESOURCE_TYPES),
    );
    expect(naming.length).toBeGreaterThan(0);
    for (const f of naming) expect([...SIX], f).toContain(f);
  });

  it("name the emulator file that lists every family", () => {
    const naming = tracked("emulator/src").filter((f) =>
      FAMILIES.every((fam) => readFileSync(f, "utf8").includes(`./families/${fam.name}.js`)),
    );
    expect(naming).toEqual(["emulator/src/families.ts"]);
    for (const f of naming) expect([...SIX]).toContain(f);
  });

  it("name every test that walks the registry or names every kind (of the org)", () => {
    const walks = /\b(?:ALL_KINDS|Object\.(?:entries|keys|values)\(KINDS\))/;
    const found = tracked("test", "examples").filter((f) => {
      if (f === "test/unit/adding-a-kind-doc.test.ts" || !/\.(ts|json|yaml)$/.test(f)) return false;
      const text = readFileSync(f, "utf8");
      return walks.test(text) || namesAll(text, RESOURCE_TYPES) || namesAll(text, ORG_TYPES);
    });
    expect(found.length).toBeGreaterThan(0);
    const missing = found.filter((f) => !EVERY_KIND.has(f));
    expect(missing, "add them to the doc's Every-kind tests").toEqual([]);
  });

  it("list files that exist", () => {
    for (const f of [...SIX, ...EVERY_KIND]) {
      // A new kind's own file (`src/kinds/<kind>.ts`), or a name short of the repo's root.
      if (f.includes("<") || !/^(?:src|emulator|schemas|test|examples|docs)\//.test(f)) continue;
      expect(existsSync(f), f).toBe(true);
    }
  });
});
