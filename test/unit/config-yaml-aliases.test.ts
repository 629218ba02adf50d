/**
 * Issue 21: an alias or merge-key bomb far under the 1 MiB limit hung validate (45 KB: 15 s)
 * because every alias was resolved by searching the whole document. The check is one pass;
 * the tests count the work (yaml's per-alias search, and the pass's node visits), not time.
 */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import type * as Yaml from "yaml";
import { DEFAULT_ALIAS_LIMITS, expandAliases } from "../../src/config/yaml-aliases.js";
import { parseYaml } from "../../src/config/yaml-doc.js";

const yaml = createRequire(import.meta.url)("yaml") as typeof Yaml;

/** ~45 KB: 1,000 anchors, each used through merge keys and plain aliases. */
const mergeBomb = (n: number): string => {
  const lines = ["org: gh/acme", "x-anchors:"];
  for (let i = 0; i < n; i++) lines.push(`  a${i}: &a${i} {k: ${i}}`);
  lines.push("x-uses:");
  for (let i = 0; i < n; i++) lines.push(`  - {<<: *a${i}, z: *a${i}, y: [*a${i}, *a${i}]}`);
  return `${lines.join("\n")}\n`;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("YAML aliases", () => {
  it("a 45 KB merge-key/alias file: no per-alias search of the document, a linear pass", () => {
    const text = mergeBomb(1_000);
    expect(text.length).toBeGreaterThan(45_000);
    const resolve = vi.spyOn(yaml.Alias.prototype, "resolve");
    const r = parseYaml("bomb.yaml", text);
    expect(r.ok).toBe(true);
    // The old check called resolve once per alias, each a walk of the whole document.
    expect(resolve).not.toHaveBeenCalled();
    // The pass visits each written node once: count the visits through the injected API.
    const doc = yaml.parseDocument(text);
    let visits = 0;
    const counted = {
      isAlias: (n: unknown): n is Yaml.Alias => {
        visits++;
        return yaml.isAlias(n);
      },
      isMap: yaml.isMap,
      isPair: yaml.isPair,
      isScalar: yaml.isScalar,
      isSeq: yaml.isSeq,
    };
    const check = expandAliases(counted, doc);
    expect(check).toMatchObject({ ok: true, aliases: 4_000 });
    let nodes = 0;
    yaml.visit(doc, { Node: () => void nodes++ });
    expect(visits).toBeLessThanOrEqual(2 * nodes);
  });

  it("the expanded value is what yaml's own expansion gives", () => {
    const text = "org: gh/acme\nx-a: &a {k: [1, 2]}\nx-b: {<<: *a, c: *a}\nx-c: [*a, &b x, *b]\n";
    const r = parseYaml("a.yaml", text);
    expect(r.ok && r.value).toEqual(yaml.parse(text, { merge: true }));
  });

  it.each<[string, string, RegExp]>([
    ["a recursive alias", "org: gh/acme\nx: &a [1, *a]\n", /recursive alias/],
    [
      "a billion laughs",
      `org: gh/acme\n${["a", "b", "c", "d", "e", "f", "g", "h"]
        .map(
          (k, i, all) =>
            `${k}: &${k} [${
              i === 0
                ? '"lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"'
                : Array(10)
                    .fill(`*${all[i - 1]}`)
                    .join(",")
            }]`,
        )
        .join("\n")}\n`,
      /too many alias expansions \(more than 100000 nodes added\)/,
    ],
    [
      "too many aliases",
      `org: gh/acme\nx: &a 1\ny: [${Array(DEFAULT_ALIAS_LIMITS.count + 1)
        .fill("*a")
        .join(",")}]\n`,
      /too many aliases \(more than 10000\)/,
    ],
  ])("%s is refused at the alias", (_, text, message) => {
    const resolve = vi.spyOn(yaml.Alias.prototype, "resolve");
    const r = parseYaml("b.yaml", text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.diagnostics.map((d) => d.code)).toEqual(["alias_limit"]);
    expect(!r.ok && r.diagnostics[0]?.message).toMatch(message);
    expect(!r.ok && r.diagnostics[0]?.line).toBeGreaterThan(1);
    expect(resolve).not.toHaveBeenCalled();
  });
});
