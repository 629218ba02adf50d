// biome-ignore-all lint/suspicious/noTemplateCurlyInString: inputs spell ${env:…} references
/**
 * Issue 7, bad input: the config loader given random YAML trees (shaped like a config, and
 * arbitrary) and random bytes returns a value, never throws: either a config or config
 * diagnostics with a known code and a position. And a 1 MB config is validated in CPU time
 * linear in its size.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { DIAGNOSTIC_CODES, type LoadResult, loadConfig } from "../../src/config/index.js";
import { propertyRuns } from "../helpers/property-runs.js";

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-fuzz-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = "fuzz-secret-value-QQ9911";
const ENV = { FUZZ_SECRET: SECRET };

const load = async (content: string | Uint8Array): Promise<LoadResult> => {
  n += 1;
  const file = join(dir, `c${n}.yaml`);
  await writeFile(file, content);
  return loadConfig(file, { env: ENV });
};

/** Only config diagnostics: known codes, a file, a line and a column, a message. */
const expectConfigOutcome = (r: LoadResult): void => {
  if (r.ok) return;
  expect(r.diagnostics.length).toBeGreaterThan(0);
  for (const d of r.diagnostics) {
    expect(DIAGNOSTIC_CODES).toContain(d.code);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.col).toBeGreaterThanOrEqual(1);
    expect(typeof d.message).toBe("string");
    expect(d.message).not.toContain(SECRET);
  }
};

/** Keys the config knows, so random trees reach the schema, rules and reference checks. */
const KEYS = [
  "org",
  "settings",
  "contexts",
  "projects",
  "env",
  "restrictions",
  "webhooks",
  "pipelines",
  "triggers",
  "ignore",
  "url",
  "events",
  "signing_secret",
  "config",
  "checkout",
  "event",
  "type",
  "schedule",
  "cron_expression",
  "vcs",
  "provider",
  "repo_id",
  "parameters",
  "id",
  "project",
  "expression",
  "group",
  "gh/acme",
  "gh/acme/api",
  "deploy",
] as const;

const scalar = fc.oneof(
  fc.constantFrom(
    "gh/acme",
    "${env:FUZZ_SECRET}",
    "${env:MISSING}",
    "${file:nope.pem}",
    "$${env:X}",
    "0 2 * * *",
    "https://hooks.example.com/x",
    "vcs",
    "schedule",
    "webhook",
    "all-members",
    "",
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie("tree"), {
      maxKeys: 5,
    }),
  ),
}));

const configTree = fc.record(
  { org: fc.oneof(fc.constant("gh/acme"), scalar), contexts: tree, projects: tree, ignore: tree },
  { requiredKeys: [] },
);

describe("config loader fuzz", () => {
  it("random config-shaped YAML trees give a config or diagnostics, never an exception", async () => {
    await fc.assert(
      fc.asyncProperty(configTree, async (t) => {
        expectConfigOutcome(await load(stringify(t)));
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it("arbitrary YAML values and random text give diagnostics, never an exception", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything().map((v) => stringify(v) ?? ""),
          fc.string({ maxLength: 200 }),
          fc.constantFrom(
            "&a [*a]",
            "a: &x\n  b: *x\n",
            "? [a]\n: b\n",
            "%YAML 9.9\n---\n",
            "--- !!binary x",
          ),
        ),
        async (text) => {
          expectConfigOutcome(await load(text));
        },
      ),
      { numRuns: propertyRuns(25) },
    );
  });

  it("a recursive alias is a diagnostic at the alias, not a stack overflow (found by this fuzz)", async () => {
    for (const text of ["&a [*a]", "org: gh/acme\ncontexts: &c\n  x:\n    env: *c\n"]) {
      const r = await load(text);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.diagnostics.map((d) => d.code)).toEqual(["alias_limit"]);
      expect(!r.ok && r.diagnostics[0]?.message).toMatch(/recursive alias/);
    }
  });

  it("a collection as a map key is a diagnostic, and Node prints no warning (found by this fuzz)", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const r = await load("org: gh/acme\n? [a]\n: b\n");
      expect(!r.ok && r.diagnostics.map((d) => d.message)).toEqual([
        "map keys must be plain strings",
      ]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("random bytes give diagnostics, never an exception", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        expectConfigOutcome(await load(bytes));
      }),
      { numRuns: propertyRuns(25) },
    );
  });

  it("a 1 MB config validates in CPU time linear in its size (no quadratic step)", async () => {
    /** A config of about `bytes` bytes: projects with env vars and a webhook each. */
    const config = (bytes: number): string => {
      const parts: string[] = [];
      let size = 0;
      for (let i = 0; size < bytes; i++) {
        const part = `  gh/acme/p${i}:\n    env:\n      A_${i}: \${env:FUZZ_SECRET}\n      PLAIN: value-${i}\n    webhooks:\n      hook:\n        url: https://hooks.example.com/${i}\n        events: [workflow-completed]\n`;
        parts.push(part);
        size += part.length;
      }
      return `org: gh/acme\nprojects:\n${parts.join("")}`;
    };
    const cpuMs = async (text: string): Promise<number> => {
      const before = process.cpuUsage();
      const r = await load(text);
      const used = process.cpuUsage(before);
      expect(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics.slice(0, 3))).toBe(true);
      return (used.user + used.system) / 1000;
    };
    const small = config(125 * 1000);
    const large = config(1000 * 1000);
    // Just under the 1 MiB file bound, so the whole file is validated, not refused by size.
    expect(large.length).toBeGreaterThan(1000 * 1000);
    expect(large.length).toBeLessThan(1024 * 1024);
    // Decision (issue 16): the large file against one 8 times smaller, in the same process,
    // rather than against a fixed CPU budget: the budget (2 s) failed on a busy 2-core
    // machine once `yaml` alone reads every config (its parse is most of the time), while a
    // ratio holds under any load. Linear is 8× at most (less, as a larger file is read by warmer code), a quadratic step 64×; the bound is 12×.
    // The absolute figure is measured in bench/ (README, "Config loading").
    await cpuMs(small); // once first, so both measured runs find the code compiled
    const smallMs = await cpuMs(small);
    const largeMs = await cpuMs(large);
    expect(largeMs / smallMs).toBeLessThan(12);
  });
});
