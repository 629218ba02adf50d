/**
 * `waybill fmt` (src/pull/fmt.ts, issues 32 and 41): one canonical indentation and spacing,
 * with key order, flow collections, quoting and every comment kept where it is; never a
 * change of meaning (a quoted "<<" stays a key); formatting a formatted file changes nothing;
 * the repository's examples are formatted; `--check` lists the files and exits 1.
 */
import { execFileSync } from "node:child_process";
import { readdir, readFile, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { FormatError, formatYaml } from "../../src/pull/fmt.js";
import { makeTempDir, REPO_ROOT, runCli } from "../helpers/cli.js";
import { propertyRuns } from "../helpers/property-runs.js";

const messy = `# top
projects:
    gh/acme/api:
        webhooks:
            slack: { events: [ workflow-completed ], url: "https://h.example.com/x" }  # the hook
        settings: {is_build_prs_only: 'true' }
org: "gh/acme"
`;

describe("fmt", () => {
  it("writes the canonical indentation, spacing and quote style, and keeps key order, flow collections, quotes and comments", () => {
    const out = formatYaml(messy);
    expect(out).toBe(`# top
projects:
  gh/acme/api:
    webhooks:
      slack: { events: [ workflow-completed ], url: "https://h.example.com/x" }  # the hook
    settings: {is_build_prs_only: "true" }
org: "gh/acme"
`);
    expect(parse(out)).toEqual(parse(messy));
  });

  it("quote style: double quotes, single where the string holds more double quotes; never adds or removes a quote", () => {
    const text = `org: gh/acme
ignore: ['a', "it's", 'context["x"]', "context[\\"y\\"]", '<<', "tab\\tkept", plain, 'o''k']
delete_unknown:
  - address: "context[\\"deploy\\"].restriction[\\"someday:x\\"]"   # aligned comment
    id: '0d000000-0000-4000-8000-000000000001'
`;
    const out = formatYaml(text);
    expect(out).toBe(`org: gh/acme
ignore: ["a", "it's", 'context["x"]', 'context["y"]', "<<", "tab\\tkept", plain, "o'k"]
delete_unknown:
  - address: 'context["deploy"].restriction["someday:x"]'   # aligned comment
    id: "0d000000-0000-4000-8000-000000000001"
`);
    expect(parse(out)).toEqual(parse(text));
    expect(formatYaml(out)).toBe(out);
  });

  it("moves comments with the block they are in, and the lines of a block scalar with their key", () => {
    const text = `org: gh/acme
contexts:
    deploy:
        env:
            A:    x
            B: |
                one
                  two
        # the end of env, kept in the context

    # above staging
    staging:
      restrictions:
      -   project: gh/acme/api   # aligned
      -    expression: x == "y"  # comments
`;
    expect(formatYaml(text)).toBe(`org: gh/acme
contexts:
  deploy:
    env:
      A: x
      B: |
          one
            two
    # the end of env, kept in the context

  # above staging
  staging:
    restrictions:
      - project: gh/acme/api   # aligned
      - expression: x == "y"  # comments
`);
  });

  it('never changes what a file means: a quoted "<<" stays a key, not a merge key', () => {
    const text =
      'org: gh/acme\ncontexts:\n    "<<": { env: {} }\n    prod: &p\n        env: {}\n    copy:\n        <<: *p\n';
    const out = formatYaml(text);
    expect(out).toContain('  "<<": { env: {} }\n');
    expect(parse(out, { merge: true })).toEqual(parse(text, { merge: true }));
    expect(() => formatYaml("org: gh/acme\nsettings: *nowhere\n")).toThrow(FormatError);
  });

  it("changes nothing in the repository's examples", async () => {
    const check = await runCli(["fmt", "--check", join(REPO_ROOT, "examples")]);
    expect(check.stdout).toBe("");
    expect(check.code).toBe(0);
    for (const f of ["full.yaml", "small.yaml", "access.yaml", join("demo", "waybill.yaml")]) {
      const text = await readFile(join(REPO_ROOT, "examples", f), "utf8");
      expect(formatYaml(text), f).toBe(text);
    }
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
        const once = formatYaml(text);
        expect(formatYaml(once)).toBe(once);
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

  it("touches only the config files the loader reads: no workflow, no other YAML, no symlink out of the folder, no FIFO, mode kept", async () => {
    const tmp = await makeTempDir("waybill-fmt-");
    const outside = await makeTempDir("waybill-fmt-out-");
    try {
      const config = await tmp.write("infra/a.yaml", messy, 0o640);
      const workflow = "on:\n    push: {}\njobs:    {}\n";
      await tmp.write("infra/.github/workflows/ci.yml", workflow);
      await tmp.write("infra/other.yaml", workflow);
      const far = await outside.write("far.yaml", messy);
      await symlink(far, tmp.path("infra/link.yaml"));
      await symlink(outside.dir, tmp.path("infra/linked-folder"));
      execFileSync("mkfifo", [tmp.path("infra/pipe.yaml")]);
      const r = await runCli(["fmt", tmp.path("infra")], { timeoutMs: 20_000 });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/Skipped .*other\.yaml: not a Waybill config/);
      expect(r.stderr).toMatch(/Skipped .*link\.yaml: a symlink out of/);
      expect(r.stderr).toMatch(/Skipped .*pipe\.yaml: .*FIFO/);
      expect(await readFile(tmp.path("infra/.github/workflows/ci.yml"), "utf8")).toBe(workflow);
      expect(await readFile(tmp.path("infra/other.yaml"), "utf8")).toBe(workflow);
      expect(await readFile(far, "utf8")).toBe(messy);
      expect(await readFile(config, "utf8")).not.toBe(messy);
      expect((await stat(config)).mode & 0o777).toBe(0o640);
      expect((await readdir(tmp.path("infra"))).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      // Named on the command line, a file that is not config is an error, and is not written.
      const named = await runCli(["fmt", tmp.path("infra/other.yaml")]);
      expect(named.code).toBe(1);
      expect(named.stderr).toMatch(/not a Waybill config/);
      expect(await readFile(tmp.path("infra/other.yaml"), "utf8")).toBe(workflow);
    } finally {
      await tmp.remove();
      await outside.remove();
    }
  });
});
