/**
 * `waybill fmt` (src/pull/fmt.ts, issue 32): one canonical layout — two-space indentation,
 * block collections, keys in the schema's order, quotes only where YAML needs them — with
 * every comment kept; formatting a formatted file changes nothing; an anchor stays before
 * its aliases; `--check` lists the files and exits 1.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { readConfigSchema } from "../../src/config/schema-check.js";
import { FormatError, formatYaml } from "../../src/pull/fmt.js";
import { makeTempDir, REPO_ROOT, runCli } from "../helpers/cli.js";
import { propertyRuns } from "../helpers/property-runs.js";

const schema = readConfigSchema();

const messy = `# top
projects:
    gh/acme/api:
        webhooks:
            slack: { events: [ workflow-completed ], url: "https://h.example.com/x" }  # the hook
        settings: {is_build_prs_only: 'true' }
org: "gh/acme"
`;

describe("fmt", () => {
  it("writes the canonical layout, keys in the schema's order, comments kept", () => {
    const out = formatYaml(messy, schema);
    expect(out).toBe(`# top
org: gh/acme
projects:
  gh/acme/api:
    settings:
      is_build_prs_only: "true"
    webhooks:
      slack:
        # the hook
        url: https://h.example.com/x
        events:
          - workflow-completed
`);
    expect(parse(out)).toEqual(parse(messy));
  });

  it("changes nothing in a formatted file, examples included", async () => {
    for (const f of ["full.yaml", "small.yaml", "access.yaml", join("demo", "waybill.yaml")]) {
      const text = await readFile(join(REPO_ROOT, "examples", f), "utf8");
      const once = formatYaml(text, schema);
      expect(formatYaml(once, schema), f).toBe(once);
      expect(parse(once), f).toEqual(parse(text));
      const comments = (t: string) => t.split("\n").flatMap((l) => /#.*$/.exec(l) ?? []).length;
      expect(comments(once), f).toBe(comments(text));
    }
  });

  it("keeps an anchor before its aliases", () => {
    // x- keys come first in the canonical order, so the anchor is still defined first.
    const xFirst = formatYaml(
      "org: gh/acme\nx-common: &common\n  is_build_prs_only: true\nprojects:\n  gh/acme/api:\n    settings: *common\n",
      schema,
    );
    expect(xFirst.startsWith("x-common: &common\n")).toBe(true);
    // templates come after projects in the schema: reordering would put the alias first,
    // so the keys keep their order.
    const text =
      "org: gh/acme\ntemplates:\n  projects:\n    svc: &svc\n      settings: { is_build_prs_only: true }\nprojects:\n  gh/acme/api: *svc\n";
    const out = formatYaml(text, schema);
    expect(parse(out)).toEqual(parse(text));
    expect(out.indexOf("&svc")).toBeLessThan(out.indexOf("*svc"));
    expect(() => formatYaml("org: gh/acme\nsettings: *nowhere\n", schema)).toThrow(FormatError);
  });

  it("is idempotent on random documents", () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.oneof(
          fc.string(),
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
          fc.constantFrom("true", "0x1", "a: b", "#x", "- y", ""),
        ),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(
          fc.constantFrom("org", "settings", "url", "events", "x-a", "k", "other"),
          tie("node"),
          { maxKeys: 3 },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.boolean(), (v, flow) => {
        const text = stringify(
          { org: "gh/acme", data: v },
          flow ? { collectionStyle: "flow" } : {},
        );
        const once = formatYaml(text, schema);
        expect(formatYaml(once, schema)).toBe(once);
        expect(parse(once)).toEqual(parse(text));
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it("--check lists the files that would change and exits 1; fmt writes them; then --check is 0", async () => {
    const tmp = await makeTempDir("waybill-fmt-");
    try {
      await tmp.write("infra/a.yaml", messy);
      await tmp.write("infra/b.yaml", "org: gh/acme\n");
      const check = await runCli(["fmt", "--check", tmp.path("infra")]);
      expect(check.code).toBe(1);
      expect(check.stdout).toBe(`${tmp.path("infra/a.yaml")}\n`);
      expect(await readFile(tmp.path("infra/a.yaml"), "utf8")).toBe(messy);
      expect((await runCli(["fmt", tmp.path("infra")])).code).toBe(0);
      expect((await runCli(["fmt", "--check", tmp.path("infra")])).code).toBe(0);
    } finally {
      await tmp.remove();
    }
  });
});
