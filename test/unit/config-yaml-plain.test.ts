// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs write ${env:NAME} references literally
/**
 * The plain-subset reader (src/config/yaml-plain.ts) never decides anything `yaml` would
 * answer differently: for any text, it gives exactly the value `yaml` gives (a document
 * `yaml` reads without an error or a warning), or it declines (`undefined`) and the loader
 * parses the file with `yaml`, which reports what is wrong. Checked on random documents
 * written in every style the subset reads and many it does not, on those documents with
 * random edits, on the repository's configs and bad-config corpus, and on a list of the
 * cases the subset declines by design.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { parseYaml, parseYamlDocument } from "../../src/config/yaml-doc.js";
import { readPlainYaml } from "../../src/config/yaml-plain.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { propertyRuns } from "../helpers/property-runs.js";

const REFUSED = Symbol("yaml refuses it");
/**
 * More runs for a longer search (600,000 were run without a difference):
 * YAML_PLAIN_RUNS=150000 npx vitest run <this file>, or PROPERTY_RUNS_SCALE as for every
 * property (test/helpers/property-runs.ts).
 */
const RUNS = Number(process.env.YAML_PLAIN_RUNS ?? propertyRuns(300));

/** What `yaml` gives, with the options yaml-doc.ts uses (and its duplicate-key check on). */
const viaYaml = (text: string): unknown => {
  const doc = parseDocument(text, { merge: true, logLevel: "silent", prettyErrors: false });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return REFUSED;
  try {
    return doc.toJS();
  } catch {
    return REFUSED;
  }
};

/** The property: the subset's answer is yaml's, or none. */
let read = 0;
let declined = 0;
const agrees = (text: string): boolean => {
  const plain = readPlainYaml(text);
  if (plain === undefined) {
    declined++;
    return true;
  }
  read++;
  const yaml = viaYaml(text);
  expect(yaml, text).not.toBe(REFUSED);
  // node's deep equality (prototypes, own properties); vitest's toStrictEqual compares
  // `.constructor`, which a key named `constructor` makes an own value.
  expect(isDeepStrictEqual(plain, yaml), text).toBe(true);
  // Own properties, in yaml's order (`__proto__` included).
  expect(JSON.stringify(plain), text).toBe(JSON.stringify(yaml));
  return true;
};

// --- random documents --------------------------------------------------------------------

type Scalar = { readonly t: "s"; readonly text: string; readonly style: 0 | 1 | 2 };
type Node =
  | Scalar
  | { readonly t: "null" }
  | {
      readonly t: "map";
      readonly entries: readonly (readonly [Scalar, Node])[];
      readonly flow: boolean;
      readonly step: number;
    }
  | {
      readonly t: "list";
      readonly items: readonly Node[];
      readonly flow: boolean;
      readonly step: number;
      readonly compact: boolean;
    };

/** Characters that matter to YAML, and ordinary ones. */
const CHARS = [..."abcxyz0189-_./$~", ..." :#\"'\\[]{},&*!|>%@`?<=", "é", "\u00a0", "\t"];
const WORDS = [
  "true",
  "False",
  "null",
  "~",
  "0x1F",
  "0o17",
  "-12",
  "+3",
  "1.50",
  "1e3",
  ".inf",
  "-.Inf",
  ".nan",
  ".NaN",
  ".Nan",
  ".5",
  "-.5e3",
  "+.inf",
  "0o8",
  "0xg",
  ".",
  "+",
  ".service/config.yml",
  "<<",
  "__proto__",
  "constructor",
  "---",
  "...",
  "${env:TOKEN}",
  "gh/acme/api",
  "https://hooks.example.com/x?a=1#f",
  'pipeline.git.branch == "main"',
];

const scalarText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 8 }),
  },
  { weight: 2, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/) },
);
const scalar: fc.Arbitrary<Scalar> = fc.record({
  t: fc.constant("s" as const),
  text: scalarText,
  style: fc.constantFrom(0 as const, 0 as const, 1 as const, 2 as const),
});
const step = fc.constantFrom(1, 2, 2, 2, 3, 4);

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.constant({ t: "null" as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("map" as const),
        entries: fc.array(fc.tuple(scalar, tie("node")), { maxLength: 4 }),
        flow: fc.boolean(),
        step,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("list" as const),
        items: fc.array(tie("node"), { maxLength: 4 }),
        flow: fc.boolean(),
        step,
        compact: fc.boolean(),
      }),
    },
  ),
}));

const written = (s: Scalar): string =>
  s.style === 1
    ? JSON.stringify(s.text)
    : s.style === 2
      ? `'${s.text.replaceAll("'", "''")}'`
      : s.text;

const flowText = (n: Node): string => {
  switch (n.t) {
    case "s":
      return written(n);
    case "null":
      return "";
    case "map":
      return `{ ${n.entries.map(([k, v]) => `${written(k)}: ${flowText(v)}`).join(", ")} }`;
    case "list":
      return `[${n.items.map(flowText).join(", ")}]`;
  }
};

/** Lines of `n` as a block node at `indent`, or undefined when it is written on its key's line. */
const blockLines = (n: Node, indent: number): { inline: string } | { lines: string[] } => {
  if (n.t === "s") return { inline: written(n) };
  if (n.t === "null") return { inline: "" };
  if (n.flow || (n.t === "map" ? n.entries.length === 0 : n.items.length === 0)) {
    return { inline: flowText(n) };
  }
  const pad = " ".repeat(indent);
  const lines: string[] = [];
  if (n.t === "map") {
    for (const [k, v] of n.entries) {
      const child =
        v.t === "list" && v.compact ? blockLines(v, indent) : blockLines(v, indent + n.step);
      if ("inline" in child)
        lines.push(`${pad}${written(k)}:${child.inline ? ` ${child.inline}` : ""}`);
      else lines.push(`${pad}${written(k)}:`, ...child.lines);
    }
  } else {
    for (const item of n.items) {
      const child = blockLines(item, indent + 2);
      if ("inline" in child) {
        lines.push(`${pad}-${child.inline ? ` ${child.inline}` : ""}`);
      } else {
        // `- key: value` with the rest of the map under it, or `- - x` with the rest of
        // the list under it.
        const [first, ...rest] = child.lines;
        lines.push(`${pad}- ${(first ?? "").trimStart()}`, ...rest);
      }
    }
  }
  return { lines };
};

/** A document: a top-level map, with comments and blank lines sprinkled in. */
const documentText = fc
  .tuple(
    fc.array(fc.tuple(scalar, node), { minLength: 1, maxLength: 5 }),
    fc.array(fc.nat(), { maxLength: 4 }),
    fc.array(fc.nat(), { maxLength: 4 }),
  )
  .map(([entries, comments, blanks]) => {
    const lines =
      (blockLines({ t: "map", entries, flow: false, step: 2 }, 0) as { lines: string[] }).lines ??
      [];
    for (const at of comments) {
      const i = at % lines.length;
      lines[i] = `${lines[i]} # note: x`;
    }
    for (const at of blanks)
      lines.splice(at % (lines.length + 1), 0, at % 2 ? "" : "  # a comment line");
    return `${lines.join("\n")}\n`;
  });

/** The same, with only what the subset reads: it must read all of it. */
const SAFE_CHARS = [..."abcxyz0189-_./$~ ", "é"];
const safeScalar: fc.Arbitrary<Scalar> = fc.record({
  t: fc.constant("s" as const),
  text: fc
    .tuple(
      fc.constantFrom(..."abcxyz$"),
      fc.string({ unit: fc.constantFrom(...SAFE_CHARS), maxLength: 8 }),
    )
    .map(([a, b]) => `${a}${b}`.trimEnd()),
  style: fc.constantFrom(0 as const, 1 as const, 2 as const),
});

describe("the plain-subset YAML reader", () => {
  it("gives yaml's value or declines, for random documents in many styles", () => {
    read = 0;
    declined = 0;
    fc.assert(fc.property(documentText, agrees), { numRuns: RUNS });
    // Not a vacuous property: a share of the random documents are read (about a quarter;
    // the rest hold something the subset declines, as they are meant to).
    expect(read / (read + declined)).toBeGreaterThan(0.1);
  });

  it("gives yaml's value or declines, for random documents with random edits", () => {
    const edit = fc.tuple(fc.nat(), fc.nat(2), fc.constantFrom(...CHARS, "\n", "\n  ", "- ", ": "));
    fc.assert(
      fc.property(documentText, fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
        let t = text;
        for (const [at, op, s] of edits) {
          const i = at % (t.length + 1);
          t =
            op === 0
              ? t.slice(0, i) + s + t.slice(i)
              : op === 1
                ? t.slice(0, i) + t.slice(i + 1)
                : t.slice(0, i) + s + t.slice(i + 1);
        }
        return agrees(t);
      }),
      { numRuns: RUNS },
    );
  });

  it("reads every document of plain strings it is given, in block, flow and compact styles", () => {
    const safeNode = fc.letrec<{ node: Node }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        { weight: 3, arbitrary: safeScalar },
        {
          weight: 1,
          arbitrary: fc.record({
            t: fc.constant("map" as const),
            entries: fc.uniqueArray(fc.tuple(safeScalar, tie("node")), {
              maxLength: 3,
              selector: ([k]) => k.text,
            }),
            flow: fc.boolean(),
            step,
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            t: fc.constant("list" as const),
            items: fc.array(tie("node"), { maxLength: 3 }),
            flow: fc.boolean(),
            step,
            compact: fc.boolean(),
          }),
        },
      ),
    })).node;
    const doc = fc
      .uniqueArray(fc.tuple(safeScalar, safeNode), {
        minLength: 1,
        maxLength: 4,
        selector: ([k]) => k.text,
      })
      .map(
        (entries) =>
          `${(blockLines({ t: "map", entries, flow: false, step: 2 }, 0) as { lines: string[] }).lines.join("\n")}\n`,
      );
    fc.assert(
      fc.property(doc, (text) => {
        expect(readPlainYaml(text), text).not.toBeUndefined();
        return agrees(text);
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it("gives yaml's value for every YAML file in the repository, and reads the configs", () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.ya?ml$/.test(name)) files.push(path);
      }
    };
    for (const dir of ["examples", "test/fixtures", "docs"]) walk(join(REPO_ROOT, dir));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) agrees(readFileSync(file, "utf8"));
    // The example configs are in the subset (the GitHub workflows and the anchors example
    // are not, by design).
    for (const file of ["examples/full.yaml", "examples/demo/waybill.yaml"]) {
      expect(readPlainYaml(readFileSync(join(REPO_ROOT, file), "utf8")), file).toBeDefined();
    }
  });

  it("declines what it does not read, and yaml-doc.ts then gives yaml's diagnostics", () => {
    const declined = [
      "a: &x 1\nb: *x\n", // anchors and aliases
      "a: !!str 1\n", // tags
      "a: |\n  text\n", // block scalars
      "a: >\n  text\n",
      "a: one\n  two\n", // a scalar over two lines
      "a: [1,\n  2]\n", // a flow collection over two lines
      "a: 1\na: 2\n", // a duplicate key
      "a:\n\tb: 1\n", // a tab
      "a: 1\r\n", // CR
      "<<: {a: 1}\n", // a merge key
      "1: a\n", // a key that is not a string
      "true: a\n",
      "? a\n: b\n", // an explicit key
      "---\na: 1\n", // a document marker
      "%YAML 1.2\n---\na: 1\n", // a directive
      "- a\n", // a list at the top
      "a\n", // a scalar at the top
      "", // an empty file
      "# only a comment\n",
      "a: b: c\n", // a map on one line
      'a: "\\x41"\n', // a YAML-only escape
      "a: [a, ]\n", // a trailing comma
      "a:\n  b: 1\n c: 2\n", // bad indentation
      "a: 'x' y\n", // text after a quoted value
      "key : v\n", // a space before the colon
      `${"k".repeat(1100)}: v\n`, // a key over yaml's 1024 characters
    ];
    for (const text of declined) {
      expect(readPlainYaml(text), JSON.stringify(text)).toBeUndefined();
      agrees(text);
    }
    // Through the loader's entry point, a declined file gets yaml's answer unchanged.
    for (const text of ["a: 1\na: 2\n", "a: one\n  two: x\n", "a: &x [1]\nb: *x\n"]) {
      const got = parseYaml("f.yaml", text);
      const want = parseYamlDocument("f.yaml", text);
      expect(got.ok).toBe(want.ok);
      if (!got.ok && !want.ok) expect(got.diagnostics).toEqual(want.diagnostics);
      if (got.ok && want.ok) expect(got.value).toEqual(want.value);
    }
  });

  it("reads what configs are made of, as yaml does", () => {
    const text = [
      "org: gh/acme # the org",
      "",
      "contexts:",
      "  deploy:",
      "    env:",
      "      TOKEN: ${env:TOKEN}",
      '      QUOTED: "a \\"b\\" \\u00e9\\n"',
      "      SINGLE: 'it''s'",
      "      NUM: 0x1F",
      "      FLOAT: 1.50",
      "      EMPTY:",
      "      TILDE: ~",
      "    restrictions:",
      "    - project: gh/acme/api",
      '    - expression: pipeline.git.branch == "main"',
      "    -   group: all",
      "        note: x#y",
      "projects:",
      "  gh/acme/api:",
      "    webhooks:",
      "      hook:",
      "        events: [workflow-completed, 'job-completed', \"x\"]",
      '        vcs: { provider: github_app, repo_id: "1", nested: { a: [b, c] }, url: https://x.test/a }',
      "        none: []",
      "        nothing: {}",
      "__proto__: own",
      "constructor: also own",
    ].join("\n");
    const value = readPlainYaml(text) as Record<string, unknown>;
    expect(value).toBeDefined();
    agrees(text);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect((value.contexts as { deploy: { env: Record<string, unknown> } }).deploy.env).toEqual({
      TOKEN: "${env:TOKEN}",
      QUOTED: 'a "b" é\n',
      SINGLE: "it's",
      NUM: 31,
      FLOAT: 1.5,
      EMPTY: null,
      TILDE: null,
    });
  });

  it("reads the bench's configs as yaml does", async () => {
    const { generateOrg } = (await import("../../bench/generate.js")) as {
      generateOrg: (p: string) => { configYaml: string };
    };
    // The `large` preset (4,000 items) is written as the 40,000-item one is, file by file:
    // the same shapes (flow maps of repos, lists of restrictions, quoted expressions).
    const text = generateOrg("large").configYaml;
    expect(readPlainYaml(text)).toBeDefined();
    agrees(text);
  });
});
