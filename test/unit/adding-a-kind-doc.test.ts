/**
 * docs/adding-a-kind.md says which files a new kind touches: the six product files ("Files
 * touched per new kind") and, for the tests that walk every kind, nothing: "Every-kind
 * tests" lists what a new kind gives them (its own unit test, its item in the examples, its
 * family's sample, the docs) and the tests that walk every kind. This keeps the lists honest
 * from the code: a product file that names every kind (so a new kind must edit it) is in the
 * six; a test that walks the registry is in the walking table; no test or golden file names
 * every kind (or every kind of the org) by hand, which a new kind would have to edit; the
 * derivations those tests use pick up the test-only runner class kind and its family; every
 * listed file exists.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FAMILIES } from "../../emulator/src/families.js";
import type { Seed } from "../../emulator/src/seed.js";
import { createState, dumpState } from "../../emulator/src/store.js";
import type { ResourceKind } from "../../src/kinds/contract.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { RESOURCE_TYPES } from "../../src/model/address.js";
import {
  emptiedDeepestFirst,
  expandGolden,
  firstSteps,
  secretPlaces,
  summaryKeys,
  withSamples,
} from "../helpers/every-kind.js";
import { runnerClasses } from "../helpers/runner-class-family.js";
import { runnerClassKind } from "../helpers/runner-class-kind.js";

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

/** The paths in the first column of the table whose header row starts with `header`. */
const firstColumn = (text: string, header: string): Set<string> => {
  const start = text.indexOf(`\n${header}`);
  expect(start, header).toBeGreaterThanOrEqual(0);
  const rows = text.slice(start + 1).split("\n");
  const end = rows.findIndex((r) => !r.startsWith("|"));
  return pathsIn(
    rows
      .slice(2, end === -1 ? undefined : end)
      .map((r) => r.split("|")[1] ?? "")
      .join("\n"),
  );
};

const SIX = pathsIn(section("Files touched per new kind"));
const EVERY_KIND = section("Every-kind tests");
/** What a new kind gives the every-kind tests, and where. */
const GIVES = firstColumn(EVERY_KIND, "| where |");
/** The tests and helpers that walk every kind. */
const WALKS = firstColumn(EVERY_KIND, "| file | what it walks |");

const tracked = (...dirs: string[]): string[] =>
  execFileSync("git", ["ls-files", ...dirs], { encoding: "utf8" })
    .trim()
    .split("\n");

const namesAll = (text: string, words: readonly string[]): boolean =>
  words.every((w) => new RegExp(`\\b${w}\\b`).test(text));

/** The kinds of each parent that has three or more (the org's, a project's). */
const SIBLINGS = [...new Set(ALL_KINDS.map((k) => k.parent))]
  .map((parent) => ALL_KINDS.filter((k) => k.parent === parent).map((k) => String(k.type)))
  .filter((types) => types.length >= 3);
const SELF = "test/unit/adding-a-kind-doc.test.ts";

/**
 * The registry and the emulator's families without and with the test-only runner class kind
 * (without: also when a copy of the repo registers it as a product kind, as the doc's check
 * by hand did).
 */
const FIXTURE = runnerClassKind as unknown as ResourceKind<unknown, unknown>;
const BASE = ALL_KINDS.filter((k) => k.type !== FIXTURE.type);
const WITH_FIXTURE = [...BASE, FIXTURE];
const BASE_FAMILIES = FAMILIES.filter((f) => f.name !== runnerClasses.name);
const FAMILIES_WITH_FIXTURE = [...BASE_FAMILIES, runnerClasses];

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

  it("name every test that walks the registry, in the walking table", () => {
    const walks = /\b(?:ALL_KINDS|Object\.(?:entries|keys|values)\(KINDS\))/;
    const found = tracked("test", "examples").filter(
      (f) => f !== SELF && /\.ts$/.test(f) && walks.test(readFileSync(f, "utf8")),
    );
    expect(found.length).toBeGreaterThan(0);
    const missing = found.filter((f) => !WALKS.has(f));
    expect(missing, "add them to the doc's table of the tests that walk every kind").toEqual([]);
  });

  it("leave no test or golden file that names every kind, or every kind of the org or of a project, by hand (a new kind would edit it)", () => {
    expect(SIBLINGS.length).toBeGreaterThanOrEqual(2);
    const naming = tracked("test").filter((f) => {
      if (f === SELF || !/\.(ts|json|yaml)$/.test(f)) return false;
      const text = readFileSync(f, "utf8");
      return namesAll(text, RESOURCE_TYPES) || SIBLINGS.some((types) => namesAll(text, types));
    });
    expect(naming, "derive the list from the registry (test/helpers/every-kind.ts)").toEqual([]);
  });

  it("promise no test outside the kind's own: what a new kind gives is its own or not a test", () => {
    expect(GIVES.size).toBeGreaterThan(0);
    const tests = [...GIVES].filter((f) => f.startsWith("test/"));
    expect(tests).toEqual(["test/unit/kind-<kind>.test.ts"]);
    expect(EVERY_KIND).toContain("edits **none of them**");
  });

  it("list files that exist", () => {
    for (const f of [...SIX, ...GIVES, ...WALKS]) {
      // A new kind's own file (`src/kinds/<kind>.ts`), or a name short of the repo's root.
      if (f.includes("<") || !/^(?:src|emulator|schemas|test|examples|docs)\//.test(f)) continue;
      expect(existsSync(f), f).toBe(true);
    }
  });
});

describe("the every-kind tests' derivations (test/helpers/every-kind.ts)", () => {
  const type = String(FIXTURE.type);

  it("pick up the runner class kind in the golden files' lists of kinds", () => {
    expect(firstSteps(WITH_FIXTURE)).toEqual([...firstSteps(BASE), type]);
    const golden = tracked("test/fixtures")
      .filter((f) => f.endsWith(".expected.json"))
      .map((f) => readFileSync(f, "utf8"))
      .filter((text) => text.includes("{{steps:first}}"));
    expect(golden.length).toBeGreaterThan(0);
    for (const text of golden) {
      expect(expandGolden(text, BASE)).not.toContain(`, ${type}`);
      expect(expandGolden(text, WITH_FIXTURE)).toContain(`, ${type} (`);
    }
    expect(() => expandGolden("{{no such list}}")).toThrow(/unknown golden placeholder/);
  });

  it("pick up a summary key and a secret place the kind states", () => {
    const stating = {
      ...FIXTURE,
      config: {
        ...FIXTURE.config,
        summary: { key: "runner_classes", one: "runner class" },
        secretPaths: [
          { at: ["runner_resource_classes", "*", "token"], field: "header", where: "a token" },
        ],
      },
    } as ResourceKind<unknown, unknown>;
    expect(summaryKeys([...BASE, stating])).toEqual([...summaryKeys(BASE), "runner_classes"]);
    expect(secretPlaces([...BASE, stating])).toMatch(/, .+ and a token$/);
    expect(secretPlaces([...BASE, stating])).toContain(
      secretPlaces(BASE).replace(/ and ([^,]+)$/, ", $1"),
    );
  });

  it("seed the runner class family's sample, which the emulator loads and dumps", () => {
    const bare: Seed = { orgs: [{ slug: "gh/acme" }] };
    expect(withSamples(bare, BASE_FAMILIES)).toEqual(bare);
    const seeded = withSamples(bare, FAMILIES_WITH_FIXTURE);
    const dumped = dumpState(createState(seeded, FAMILIES_WITH_FIXTURE), FAMILIES_WITH_FIXTURE);
    const org = dumped.orgs?.[0] as Record<string, unknown> | undefined;
    expect(org?.runner_resource_classes).toEqual([
      { name: "sample-class", description: "a sample class" },
    ]);
  });

  it("empty the runner class kind's collection in the examples' delete steps", () => {
    const doc = {
      org: "gh/acme",
      contexts: { deploy: { env: { REGION: "eu" } } },
      runner_resource_classes: { large: { context: "deploy" } },
    };
    expect(emptiedDeepestFirst(doc, WITH_FIXTURE)).toEqual([
      { ...doc, contexts: { deploy: { env: {} } } },
      { org: "gh/acme", contexts: {}, runner_resource_classes: {} },
    ]);
    // Without it, its collection is no kind's: left as written.
    expect(emptiedDeepestFirst(doc, BASE).at(-1)).toEqual({ ...doc, contexts: {} });
  });
});
