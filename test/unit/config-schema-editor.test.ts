/**
 * The config schema as an editor uses it (yaml-language-server and the like: the schema
 * file, compiled by a JSON Schema validator, against each file AS WRITTEN) agrees with
 * `waybill validate`, which merges templates first (issue 30). A template is a fragment
 * (no key required); an item with `extends` may leave keys to its templates and remove an
 * inherited one with null; an item without `extends` is checked in full by both. The
 * README's config examples, the template layout included, pass in the editor as they pass
 * validate. The fragment defs are derived from the strict ones
 * (scripts/build-schema-fragments.js) and the committed schema is up to date with them.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { withFragments } from "../../scripts/build-schema-fragments.js";
import { loadConfig } from "../../src/config/index.js";
import { REPO_ROOT } from "../helpers/cli.js";

const require = createRequire(import.meta.url);

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

const editorValidator = async (): Promise<Validate> => {
  const { Ajv2020 } = require("ajv/dist/2020") as {
    Ajv2020: new (o: object) => { compile: (s: unknown) => Validate };
  };
  const addFormats = require("ajv-formats") as (a: unknown) => void;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const schema = JSON.parse(
    await readFile(join(REPO_ROOT, "schemas", "waybill.schema.json"), "utf8"),
  ) as unknown;
  return ajv.compile(schema);
};

/** `waybill validate` of files in a fresh folder: true when it accepts them. */
const validates = async (files: Record<string, string>): Promise<boolean> => {
  const dir = await mkdtemp(join(tmpdir(), "waybill-schema-editor-"));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const r = await loadConfig([dir], { env: {}, resolveSecrets: false });
    return r.ok;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const TEMPLATES = `org: gh/acme
templates:
  projects:
    service:
      webhooks:
        slack: { url: https://hooks.example.com/services/T0, events: [workflow-completed] }
        audit: { url: https://audit.example.com/hook, events: [job-completed] }
`;

describe("the config schema in an editor", () => {
  it("accepts the README's config examples as written, as validate does", async () => {
    const editor = await editorValidator();
    const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? "")
      .filter((b) => /^org: /m.test(b));
    expect(blocks.length).toBeGreaterThan(3);
    const templateLayout = blocks.filter((b) => /^# (01-templates|teams\/payments)\.yaml/.test(b));
    expect(templateLayout).toHaveLength(2);
    for (const block of blocks) {
      expect(
        editor(parse(block)),
        `${block.split("\n")[0]}\n${JSON.stringify(editor.errors)}`,
      ).toBe(true);
    }
    expect(
      await validates({
        "01-templates.yaml": templateLayout[0] ?? "",
        "payments.yaml": templateLayout[1] ?? "",
      }),
    ).toBe(true);
  });

  it("agrees with validate on items with and without extends", async () => {
    const editor = await editorValidator();
    const cases: { name: string; file: string; ok: boolean }[] = [
      {
        name: "extends: a webhook completed by the template, another removed with null",
        file: `${TEMPLATES}projects:\n  gh/acme/api:\n    extends: [service]\n    webhooks:\n      slack: { events: [job-completed] }\n      audit: null\n`,
        ok: true,
      },
      {
        name: "no extends: a webhook without url",
        file: `org: gh/acme\nprojects:\n  gh/acme/api:\n    webhooks:\n      slack: { events: [job-completed] }\n`,
        ok: false,
      },
      {
        name: "no extends: null for a webhook",
        file: `org: gh/acme\nprojects:\n  gh/acme/api:\n    webhooks:\n      slack: null\n`,
        ok: false,
      },
      {
        name: "extends: an unknown key is still unknown",
        file: `${TEMPLATES}projects:\n  gh/acme/api:\n    extends: [service]\n    webhooks:\n      slack: { colour: red }\n`,
        ok: false,
      },
      {
        name: "a template fragment: a webhook without url",
        file: `org: gh/acme\ntemplates:\n  projects:\n    quiet:\n      webhooks:\n        slack: { events: [job-completed] }\n`,
        ok: true,
      },
      {
        name: "a template: a wrong type is wrong",
        file: `org: gh/acme\ntemplates:\n  contexts:\n    aws:\n      restrictions: { expression: x }\n`,
        ok: false,
      },
    ];
    for (const c of cases) {
      expect(editor(parse(c.file)), `editor: ${c.name}`).toBe(c.ok);
      expect(await validates({ "waybill.yaml": c.file }), `validate: ${c.name}`).toBe(c.ok);
    }
  });

  it("the committed schema's fragment defs are the ones derived from its strict defs", async () => {
    const schema = JSON.parse(
      await readFile(join(REPO_ROOT, "schemas", "waybill.schema.json"), "utf8"),
    ) as Record<string, unknown>;
    // Run `node scripts/build-schema-fragments.js` (then build-schema-validator.js) if not.
    expect(withFragments(schema)).toEqual(schema);
  });
});
