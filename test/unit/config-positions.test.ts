// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs spell ${env:…} references
/**
 * Source positions (issue 16): every diagnostic names file:line:col, and the parser indexes
 * positions only when one is looked up (src/config/yaml-doc.ts). Whatever the indexing does
 * to go fast, a position must be where the key or value is written: checked on generated
 * documents in block and flow style, through aliases (which point at the alias, not at its
 * anchor, even after the value was built with the aliases expanded), and on the bench's
 * large config, as `validate` reports it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { generateOrg } from "../../bench/generate.js";
import { formatDiagnostic, loadConfig } from "../../src/config/index.js";
import { type DocPath, locate, type Pos, parseYaml, pathKey } from "../../src/config/yaml-doc.js";
import { propertyRuns } from "../helpers/property-runs.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-positions-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The text from line:col on. */
const textAt = (text: string, { line, col }: Pos): string => {
  const lines = text.split("\n");
  return [lines[line - 1]?.slice(col - 1) ?? "", ...lines.slice(line)].join("\n");
};

/** Every leaf (scalar) path of a plain value, and every map key path. */
const paths = (value: unknown, path: DocPath = []): { path: DocPath; leaf: unknown }[] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => paths(v, [...path, i]));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => [
      { path: [...path, k], leaf: undefined },
      ...paths(v, [...path, k]),
    ]);
  return [{ path, leaf: value }];
};

/** How a key or a scalar may be written: plain or quoted. */
const spellings = (s: string): string[] => [s, JSON.stringify(s), `'${s}'`];

const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
const scalar = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9 ._-]{0,10}[a-z0-9]$/),
  fc.integer({ min: 0, max: 100_000 }),
  fc.boolean(),
);
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("tree"), { minLength: 1, maxLength: 4 }),
    fc.dictionary(key, tie("tree"), { minKeys: 1, maxKeys: 5 }),
  ),
}));

describe("source positions", () => {
  it.each([
    ["block", {}],
    ["flow", { collectionStyle: "flow" as const }],
    [
      "quoted",
      { defaultKeyType: "QUOTE_DOUBLE" as const, defaultStringType: "QUOTE_SINGLE" as const },
    ],
  ])("point at each key and each value as written (%s style)", (_, options) => {
    fc.assert(
      fc.property(fc.dictionary(key, tree, { minKeys: 1, maxKeys: 6 }), (doc) => {
        const text = stringify(doc, options);
        const parsed = parseYaml("t.yaml", text);
        if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
        expect(parsed.value).toEqual(doc);
        for (const { path, leaf } of paths(doc)) {
          const last = path[path.length - 1];
          if (typeof last === "string") {
            const at = textAt(text, locate(parsed.positions, path, "key"));
            expect(
              spellings(last).some((s) => at.startsWith(s)),
              `${path} key: ${at}`,
            ).toBe(true);
          }
          if (leaf !== undefined) {
            const at = textAt(text, locate(parsed.positions, path, "value"));
            expect(
              spellings(String(leaf)).some((s) => at.startsWith(s)),
              `${path}: ${at}`,
            ).toBe(true);
          }
        }
      }),
      { numRuns: propertyRuns(30) },
    );
  });

  it("a value reached through an alias is placed at the alias's entry, not at its anchor", () => {
    const text = "a: &x\n  k: [1, 2]\nb:\n  c: *x\n";
    const parsed = parseYaml("t.yaml", text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).toEqual({ a: { k: [1, 2] }, b: { c: { k: [1, 2] } } });
    expect(locate(parsed.positions, ["a", "k", 1])).toEqual({ line: 2, col: 10 });
    expect(locate(parsed.positions, ["b", "c"])).toEqual({ line: 4, col: 6 });
    // Inside the alias: the entry that holds it (its key), where the user wrote `*x`.
    expect(locate(parsed.positions, ["b", "c", "k", 1])).toEqual({ line: 4, col: 3 });
  });

  it("validate names the place of a problem reached through an alias", async () => {
    const file = join(dir, "alias.yaml");
    await writeFile(
      file,
      "org: gh/acme\ncontexts:\n  a:\n    env: &env\n      TOKEN: 7\n  b:\n    env: *env\n",
    );
    const r = await loadConfig(file, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = r.diagnostics.map((d) => `${d.line}:${d.col} ${d.path}`);
    expect(lines).toEqual(["5:14 contexts.a.env.TOKEN", "7:5 contexts.b.env.TOKEN"]);
  });

  it("validate names file:line:col of a problem in the bench's large config", async () => {
    const gen = generateOrg("large");
    // The last project's nightly cron, near the end of a 4,000-item file.
    const broken = gen.configYaml.replace(
      /cron_expression: "0 2 \* \* \*"(?![\s\S]*cron_expression)/,
      'cron_expression: "0 2 * *"',
    );
    expect(broken).not.toBe(gen.configYaml);
    const file = join(dir, "large.yaml");
    await writeFile(file, broken);
    const r = await loadConfig(file, { env: gen.secrets });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toHaveLength(1);
    const [d] = r.diagnostics;
    const lines = broken.split("\n");
    const line = lines.findLastIndex((l) => l.includes('"0 2 * *"')) + 1;
    const col = (lines[line - 1]?.indexOf('"0 2 * *"') ?? 0) + 1;
    expect(d && formatDiagnostic(d)).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${line}:${col}: projects\\.`),
    );
  });
});

describe("parseYaml and process.env (issue 22: yaml reads LOG_TOKENS per token)", () => {
  it("parses with a plain copy of the environment and puts the real one back", () => {
    const real = process.env;
    process.env.WAYBILL_TEST_MARKER = "kept";
    try {
      const parsed = parseYaml("a.yaml", "org: acme\nprojects:\n  gh/acme/api: {}\n");
      expect(parsed.ok).toBe(true);
      expect(process.env).toBe(real);
      expect(process.env.WAYBILL_TEST_MARKER).toBe("kept");
      // Also after a document yaml refuses.
      expect(parseYaml("b.yaml", "a: [1,\n").ok).toBe(false);
      expect(process.env).toBe(real);
    } finally {
      delete process.env.WAYBILL_TEST_MARKER;
    }
  });
});

describe("pathKey", () => {
  it("is JSON.stringify of the path's segments as strings, for any segments", () => {
    const segment = fc.oneof(
      fc.string({
        unit: fc.constantFrom("a", '"', "\\", "\n", "\u0001", "\u2028", "\ud800", "😀", "é"),
      }),
      fc.string(),
      fc.nat(),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), (path) => {
        expect(pathKey(path)).toBe(JSON.stringify(path.map(String)));
      }),
      { numRuns: propertyRuns(1000) },
    );
  });
});
