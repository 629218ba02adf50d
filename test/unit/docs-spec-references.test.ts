/**
 * Issue 46: what a user reads (messages, the JSON schemas' descriptions, README, docs/, the
 * examples) cites the service's API reference and Waybill's design only in ways a user can
 * follow. The spec files (api-v3.md, api-v2-v1.md) and the design documents (design.md,
 * conventions.md) are not in the repository nor in the package, so no user-facing text may
 * name them or say `spec:`; a section is cited in words, `the API reference, "Limits"`, or in
 * the shipped digest, `docs/spec-notes.md "Spec-only settings"` (`docs/spec-notes.md,
 * design §1 "Plans"`), and either must name a heading docs/spec-notes.md has.
 *
 * Code comments are for developers and keep their `spec: api-v3.md "…"` citations, which
 * test/unit/docs-spec-notes.test.ts resolves against the same notes. Only the text of string
 * literals is user-facing in src/ and emulator/src/ (read with the TypeScript parser, so a
 * comment is never taken for a message); src/generated/ is the config schema, read here
 * from schemas/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const NOTES = "docs/spec-notes.md";

const walk = (dir: string, keep: (name: string) => boolean): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : walk(p, keep);
    return keep(e.name) ? [p] : [];
  });

interface Text {
  readonly where: string;
  readonly text: string;
}

/** The value of every string and template literal piece of a TypeScript file. */
const stringLiterals = (file: string): Text[] => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const out: Text[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      out.push(at(source, node, node.text));
    } else if (ts.isTemplateExpression(node)) {
      // The literal pieces joined, so a citation split by a `${…}` still reads as one.
      out.push(
        at(
          source,
          node,
          [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("…"),
        ),
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
};

const at = (source: ts.SourceFile, node: ts.Node, text: string): Text => ({
  where: `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`,
  text,
});

/** Every string value of a JSON document (the schemas' descriptions and messages). */
const jsonStrings = (file: string): Text[] => {
  const out: Text[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === "string") out.push({ where: `${file} ${path}`, text: value });
    else if (Array.isArray(value)) {
      value.forEach((v, i) => {
        visit(v, `${path}/${i}`);
      });
    } else if (value !== null && typeof value === "object")
      for (const [k, v] of Object.entries(value)) visit(v, `${path}/${k}`);
  };
  visit(JSON.parse(readFileSync(file, "utf8")), "");
  return out;
};

/** Each line of a document a user reads. */
const lines = (file: string): Text[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .map((text, i) => ({ where: `${file}:${i + 1}`, text }));

const userTexts = (): Text[] => [
  ...[
    ...walk("src", (n) => n.endsWith(".ts")),
    ...walk("emulator/src", (n) => n.endsWith(".ts")),
  ].flatMap(stringLiterals),
  ...walk("schemas", (n) => n.endsWith(".json")).flatMap(jsonStrings),
  ...["README.md", "bench/README.md", "action.yml"].flatMap(lines),
  ...walk("docs", (n) => n.endsWith(".md"))
    .filter((f) => f !== NOTES)
    .flatMap(lines),
  ...walk("examples", (n) => /\.(ya?ml|md|json|sh|mjs)$/.test(n)).flatMap(lines),
];

/** Names of documents a user does not have, and the `spec:` label that cites them. */
const UNSHIPPED =
  /\b(?:api-v3|api-v2-v1|design|conventions)\.md\b|(?:^|[\s`'"(])spec\/|\bspec:|\bsee (?:the )?spec\b/i;

/** The headings of docs/spec-notes.md (any level, any part). */
const headings = (): Set<string> =>
  new Set(
    readFileSync(NOTES, "utf8")
      .split("\n")
      .map((l) => /^#{2,6} (.+?)\s*$/.exec(l)?.[1])
      .filter((h): h is string => h !== undefined),
  );

/** The sections a text cites in words or in the notes, each with the heading it must match. */
const citedSections = (text: string): { cited: string; heading: string }[] => {
  const out: { cited: string; heading: string }[] = [];
  // `the API reference, "Limits"`, `the API reference, V2 "Limits"`, `…, "Pipelines" and "Triggers"`.
  for (const m of text.matchAll(/the API\s+reference, (?:V2 )?((?:"[^"]+"(?: and )?)+)/g)) {
    for (const q of (m[1] ?? "").matchAll(/"([^"]+)"/g))
      out.push({ cited: m[0], heading: q[1] ?? "" });
  }
  // `docs/spec-notes.md "Spec-only settings"`, `docs/spec-notes.md, design §1 "Plans"`.
  for (const m of text.matchAll(/spec-notes\.md,? (?:design §\d+ )?"([^"]+)"/g)) {
    out.push({ cited: m[0], heading: m[1] ?? "" });
  }
  return out;
};

describe("citations a user reads", () => {
  const texts = userTexts();

  it("reads the places users read (the scan itself)", () => {
    // Thousands of messages and lines; far fewer would mean the scan broke.
    expect(texts.length).toBeGreaterThan(5_000);
    expect(texts.some((t) => t.where.startsWith("src/kinds/group.ts"))).toBe(true);
    expect(texts.some((t) => t.where.startsWith("schemas/waybill.schema.json"))).toBe(true);
    // A comment is not a message: group.ts cites the spec in its comments.
    expect(readFileSync("src/kinds/group.ts", "utf8")).toMatch(/\/\*\*.*spec: api-v2-v1\.md/);
  });

  it("never names a spec or design file a user does not have", () => {
    const bad = texts
      .filter((t) => UNSHIPPED.test(t.text))
      .map((t) => `${t.where}: ${t.text.trim().slice(0, 120)}`);
    expect(bad).toEqual([]);
  });

  it("names only sections docs/spec-notes.md has", () => {
    const known = headings();
    const cited = texts.flatMap((t) =>
      citedSections(t.text).map((c) => ({ ...c, where: t.where })),
    );
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter((c) => !known.has(c.heading)).map((c) => `${c.where}: ${c.cited}`)).toEqual(
      [],
    );
  });

  it("tells the forms apart (the matchers themselves)", () => {
    expect(UNSHIPPED.test("(spec: api-v2-v1.md Limits)")).toBe(true);
    expect(UNSHIPPED.test("following `spec/api-v3.md`")).toBe(true);
    expect(UNSHIPPED.test('(design.md §1 "Plans")')).toBe(true);
    expect(UNSHIPPED.test('(the API reference, V2 "Limits")')).toBe(false);
    expect(UNSHIPPED.test('(docs/spec-notes.md "Spec-only settings")')).toBe(false);
    expect(
      citedSections('the API reference, "Pipelines" and "Triggers"').map((c) => c.heading),
    ).toEqual(["Pipelines", "Triggers"]);
    expect(citedSections('docs/spec-notes.md, design §1 "Plans"').map((c) => c.heading)).toEqual([
      "Plans",
    ]);
  });
});
