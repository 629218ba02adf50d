/**
 * What the tests that walk every kind expect, derived from the kinds (docs/adding-a-kind.md
 * "Every-kind tests"): a new kind states these things in its own module, so none of those
 * tests (nor their golden files) is edited for it. Each function takes the kinds it walks
 * (the registry by default), so test/unit/adding-a-kind-doc.test.ts can show that the
 * test-only runner class kind (test/helpers/runner-class-kind.ts) is picked up.
 *
 * The derivations read what a kind declares (its parent, address segment, summary key,
 * secret places), never the code under test's output: a message or a count that leaves a
 * kind out, or names one twice, still fails the test that compares against them.
 */
import { readFileSync } from "node:fs";
import type { ResourceKind } from "../../src/kinds/contract.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { LEGACY_SCHEDULE_STEP } from "../../src/model/address.js";

export type Kinds = readonly ResourceKind<unknown, unknown>[];

/** The address steps an `ignore` (or `keep_unlisted`) glob may start with: the org's kinds. */
export const firstSteps = (kinds: Kinds = ALL_KINDS): readonly string[] =>
  kinds.filter((k) => k.parent === "org").map((k) => k.collection.segment.name);

/** The steps a glob may take after `project[…]`: the project's kinds, then legacy schedules. */
export const projectSteps = (kinds: Kinds = ALL_KINDS): readonly string[] => [
  ...kinds.filter((k) => k.parent === "project").map((k) => k.collection.segment.name),
  LEGACY_SCHEDULE_STEP,
];

/** Where a secret reference may be written, in words (`a, b and c`), each place once. */
export const secretPlaces = (kinds: Kinds = ALL_KINDS): string => {
  const places = [
    ...new Set(kinds.flatMap((k) => (k.config.secretPaths ?? []).map((p) => p.where))),
  ];
  const last = places.pop();
  return places.length === 0 ? (last ?? "no field") : `${places.join(", ")} and ${last}`;
};

/**
 * The placeholders a golden file (`test/fixtures/invalid/*.expected.json`) may write where
 * a message lists every kind (or every kind of a parent), so the file lists none by hand.
 */
const PLACEHOLDERS: Readonly<Record<string, (kinds: Kinds) => string>> = {
  "steps:first": (kinds) => firstSteps(kinds).join(", "),
  "steps:project": (kinds) => projectSteps(kinds).join(", "),
  "secret places": secretPlaces,
};

/** A golden file's text with its `{{placeholder}}`s written out; an unknown one throws. */
export const expandGolden = (text: string, kinds: Kinds = ALL_KINDS): string =>
  text.replace(/\{\{([^{}]+)\}\}/g, (_, name: string) => {
    const expand = PLACEHOLDERS[name];
    if (expand === undefined) throw new Error(`unknown golden placeholder {{${name}}}`);
    return expand(kinds);
  });

/**
 * The keys of `validate --format json`'s summary: the files and orgs, the projects (not a
 * kind's count), and every kind's `config.summary.key` (several kinds may share one).
 */
export const summaryKeys = (kinds: Kinds = ALL_KINDS): readonly string[] => [
  ...new Set([
    "files",
    "orgs",
    "projects",
    ...kinds.flatMap((k) => (k.config.summary ? [k.config.summary.key] : [])),
  ]),
];

/** A golden JSON file, its placeholders written out for `kinds`. */
export const readGolden = <T>(path: string, kinds: Kinds = ALL_KINDS): T =>
  JSON.parse(expandGolden(readFileSync(path, "utf8"), kinds)) as T;
