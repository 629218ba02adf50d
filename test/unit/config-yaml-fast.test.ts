/**
 * Issue 8: the fast YAML path (src/config/yaml-fast.ts) gives exactly the value the full
 * parser (`yaml`, src/config/yaml-doc.ts) gives, for every document it accepts, and leaves
 * everything beyond plain YAML to the full parser. A config read differently would be a
 * different plan, so this is checked on every config in the repository, on generated
 * documents in every style, and on random mutations of them (where a more lenient parser
 * would accept what `yaml` refuses). FUZZ_RUNS=25000 runs the two properties longer, to
 * hunt for a disagreement by hand.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { dump } from "js-yaml";
import { describe, expect, it } from "vitest";
import { stringify, type ToStringOptions } from "yaml";
import { generateOrg } from "../../bench/generate.js";
import { parseYamlFull } from "../../src/config/yaml-doc.js";
import { parseYamlFast, resolvePlainScalar } from "../../src/config/yaml-fast.js";

/** A literal `${`, as references are written in configs. */
const OPEN = ["$", "{"].join("");

const yamlFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(e.name) ? [p] : [];
  });

/** The full parser's value, or undefined when it refuses the text. */
const fullValue = (text: string): { ok: boolean; value?: unknown } => {
  const r = parseYamlFull("t.yaml", text);
  return r.ok ? { ok: true, value: r.value } : { ok: false };
};

/** Whenever the fast path accepts, the full parser accepts too, with the same value. */
const expectAgreement = (text: string): boolean => {
  const fast = parseYamlFast(text);
  if (fast === undefined) return false;
  const full = fullValue(text);
  if (!full.ok || !isDeepStrictEqual(fast, full.value)) {
    throw new Error(
      `the parsers disagree on ${JSON.stringify(text)}:\nfast ${JSON.stringify(fast)}\nfull ${full.ok ? JSON.stringify(full.value) : "refused"}`,
    );
  }
  return true;
};

describe("the fast YAML path", () => {
  it("reads every config in the repository and the bench's generated orgs, as the full parser does", () => {
    const texts = [
      ...yamlFiles("examples")
        .filter((p) => !p.includes(join("examples", "ci")))
        .map((p) => readFileSync(p, "utf8")),
      ...(["small", "large"] as const).flatMap((preset) => {
        const g = generateOrg(preset);
        return [g.configYaml, g.changedConfigYaml];
      }),
    ];
    expect(texts.length).toBeGreaterThan(8);
    // Every one of them is plain YAML: the fast path must take it, not fall back.
    for (const text of texts) expect(expectAgreement(text)).toBe(true);
  });

  it("agrees with the full parser on every bad-config fixture it accepts", () => {
    const fixtures = yamlFiles(join("test", "fixtures", "invalid"));
    expect(fixtures.length).toBeGreaterThan(50);
    let accepted = 0;
    for (const p of fixtures) if (expectAgreement(readFileSync(p, "latin1"))) accepted++;
    // Most fixtures are valid YAML with a schema or rule error: the fast path reads them.
    expect(accepted).toBeGreaterThan(30);
  });

  it.each([
    ["an anchor and an alias", "a: &x 1\nb: *x\n"],
    ["a tag", "a: !!str 1\n"],
    ["a directive", "%YAML 1.1\n---\na: yes\n"],
    ["two documents", "a: 1\n---\nb: 2\n"],
    ["a duplicate key", "a: 1\na: 2\n"],
    ["a duplicate key, quoted once", "a: 1\n'a': 2\n"],
    ["a null key", "~: 1\n"],
    ["an empty key", ": 1\n"],
    ["a number key", "1: a\n"],
    ["a boolean key", "true: a\n"],
    ["a collection key", "[a, b]: c\n"],
    ["an explicit collection key", "? [a]\n: b\n"],
    ["a tab", "a:\t1\n"],
    ["a carriage return that ends no line", "a:\r \n  b: 1\n"],
    ["a top-level sequence", "- a\n"],
    ["a top-level scalar", "just text\n"],
    ["an empty document", ""],
    ["comments only", "# nothing\n"],
    ["a syntax error", "a: [1, 2\n"],
    ["a bad indentation", "a:\n  b: 1\n c: 2\n"],
    ["a lone dash after a key", "v: -\n"],
    ["a quoted scalar over two lines", 'a: "x\\\n\n  y"\n'],
    ["a plain scalar over two lines", "a: x\n  y\n"],
    ["a block scalar with an indentation indicator", "a: |2-\n   x\n"],
    ["a key after a flow collection on its line", 'a:\n- {}"b": 1\n'],
  ])("leaves %s to the full parser", (_what, text) => {
    expect(parseYamlFast(text)).toBeUndefined();
  });

  it("does not even load the full parser for a valid config", () => {
    // In a fresh process, as the CLI runs (dist/ is built before the tests): the `yaml`
    // package costs 20-30 ms of start-up, and only a diagnostic needs it.
    const script = `
      import { createRequire } from "node:module";
      import { loadConfig } from "./dist/config/index.js";
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => /[\\/]node_modules[\\/]yaml[\\/]/.test(p));
      const valid = await loadConfig("examples/small.yaml", { env: {}, resolveSecrets: false });
      const before = loaded();
      const invalid = await loadConfig("test/fixtures/invalid/unknown-key-top.yaml", { env: {}, resolveSecrets: false });
      console.log(JSON.stringify({ valid: valid.ok, invalid: invalid.ok, before, after: loaded() }));
    `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({
      valid: true,
      invalid: false,
      before: false,
      after: true,
    });
  });

  it("keeps __proto__ an ordinary key, as the full parser does", () => {
    const text = "__proto__: {polluted: true}\na: 1\n";
    const fast = parseYamlFast(text);
    expect(fast && Object.keys(fast)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(expectAgreement(text)).toBe(true);
  });

  it("resolves plain scalars by the YAML 1.2 core schema, as the full parser does", () => {
    const plain = [
      ...["~", "null", "Null", "NULL", "", "true", "True", "TRUE", "false", "FALSE", "tRUE"],
      ...["yes", "no", "on", "off", "y", "n"], // YAML 1.1 booleans: strings in 1.2
      ...["0", "-0", "+0", "12", "+12", "-12", "012", "99999999999999999999", "1_000"],
      ...["0o17", "0o8", "0x1F", "0x", "-0x1A", "0b101", "0xG"],
      ...["1.", ".5", "-.5", "1.5", "1e3", "1E+3", "-1e-3", "1e400", "1.e3", ".e3", "1e"],
      ...[".inf", "-.Inf", "+.INF", ".nan", ".NaN", ".NAN", "-.nan", "nan", "inf"],
      ...["2001-12-14", "12:30", "=", ".", "+", "1-2", "1.2.3", "0.1.2"],
    ];
    for (const s of plain) {
      const full = fullValue(`v: ${s}\n`);
      expect(full.ok, s).toBe(true);
      expect(Object.is(resolvePlainScalar(s), (full.value as { v: unknown }).v), s).toBe(true);
      // The same scalar, quoted, is a string.
      if (s !== "") expect(parseYamlFast(`v: '${s}'\n`)).toEqual({ v: s });
    }
  });

  // ---------------------------------------------------------------------------------------
  // Generated documents in every style the two YAML writers produce, then mutated.
  // ---------------------------------------------------------------------------------------

  /** Strings that look like other types, hold YAML's indicators, or span lines. */
  const trickyString = fc.oneof(
    fc.constantFrom(
      "",
      " ",
      "null",
      "~",
      "true",
      "no",
      "0x1F",
      "0b1",
      "1e3",
      ".inf",
      "12:30",
      "- a",
      "a: b",
      "a #b",
      "#c",
      "'q'",
      '"dq"',
      "[x]",
      "{y}",
      "*x",
      "&a",
      "!t",
      "%d",
      "@r",
      "`b",
      "? k",
      "|",
      ">",
      `${OPEN}env:X}`,
      `$${OPEN}env:X}`,
      "a\nb",
      "a\n\nb\n",
      " lead",
      "trail ",
      "\\",
      "é ☺ \u2028",
    ),
    fc.string({
      unit: fc.constantFrom(
        ...["a", "b", " ", ":", "#", "-", "'", '"', "\n", "{", "[", ",", "1", "."],
        // Line breaks in YAML 1.1 but not 1.2, a carriage return, a non-breaking space.
        ...["\u0085", "\u2028", "\u2029", "\r", "\u00a0"],
      ),
      maxLength: 12,
    }),
  );
  const key = fc.oneof(
    fc.constantFrom(
      "org",
      "contexts",
      "env",
      "AWS_REGION",
      "gh/acme/api",
      "deploy-prod",
      "a b",
      "k:v",
      "#k",
    ),
    trickyString.filter((s) => s !== ""),
  );
  const scalar = fc.oneof(
    trickyString,
    fc.integer(),
    fc.double({ noNaN: false }),
    fc.boolean(),
    fc.constant(null),
  );
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("tree"), { maxLength: 4 }),
      fc.dictionary(key, tie("tree"), { maxKeys: 4 }),
    ),
  }));
  const doc = fc.dictionary(key, tree, { minKeys: 1, maxKeys: 5 });

  const yamlOptions: fc.Arbitrary<ToStringOptions> = fc.record({
    defaultStringType: fc.constantFrom(
      "PLAIN",
      "QUOTE_DOUBLE",
      "QUOTE_SINGLE",
      "BLOCK_LITERAL",
      "BLOCK_FOLDED",
    ),
    defaultKeyType: fc.constantFrom(null, "PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"),
    collectionStyle: fc.constantFrom("any", "block", "flow"),
    indent: fc.constantFrom(2, 4),
    indentSeq: fc.boolean(),
    lineWidth: fc.constantFrom(0, 12, 80),
    minContentWidth: fc.constantFrom(0, 4),
    flowCollectionPadding: fc.boolean(),
  }) as fc.Arbitrary<ToStringOptions>;
  const writtenLf = fc.oneof(
    fc.tuple(doc, yamlOptions).map(([d, o]) => stringify(d, o)),
    fc
      .tuple(
        doc,
        fc.record({
          flowLevel: fc.integer({ min: -1, max: 2 }),
          quoteStyle: fc.constantFrom<"single" | "double">("single", "double"),
          forceQuotes: fc.boolean(),
          seqNoIndent: fc.boolean(),
          seqInlineFirst: fc.boolean(),
          flowBracketPadding: fc.boolean(),
          quoteFlowKeys: fc.boolean(),
          lineWidth: fc.constantFrom(12, 20, 80),
        }),
      )
      .map(([d, o]) => dump(d, { ...o, noRefs: true })),
  );
  /** Either as written, or with Windows line ends. */
  const written = fc
    .tuple(writtenLf, fc.boolean())
    .map(([text, crlf]) => (crlf ? text.replace(/\n/g, "\r\n") : text));

  it("gives the full parser's value for generated documents in every style", () => {
    let accepted = 0;
    fc.assert(
      fc.property(written, (text) => {
        if (expectAgreement(text)) accepted++;
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1500) / 4 },
    );
    expect(accepted).toBeGreaterThan(200);
  });

  it("never accepts a mutated document the full parser refuses or reads differently", () => {
    const mutation = fc.tuple(
      fc.nat(),
      fc.constantFrom("insert", "delete", "replace"),
      fc.constantFrom(
        " ",
        "  ",
        "\n",
        ":",
        ": ",
        "-",
        "- ",
        "#",
        " #",
        "'",
        '"',
        "[",
        "]",
        "{",
        "}",
        ",",
        "?",
        "|",
        ">",
        "\\",
        "a",
        "1",
      ),
    );
    fc.assert(
      fc.property(written, fc.array(mutation, { minLength: 1, maxLength: 3 }), (text, edits) => {
        let t = text;
        for (const [at, op, s] of edits) {
          const i = t.length === 0 ? 0 : at % t.length;
          t =
            op === "insert"
              ? t.slice(0, i) + s + t.slice(i)
              : op === "delete"
                ? t.slice(0, i) + t.slice(i + 1)
                : t.slice(0, i) + s + t.slice(i + 1);
        }
        expectAgreement(t);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1500) },
    );
  });
});
