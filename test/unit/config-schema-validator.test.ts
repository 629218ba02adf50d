/**
 * The precompiled schema validator (issue 8): src/generated/schema-validator.ts must be
 * generated from the current schemas/waybill.schema.json (nobody edits the schema and ships an
 * old validator), and must report exactly what ajv compiling the schema at run time reported
 * (the options schema-check.ts used before), since every diagnostic is built from those errors.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { readConfigSchema } from "../../src/config/schema-check.js";
import { schemaSha256, validate } from "../../src/generated/schema-validator.js";
import { propertyRuns } from "../helpers/property-runs.js";

const GENERATED = "src/generated/schema-validator.ts";
const SCRIPT = "scripts/build-schema-validator.js";
const STALE = `${GENERATED} is stale; run \`node ${SCRIPT}\` and commit it`;

const lf = (s: string): string => s.replace(/\r\n/g, "\n");

describe("the generated validator is current", () => {
  it("was generated from the current schema text", () => {
    const text = lf(readFileSync("schemas/waybill.schema.json", "utf8"));
    expect(schemaSha256, STALE).toBe(createHash("sha256").update(text).digest("hex"));
  });

  it("is byte for byte what the script generates now (same ajv, same options)", () => {
    const run = spawnSync(process.execPath, [SCRIPT, "--stdout"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(lf(readFileSync(GENERATED, "utf8")), STALE).toBe(run.stdout);
  });

  it("--check passes (`npm run build` runs it before tsc)", () => {
    const run = spawnSync(process.execPath, [SCRIPT, "--check"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});

// What src/config/schema-check.ts compiled at run time before the validator was precompiled.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020, formats: string[]) => Ajv2020;
const runtimeAjv = new Ajv2020({
  allErrors: true,
  verbose: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
});
runtimeAjv.addKeyword("x-messages");
addFormats(runtimeAjv, ["uuid"]);
const runtimeValidate = runtimeAjv.compile(readConfigSchema());

const generatedValidate = validate as { (data: unknown): boolean; errors?: unknown };

/** Both validators' verdict and errors (keyword, paths, params, message, data, schemas). */
const expectSameErrors = (doc: unknown): boolean => {
  const want = runtimeValidate(doc);
  const wantErrors = structuredClone(runtimeValidate.errors ?? null);
  const got = generatedValidate(doc);
  expect(got).toBe(want);
  expect(structuredClone(generatedValidate.errors ?? null)).toStrictEqual(wantErrors);
  return want;
};

const yamlFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => join(dir, f));

/** Every document of the examples and of the invalid corpus that YAML can parse. */
const corpus = (): Array<[string, unknown]> =>
  [...yamlFiles("examples"), ...yamlFiles("test/fixtures/invalid")].flatMap((file) =>
    parseAllDocuments(readFileSync(file, "utf8"), { uniqueKeys: false }).flatMap((doc, i) => {
      if (!("toJS" in doc) || doc.errors.length > 0) return [];
      try {
        return [[`${file}#${i}`, doc.toJS({ maxAliasCount: 100 })] as [string, unknown]];
      } catch {
        return []; // alias bombs and the like never reach the schema check
      }
    }),
  );

describe("the generated validator reports what ajv compiling the schema reported", () => {
  const docs = corpus();

  it("the corpus has valid and invalid documents", () => {
    expect(docs.length).toBeGreaterThan(40);
    expect(docs.filter(([, d]) => !runtimeValidate(d)).length).toBeGreaterThan(20);
    expect(docs.filter(([, d]) => runtimeValidate(d)).length).toBeGreaterThan(5);
  });

  it.each(docs)("%s", (_name, doc) => {
    expectSameErrors(doc);
  });

  it("on random values put anywhere in the full example", () => {
    const full = parse(readFileSync("examples/full.yaml", "utf8")) as unknown;
    /** Every path to a value in the document, root included. */
    const paths: string[][] = [];
    const walk = (v: unknown, at: string[]): void => {
      paths.push(at);
      if (v !== null && typeof v === "object") {
        for (const [k, child] of Object.entries(v)) walk(child, [...at, k]);
      }
    };
    walk(full, []);
    const put = (doc: unknown, path: string[], value: unknown): unknown => {
      if (path.length === 0) return value;
      const [head, ...rest] = path as [string, ...string[]];
      const copy = (Array.isArray(doc) ? [...doc] : { ...(doc as object) }) as Record<
        string,
        unknown
      >;
      copy[head] = put(copy[head], rest, value);
      return copy;
    };
    const leaf = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom("", "x", "-1", "https://ok.example.com", "http://no.example.com", "* * * *"),
      fc.constantFrom("all-members", "00000000-0000-0000-0000-000000000000", "main", "vcs"),
      fc.dictionary(
        fc.constantFrom("name", "url", "type", "value", "bogus", "", "a/b~c"),
        fc.jsonValue({ maxDepth: 1 }),
      ),
    );
    let invalid = 0;
    const runs = propertyRuns(150);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...paths), leaf), { minLength: 1, maxLength: 4 }),
        (edits) => {
          const doc = edits.reduce<unknown>((d, [path, v]) => put(d, path, v), full);
          if (!expectSameErrors(doc)) invalid += 1;
        },
      ),
      { numRuns: runs, seed: 8 },
    );
    // Most edits break the document, so the errors themselves are compared, not just `true`.
    expect(invalid).toBeGreaterThan(runs * (2 / 3));
  });
});
