/**
 * The schema is a valid 2020-12 schema (checked by ajv), documents every property, closes
 * every object, and agrees with the TypeScript side: RAW_KEYS / RAW_REQUIRED (which
 * src/config/raw.ts ties to the raw TS types at compile time) and the model's enumerations.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RAW_KEYS, RAW_REQUIRED } from "../../src/config/raw.js";
import { readConfigSchema } from "../../src/config/schema-check.js";
import { PIPELINE_CONFIG_TYPES } from "../../src/kinds/pipeline.js";
import { ATTRIBUTION_ACTORS, TRIGGER_EVENT_TYPES } from "../../src/kinds/trigger.js";
import { WEBHOOK_SCOPES } from "../../src/kinds/webhook.js";
import {
  FILTER_PRESETS,
  ORG_SETTING_NAMES,
  PROJECT_SETTING_NAMES,
  WEBHOOK_EVENTS,
} from "../../src/model/desired.js";

interface SchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  enum?: unknown[];
  $ref?: string;
  [k: string]: unknown;
}

const schema = readConfigSchema() as SchemaNode & { $defs: Record<string, SchemaNode> };
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020, formats: string[]) => Ajv2020;

/** `pipeline/config/hosted`, `trigger/event/filter/rules[]` → the schema object. */
const objectAt = (name: string): SchemaNode => {
  const [def, ...rest] = name.split("/");
  let node = schema.$defs[def!]!;
  for (const part of rest) {
    const isItems = part.endsWith("[]");
    node = node.properties![isItems ? part.slice(0, -2) : part]!;
    if (isItems) node = node.items!;
  }
  return node;
};

/** Every subschema, with a readable location. */
const walk = (node: unknown, at: string, visit: (n: SchemaNode, at: string) => void): void => {
  if (Array.isArray(node)) {
    node.forEach((n, i) => {
      walk(n, `${at}[${i}]`, visit);
    });
    return;
  }
  if (node === null || typeof node !== "object") return;
  visit(node as SchemaNode, at);
  for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`, visit);
};

describe("config schema", () => {
  it("is a valid JSON Schema 2020-12 document that ajv compiles in strict mode", () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addKeyword("x-messages");
    addFormats(ajv, ["uuid"]);
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(ajv.errors ?? null).toBeNull();
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it("accepts the examples on its own, as an editor would use it", () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addKeyword("x-messages");
    addFormats(ajv, ["uuid"]);
    const validate = ajv.compile(schema);
    const files = [
      "examples/small.yaml",
      "examples/full.yaml",
      "examples/demo/waybill.yaml",
      ...readdirSync("examples/large-org").map((f) => join("examples/large-org", f)),
    ];
    for (const file of files) {
      expect(validate(parse(readFileSync(file, "utf8"))), file).toBe(true);
    }
    expect(validate({ org: "gh/acme", contexts: { c: { env: { A: "" } } } })).toBe(false);
  });

  it("has a description on every property", () => {
    const missing: string[] = [];
    walk(schema, "#", (n, at) => {
      for (const [k, p] of Object.entries(n.properties ?? {})) {
        // `properties` inside `if` blocks are conditions, not declarations.
        if (at.includes("/if")) continue;
        if (typeof p.description !== "string" || p.description.length < 5)
          missing.push(`${at}/${k}`);
      }
    });
    expect(missing).toEqual([]);
  });

  it("closes every object that declares properties", () => {
    const open: string[] = [];
    walk(schema, "#", (n, at) => {
      if (n.properties && !at.includes("/if") && n.additionalProperties !== false) open.push(at);
    });
    expect(open).toEqual([]);
  });

  it("declares exactly the keys and required keys of the TypeScript raw types", () => {
    for (const [name, keys] of Object.entries(RAW_KEYS)) {
      const node = objectAt(name);
      expect(Object.keys(node.properties ?? {}).sort(), name).toEqual([...keys].sort());
      const required = (RAW_REQUIRED as Record<string, readonly string[]>)[name] ?? [];
      expect([...(node.required ?? [])].sort(), name).toEqual([...required].sort());
    }
  });

  it("lists the spec's settings, presets and events, as the model does", () => {
    expect(Object.keys(schema.$defs.orgSettings!.properties!).sort()).toEqual(
      [...ORG_SETTING_NAMES].sort(),
    );
    expect(Object.keys(schema.$defs.projectSettings!.properties!).sort()).toEqual(
      [...PROJECT_SETTING_NAMES].sort(),
    );
    expect(objectAt("trigger/event/filter").properties!.preset!.enum).toEqual([...FILTER_PRESETS]);
    expect(schema.$defs.webhook!.properties!.events!.items!.enum).toEqual([...WEBHOOK_EVENTS]);
    expect(schema.$defs.webhook!.properties!.scope!.enum).toEqual([...WEBHOOK_SCOPES]);
    expect(objectAt("pipeline/config").properties!.type!.enum).toEqual([...PIPELINE_CONFIG_TYPES]);
    expect(objectAt("trigger/event").properties!.type!.enum).toEqual([...TRIGGER_EVENT_TYPES]);
    expect(objectAt("trigger/event/schedule").properties!.attribution_actor!.enum).toEqual([
      ...ATTRIBUTION_ACTORS,
    ]);
  });
});
