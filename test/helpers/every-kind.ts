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
import { FAMILIES } from "../../emulator/src/families.js";
import { type Family, isLevelMember, membersAt } from "../../emulator/src/family.js";
import type { Seed } from "../../emulator/src/seed.js";
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

/**
 * `seed` with the sample (emulator/src/family.ts `sample`) of every family member its first
 * item of the member's level does not hold (the first org, its first project, context,
 * pipeline…): a live item of every family, for a test that must meet every kind's items
 * (drift's unmanaged list) without naming the families. The seed is not changed.
 */
export const withSamples = (seed: Seed, families: readonly Family[] = FAMILIES): Seed => {
  const out = structuredClone(seed) as Seed & Record<string, unknown>;
  const fill = (item: Record<string, unknown>, level: string): void => {
    for (const m of membersAt(families, level)) {
      if (item[m.key] === undefined && m.sample !== undefined)
        item[m.key] = structuredClone(m.sample);
      const first = isLevelMember(m) ? (item[m.key] as unknown[] | undefined)?.[0] : undefined;
      if (isLevelMember(m) && typeof first === "object" && first !== null)
        fill(first as Record<string, unknown>, m.level);
    }
  };
  fill(out, "");
  return out;
};

type RawDoc = Record<string, unknown>;
const isObject = (v: unknown): v is RawDoc =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const kindNamed = (type: string, kinds: Kinds): ResourceKind<unknown, unknown> => {
  const kind = kinds.find((k) => k.type === type);
  if (kind === undefined) throw new Error(`no kind ${type}`);
  return kind;
};

/** How deep a kind's items sit below the org: a context 1, its env 2, a trigger 3. */
const depthOf = (kind: ResourceKind<unknown, unknown>, kinds: Kinds): number =>
  kind.parent === "org" ? 1 : 1 + depthOf(kindNamed(kind.parent, kinds), kinds);

/** The items of kind `parent` a raw config document declares (the document itself: the org). */
const rawParents = (doc: RawDoc, parent: string, kinds: Kinds): RawDoc[] => {
  if (parent === "org") return [doc];
  const kind = kindNamed(parent, kinds);
  return rawParents(doc, kind.parent, kinds).flatMap((holder) => {
    const items = holder[kind.config.yamlKey];
    return (Array.isArray(items) ? items : isObject(items) ? Object.values(items) : []).filter(
      isObject,
    );
  });
};

/**
 * The documents that delete what a raw config document declares, kind by kind: for each
 * depth from the deepest up, the document before with every collection of that depth's
 * kinds emptied (`{}` or `[]`, as written), so each kind's items go by delete calls of their
 * own before their parent goes. Kinds without a delete call, or whose items the loader
 * builds (projects: `delete: true`), are left as written. The document is not changed.
 */
export const emptiedDeepestFirst = (doc: RawDoc, kinds: Kinds = ALL_KINDS): RawDoc[] => {
  const deletable = kinds.filter((k) => k.deleteCalls().length > 0 && !k.config.builtByLoader);
  const depths = [...new Set(deletable.map((k) => depthOf(k, kinds)))].sort((a, b) => b - a);
  const steps: RawDoc[] = [];
  let current = structuredClone(doc);
  for (const depth of depths) {
    const next = structuredClone(current);
    let emptied = false;
    for (const kind of deletable.filter((k) => depthOf(k, kinds) === depth)) {
      for (const holder of rawParents(next, kind.parent, kinds)) {
        const items = holder[kind.config.yamlKey];
        const size = Array.isArray(items)
          ? items.length
          : isObject(items)
            ? Object.keys(items).length
            : 0;
        if (size === 0) continue;
        holder[kind.config.yamlKey] = Array.isArray(items) ? [] : {};
        emptied = true;
      }
    }
    if (emptied) steps.push(next);
    current = next;
  }
  return steps;
};
