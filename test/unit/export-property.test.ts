/**
 * Property: for any snapshot with arbitrary text (quotes, `${`, `$${`, unicode, leading
 * spaces, numbers-as-strings), the rendered export validates against the schema and the
 * real loader reads back exactly the live text.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { RESERVED_KEYS } from "../../src/core/reserved-keys.js";
import { buildExport, renderSingle } from "../../src/export/index.js";
import { type NestedSnapshot, snapshotOf } from "../helpers/export-snapshot.js";
import { propertyRuns } from "../helpers/property-runs.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const OPEN = ["$", "{"].join("");
/** Text that stresses quoting and the reference syntax. */
const text = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom(
    `${OPEN}env:X}`,
    `$${OPEN}y}`,
    "123",
    "true",
    " lead",
    "a: b",
    "#x",
    "- y",
    '"q"',
    "é ü",
    "null",
  ),
);
const nonBlank = text.filter((s) => s.trim() !== "" && !/[\r\n]/.test(s));

const snapshotArb: fc.Arbitrary<NestedSnapshot> = fc
  .record({
    contextNames: fc.uniqueArray(nonBlank, { maxLength: 3 }),
    expression: nonBlank,
    description: nonBlank,
    urlTail: nonBlank.filter((s) => !/\s/.test(s)),
    filePath: nonBlank,
    param: text,
    ref: nonBlank,
    scheduleName: nonBlank,
  })
  .map(
    (t): NestedSnapshot => ({
      org: { id: "00000000-0000-4000-8000-000000000001", slug: "gh/p" },
      settings: { enable_private_orbs: true },
      contexts: t.contextNames.map((name, i) => ({
        id: `c${i}`,
        name,
        env: ["TOKEN"],
        restrictions: [
          { id: "r", type: "expression", match_pattern: t.expression, value: t.expression },
        ],
      })),
      projects: [
        {
          id: "p",
          slug: "gh/p/app",
          settings: {},
          env: [],
          webhooks: [
            {
              id: "w",
              name: "hook",
              scope: "project",
              url: `https://h.example.com/${t.urlTail}`,
              events: ["job-completed"],
              should_verify_tls: true,
              has_signing_secret: false,
              is_enabled: true,
            },
          ],
          pipelines: [
            {
              id: "pl",
              name: "build",
              description: t.description,
              config: { type: "hosted", file_path: t.filePath, hosted: { provider: "x" } },
              // spec: api-v3.md Pipelines: the service requires checkout on create.
              checkout: { vcs: { provider: "github_app", repo_id: "1", repo_full_name: "a/b" } },
              synthetic: false,
            },
          ],
          triggers: [
            {
              id: "t",
              pipeline_id: "pl",
              synthetic: false,
              is_disabled: false,
              config: { ref: t.ref },
              checkout: { ref: t.ref },
              event: {
                type: "schedule",
                schedule: { name: t.scheduleName, cron_expression: "0 1 * * *" },
              },
              parameters: { p: t.param },
            },
          ],
        },
      ],
    }),
  );

describe("export output (property)", () => {
  let dir: string;
  let validate: ReturnType<Ajv2020["compile"]>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "waybill-export-prop-unit-"));
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(await readFile("schemas/waybill.schema.json", "utf8")));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("validates and reads back the live text exactly", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(snapshotArb, async (s) => {
        const result = buildExport(snapshotOf(s), { inlineUrls: true });
        // Only a name the config reserves is left out (below).
        expect(result.warnings.filter((w) => !w.includes("(JavaScript reserves it)"))).toEqual([]);
        const yaml = renderSingle(result, {
          exportedAt: new Date(0),
          baseUrl: "https://service.example.com",
        });
        expect(validate(parse(yaml)), JSON.stringify(validate.errors)).toBe(true);
        n += 1;
        const file = join(dir, `e${n}.yaml`);
        await writeFile(file, yaml);
        const env = Object.fromEntries(result.envVars.map((v) => [v.name, "value"]));
        const loaded = await loadConfig(file, { env, resolveSecrets: true });
        if (!loaded.ok) throw new Error(`${yaml}\n${JSON.stringify(loaded.diagnostics)}`);
        const org = loaded.config.orgs[0];
        const contexts = [...(org?.contexts?.values() ?? [])];
        // A name the config reserves (`__proto__`, …) cannot be a key: export leaves the item
        // under `ignore` instead (src/core/reserved-keys.ts).
        const writable = s.contexts.filter((c) => !RESERVED_KEYS.has(c.name));
        expect(contexts.map((c) => c.name).sort()).toEqual(writable.map((c) => c.name).sort());
        for (const c of s.contexts.filter((x) => RESERVED_KEYS.has(x.name))) {
          expect(org?.ignore).toContain(`context[${JSON.stringify(c.name)}]`);
        }
        for (const c of contexts) {
          const r = c.restrictions?.[0];
          expect(r?.type === "expression" ? r.expression : undefined).toBe(
            s.contexts[0]?.restrictions[0]?.value,
          );
        }
        const project = org?.projects.get("gh/p/app");
        const hook = project?.webhooks?.get("hook");
        expect(hook?.url).toBe(s.projects[0]?.webhooks[0]?.url);
        const pipeline = project?.pipelines?.get("build");
        const live = s.projects[0]?.pipelines[0];
        expect(pipeline?.description).toBe(live?.description);
        expect(pipeline?.config.file_path).toBe(live?.config.file_path);
        const trigger = [...(pipeline?.triggers?.values() ?? [])][0];
        const lt = s.projects[0]?.triggers[0];
        if (RESERVED_KEYS.has(lt?.event.schedule?.name ?? "")) {
          expect(trigger).toBeUndefined();
          return;
        }
        expect(trigger?.key).toBe(lt?.event.schedule?.name);
        expect(trigger?.config?.ref).toBe(lt?.config?.ref);
        expect(trigger?.parameters).toEqual(lt?.parameters);
      }),
      { numRuns: propertyRuns(30) },
    );
  });
});
