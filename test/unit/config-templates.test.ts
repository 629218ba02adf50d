/**
 * Issue 19: `templates` + `extends`: merged in order, then the item's own keys; maps merge
 * key by key, lists and scalars replace, `null` removes an inherited key. Templates may live
 * in any file of a folder; a diagnostic about an inherited value names both places.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { mergeTemplateValue } from "../../src/config/templates.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-templates-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TEMPLATES = `org: gh/acme
templates:
  projects:
    service:
      settings: { enable_auto_cancel_redundant_workflows: true }
      webhooks:
        slack: { url: https://hooks.example.com/services/T0, events: [workflow-completed] }
        audit: { url: https://audit.example.com/hook, events: [job-completed] }
    tls:
      webhooks:
        slack: { should_verify_tls: false }
  contexts:
    aws:
      env: { AWS_REGION: eu-west-1, AWS_KEY: "\${env:AWS_KEY}" }
`;

const folder = async (files: Record<string, string>): Promise<string> => {
  const cfg = join(dir, "cfg");
  await mkdir(cfg, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(cfg, name), text);
  return cfg;
};

describe("mergeTemplateValue", () => {
  it("merges maps key by key, replaces lists and scalars, and null removes a key", () => {
    expect(
      mergeTemplateValue(
        { a: { b: 1, c: [1, 2] }, d: "x", e: { f: 1 } },
        { a: { c: [3], g: 2 }, d: "y", e: null },
      ),
    ).toEqual({ a: { b: 1, c: [3], g: 2 }, d: "y" });
  });

  it("property: merging an empty map changes nothing, and the item's own keys always win", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 3 }), json), (t) => {
        const noNulls = JSON.parse(JSON.stringify(t, (_k, v) => (v === null ? undefined : v)));
        expect(mergeTemplateValue(noNulls, {})).toEqual(noNulls);
        for (const [k, v] of Object.entries(noNulls)) {
          if (v !== null && (typeof v !== "object" || Array.isArray(v))) {
            const merged = mergeTemplateValue({ [k]: "from template" }, { [k]: v }) as Record<
              string,
              unknown
            >;
            expect(merged[k]).toEqual(v);
          }
        }
      }),
    );
  });
});

describe("templates and extends", () => {
  it("merges the templates in order, then the item's own keys, across the files of a folder", async () => {
    const cfg = await folder({
      "00-templates.yaml": TEMPLATES,
      "10-projects.yaml": `org: gh/acme
projects:
  gh/acme/api:
    extends: [service, tls]
    webhooks:
      slack: { events: [workflow-completed, job-completed] }
      audit: null
contexts:
  deploy:
    extends: [aws]
    env: { EXTRA: "1" }
`,
    });
    const r = await loadConfig(cfg, { env: { AWS_KEY: "aws-key-value-123" } });
    expect(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics)).toBe(true);
    if (!r.ok) return;
    const org = r.config.orgs[0];
    const api = org?.projects.get("gh/acme/api");
    expect(api?.settings).toMatchObject({ enable_auto_cancel_redundant_workflows: true });
    expect([...(api?.webhooks?.keys() ?? [])]).toEqual(["slack"]);
    const slack = api?.webhooks?.get("slack");
    expect(slack).toMatchObject({
      url: "https://hooks.example.com/services/T0",
      events: ["workflow-completed", "job-completed"],
      should_verify_tls: false,
    });
    const deploy = org?.contexts?.get("deploy");
    expect([...(deploy?.env?.keys() ?? [])].sort()).toEqual(["AWS_KEY", "AWS_REGION", "EXTRA"]);
  });

  it("an unknown template is an error with did-you-mean; an inherited bad value names both places", async () => {
    const cfg = await folder({
      "00-templates.yaml": TEMPLATES.replace(
        "https://audit.example.com/hook",
        "http://audit.example.com/hook",
      ),
      "10-projects.yaml": `org: gh/acme
projects:
  gh/acme/api:
    extends: [servce]
  gh/acme/web:
    extends: [service]
`,
    });
    const r = await loadConfig(cfg, { env: { AWS_KEY: "x-value-1234" } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = r.diagnostics.map(
      (d) => `${d.file.slice(cfg.length + 1)}:${d.line}: ${d.message}`,
    );
    expect(lines).toContain(
      '10-projects.yaml:4: no project template "servce"; did you mean "service"?',
    );
    expect(
      lines.some((l) =>
        /^10-projects\.yaml:5: .*https.*\(inherited from template "service" at .*00-templates\.yaml:8:/.test(
          l,
        ),
      ),
    ).toBe(true);
  });

  it("a template that extends another, or a name defined twice, is an error", async () => {
    const cfg = await folder({
      "00-a.yaml":
        "org: gh/acme\ntemplates:\n  projects:\n    base: {}\n    child: { extends: [base] }\n",
      "01-b.yaml": "org: gh/acme\ntemplates:\n  projects:\n    base: {}\n",
    });
    const r = await loadConfig(cfg, { env: {} });
    expect(r.ok ? [] : r.diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining("a template cannot extend another template"),
      expect.stringMatching(/template "base" is defined twice: here and at .*00-a\.yaml:4:5/),
    ]);
  });
});

describe("a project split across files", () => {
  it("merges parts that do not overlap; an overlap names both places", async () => {
    const cfg = await folder({
      "a.yaml": "org: gh/acme\nprojects:\n  gh/acme/api:\n    env: { A: value-aaaa }\n",
      "b.yaml":
        "org: gh/acme\nprojects:\n  gh/acme/api:\n    webhooks:\n      w: { url: https://h.example.com/x, events: [job-completed] }\n",
    });
    const r = await loadConfig(cfg, { env: {} });
    expect(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics)).toBe(true);
    const api = r.ok ? r.config.orgs[0]?.projects.get("gh/acme/api") : undefined;
    expect([...(api?.env?.keys() ?? [])]).toEqual(["A"]);
    expect([...(api?.webhooks?.keys() ?? [])]).toEqual(["w"]);

    await writeFile(
      join(cfg, "c.yaml"),
      "org: gh/acme\nprojects:\n  gh/acme/api:\n    env: { B: value-bbbb }\n",
    );
    const overlap = await loadConfig(cfg, { env: {} });
    expect(overlap.ok ? [] : overlap.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^project\["gh\/acme\/api"\]\.env is declared twice: here and at .*a\.yaml:4:5/,
      ),
    ]);
  });
});

describe("inherited-from notes name only what a template gives", () => {
  // Issue 28: every key of a map that also came from a template was blamed on it.
  const CONFIG = `org: gh/acme
templates:
  contexts:
    aws:
      env: { AWS_REGION: eu-west-1 }
  projects:
    service:
      webhooks:
        slack: { url: https://hooks.example.com/services/T0, events: [workflow-completed] }
contexts:
  deploy:
    extends: [aws]
    env: { OWN_KEY: own-value }
projects:
  gh/acme/api:
    extends: [service]
    webhooks:
      own-hook: { url: https://own.example.com/hook, events: [job-completed] }
      slack: { events: [job-completed] }
`;

  it("an item's own key beside inherited ones is its own; the inherited ones name the template", async () => {
    const r = await loadConfig(await folder({ "a.yaml": CONFIG }), { env: {} });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const org = r.config.orgs[0];
    const env = org?.contexts?.get("deploy")?.env;
    expect(env?.get("OWN_KEY")?.source.via).toBeUndefined();
    expect(env?.get("AWS_REGION")?.source.via).toMatch(/^template "aws" at .*a\.yaml:5:14$/);
    const hooks = org?.projects.get("gh/acme/api")?.webhooks;
    expect(hooks?.get("own-hook")?.source.via).toBeUndefined();
    // A webhook the template declares and the item overrides in part says so.
    expect(hooks?.get("slack")?.source.via).toMatch(
      /^template "service" at .*a\.yaml:9:9, in part$/,
    );
  });

  it("a diagnostic about an own key beside inherited ones does not name the template", async () => {
    const bad = CONFIG.replace("own-value", '""');
    const r = await loadConfig(await folder({ "a.yaml": bad }), { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.map((d) => [d.path, d.message])).toEqual([
      ["contexts.deploy.env.OWN_KEY", expect.not.stringContaining("inherited from")],
    ]);
  });
});
