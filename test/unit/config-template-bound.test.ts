/**
 * Template expansion is bounded like YAML aliases are: a small config whose templates are
 * copied into many items is refused, naming the template and the counts, before anything
 * is expanded (a PR's config is untrusted in a plan job).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-template-bound-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `contexts` items each extending one template of `vars` env vars. */
const bomb = (vars: number, contexts: number): string => {
  const env = Array.from({ length: vars }, (_, i) => `        K${i}: v`).join("\n");
  const items = Array.from({ length: contexts }, (_, i) => `  c${i}: { extends: [big] }`);
  return `org: gh/acme\ntemplates:\n  contexts:\n    small:\n      env: { A: b }\n    big:\n      env:\n${env}\ncontexts:\n${items.join("\n")}\n  lone: { extends: [small] }\n`;
};

describe("template expansion bound", () => {
  it("refuses a config whose templates would add more values than the bound, at the template", async () => {
    // 40 KB of text that would expand to 400,000 env vars.
    const file = join(dir, "bomb.yaml");
    await writeFile(file, bomb(2_000, 200));
    const r = await loadConfig(file, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toHaveLength(1);
    const [d] = r.diagnostics;
    expect(d).toMatchObject({
      file,
      line: 6,
      col: 5,
      path: "templates.contexts.big",
      code: "template_limit",
    });
    expect(d?.message).toContain(
      'template "big" holds 2,002 values and 200 items extend it (400,400)',
    );
    expect(d?.message).toContain("more than the limit of 250,000");
  });

  it("expands a config at the bound, and counts every use of a template", async () => {
    const file = join(dir, "ok.yaml");
    // big: a map, its env map, 10 vars = 12 values, times 10 items; small: 3 values, once.
    await writeFile(file, bomb(10, 10));
    expect((await loadConfig(file, { env: {}, templateLimit: 123 })).ok).toBe(true);
    const over = await loadConfig(file, { env: {}, templateLimit: 122 });
    expect(!over.ok && over.diagnostics.map((d) => d.code)).toEqual(["template_limit"]);
  });
});
