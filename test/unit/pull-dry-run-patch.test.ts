// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs hold ${env:NAME} placeholders
/**
 * `pull --dry-run`'s diff (issue 41 "pull --dry-run shows the file's own lines"): a patch of
 * the file — GNU `patch` with no fuzz applies it to the file and gives exactly the pulled
 * text — in which no secret stands: a line holding one is masked and never used as context.
 * Pure (src/pull/dry-run-patch.ts) but for `patch`, the real tool, run on temp files.
 */
import { applyPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dryRunPatch } from "../../src/pull/dry-run-patch.js";
import { gnuPatch } from "../helpers/gnu-patch.js";
import { propertyRuns } from "../helpers/property-runs.js";

const LITERAL = "literal-secret-value-41";
const URL = "https://hooks.slack.com/services/T0AAAA/B0BBBB/xyzSECRETxyz";
const BEFORE = `org: gh/acme
contexts:
  deploy:
    env:
      A: ${LITERAL}
      B: \${env:B}
projects:
  gh/acme/api:
    settings:
      enable_building_fork_prs: false
    webhooks:
      slack:
        url: ${URL}
        events: [workflow-completed]
      other:
        # shares https://hooks.slack.com/ with the secret URL: a plain line all the same
        url: \${env:OTHER_URL}
        events: [job-completed]
`;

describe("pull --dry-run's diff", () => {
  it("is a patch of the file's own lines; a line holding a secret is never printed", () => {
    const after = BEFORE.replace("B: ${env:B}", "B: ${env:B}\n      C: ${env:CTX_DEPLOY_C}")
      .replace("fork_prs: false", "fork_prs: true")
      .replace("events: [workflow-completed]", "events: [workflow-completed, job-completed]")
      .replace("events: [job-completed]", "events: [job-completed, workflow-completed]");
    const p = dryRunPatch("waybill.yaml", BEFORE, after, [LITERAL, URL]);
    expect(p.maskedChanges).toBe(0);
    expect(p.text).not.toContain(LITERAL);
    expect(p.text).not.toContain("xyzSECRETxyz");
    expect(p.text).not.toContain("(sensitive)");
    // The plain line that shares the URL's start is the file's own text.
    expect(p.text).toContain(" # shares https://hooks.slack.com/ with the secret URL");
    expect(gnuPatch(BEFORE, p.text)).toBe(after);
    expect(applyPatch(BEFORE, p.text, { fuzzFactor: 0 })).toBe(after);
    // Every context line is a line of the file.
    const lines = new Set(BEFORE.split("\n"));
    for (const l of p.text.split("\n").filter((x) => x.startsWith(" "))) {
      expect(lines.has(l.slice(1)), l).toBe(true);
    }
  });

  it("masks a changed line that holds a secret, and counts it", () => {
    const after = BEFORE.replace(`url: ${URL}`, "url: ${env:WEBHOOK_API_SLACK_URL}");
    const p = dryRunPatch("waybill.yaml", BEFORE, after, [LITERAL, URL]);
    expect(p.maskedChanges).toBe(1);
    expect(p.text).toContain(
      "-        url: (sensitive)\n+        url: ${env:WEBHOOK_API_SLACK_URL}",
    );
    expect(p.text).not.toContain("xyzSECRETxyz");
  });

  it("masks a secret however it is written: quoted, as a block over lines, in a comment", () => {
    const before = `org: gh/acme # ${LITERAL}
contexts:
  a:
    env:
      Q: "literal-\\u0073ecret-value-41"
      M: |
        line one
        line two
      N: plain
`;
    const after = before.replace("N: plain", "N: plain2");
    const secrets = [LITERAL, "line one\nline two\n"];
    const p = dryRunPatch("w.yaml", before, after, secrets);
    expect(p.text).not.toMatch(/literal-|line one|line two/);
    expect(p.text).toContain("@@ -9,1 +9,1 @@\n-      N: plain\n+      N: plain2\n");
    expect(gnuPatch(before, p.text)).toBe(after);
    // A changed block scalar: each of its lines is masked.
    const changed = dryRunPatch("w.yaml", before, before.replace("line two", "line 2"), secrets);
    expect(changed.text).not.toMatch(/line one|line two/);
  });

  it("masks a literal at a secret place no secret value names (a template's URL)", () => {
    const before =
      "org: gh/acme\ntemplates:\n  projects:\n    t:\n      webhooks:\n        w:\n          url: https://template.example.com/hook-9z\n          events: [job-completed]\ncontexts: {}\n";
    const after = before.replace("contexts: {}", "contexts:\n  c: {}");
    const isUrl = (p: readonly (string | number)[]) => p[p.length - 1] === "url";
    const p = dryRunPatch("w.yaml", before, after, [], isUrl);
    expect(p.text).not.toContain("template.example.com");
    expect(gnuPatch(before, p.text)).toBe(after);
    // Without the place, it was a context line.
    expect(dryRunPatch("w.yaml", before, after, []).text).toContain("template.example.com");
  });

  it("keeps a file's own CRLF and missing final newline, and escapes control characters", () => {
    const before = "org: gh/acme\r\ncontexts:\r\n  a: {} # \u202e\r\n  b: {}";
    const after = "org: gh/acme\r\ncontexts:\r\n  a: {} # \u202e\r\n  c: {}";
    const p = dryRunPatch("w.yaml", before, after, []);
    expect(p.text).toContain("\\u202e");
    expect(p.text).not.toContain("\u202e");
    expect(p.text).toContain("\\ No newline at end of file");
    const plain = dryRunPatch(
      "w.yaml",
      before.replace("\u202e", "x"),
      after.replace("\u202e", "x"),
      [],
    );
    expect(gnuPatch(before.replace("\u202e", "x"), plain.text)).toBe(after.replace("\u202e", "x"));
  });

  it("property: applies exactly and holds no secret, for random files and edits", () => {
    const SECRETS = ["secret-aaaa-1111", "secret-bbbb-2222", "secret-cccc-3333"];
    const line = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: 9 }).map((i) => `key${i}: value${i}`) },
      { weight: 1, arbitrary: fc.constantFrom(...SECRETS).map((s) => `secret: ${s}`) },
      { weight: 1, arbitrary: fc.constantFrom("# a comment", "", "list:", "  - item") },
    );
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom("insert", "delete", "change"),
      text: fc.integer({ min: 0, max: 99 }).map((i) => `new${i}: \${env:N${i}}`),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 40 }),
        fc.array(edit, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (lines, edits, finalNewline) => {
          // A secret on a last line with no newline changes when a line is added after it
          // (unified diff's rule): a plain last line keeps that case out of this property.
          const start = finalNewline ? lines : [...lines, "tail: end"];
          const out = [...start];
          for (const e of edits) {
            const i = e.at % (out.length + 1);
            // pull never rewrites a line that holds a secret here (the masked case above).
            const kept = out[i] === undefined || out[i] === "tail: end";
            if (e.kind !== "insert" && (kept || out[i]?.startsWith("secret:"))) continue;
            if (e.kind === "insert") out.splice(i, 0, e.text);
            else if (e.kind === "delete") out.splice(i, 1);
            else out[i] = e.text;
          }
          const nl = finalNewline ? "\n" : "";
          const before = `${start.join("\n")}${nl}`;
          const after = `${out.join("\n")}${nl}`;
          const p = dryRunPatch("f.yaml", before, after, SECRETS);
          for (const s of SECRETS) expect(p.text).not.toContain(s);
          expect(p.maskedChanges).toBe(0);
          if (before === after) expect(p.text).toBe("");
          else {
            expect(applyPatch(before, p.text, { fuzzFactor: 0 })).toBe(after);
            expect(gnuPatch(before, p.text)).toBe(after);
          }
        },
      ),
      { numRuns: propertyRuns(60), seed: 41 },
    );
  });
});
