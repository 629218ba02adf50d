/**
 * The schema is a valid 2020-12 schema (checked by ajv), documents every property, closes
 * every object, and agrees with the TypeScript side: RAW_KEYS (assembled by
 * src/config/raw.ts from its own lists and each kind's `config.schemaKeys`, every list tied
 * to its raw TS type at compile time by `keysOf`) and the model's enumerations.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RAW_KEYS, schemaKeysOf } from "../../src/config/raw.js";
import { readConfigSchema } from "../../src/config/schema-check.js";
import type { ResourceKind } from "../../src/kinds/contract.js";
import { groupKind } from "../../src/kinds/group.js";
import { PIPELINE_CONFIG_TYPES } from "../../src/kinds/pipeline.js";
import { keysOf } from "../../src/kinds/raw-keys.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { ATTRIBUTION_ACTORS, TRIGGER_EVENT_TYPES } from "../../src/kinds/trigger.js";
import { WEBHOOK_SCOPES } from "../../src/kinds/webhook.js";
import type { ResourceType } from "../../src/model/address.js";
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
    for (const [name, { keys, required }] of Object.entries(RAW_KEYS)) {
      const node = objectAt(name);
      expect(Object.keys(node.properties ?? {}).sort(), name).toEqual([...keys].sort());
      expect([...(node.required ?? [])].sort(), name).toEqual([...required].sort());
    }
  });

  it("has a key list for every object it declares keys for (the settings aside)", () => {
    // The strict definitions: the `…Template` / `…Extending` / `…Entry` ones are derived
    // from them (scripts/build-schema-fragments.js).
    const strict = Object.keys(schema.$defs).filter(
      (k) => !/(Template|Extending|Entry)$/.test(k) && !/^(org|project)Settings$/.test(k),
    );
    const objects: string[] = [];
    const visit = (node: SchemaNode, name: string): void => {
      if (node.properties === undefined) return;
      objects.push(name);
      for (const [key, p] of Object.entries(node.properties)) {
        if (p.properties !== undefined) visit(p, `${name}/${key}`);
        if (p.items?.properties !== undefined) visit(p.items, `${name}/${key}[]`);
      }
    };
    for (const def of strict) visit(schema.$defs[def]!, def);
    expect(objects.sort()).toEqual(Object.keys(RAW_KEYS).sort());
  });

  it("takes a kind's key lists, and its key in its parent, from the kind's own module", () => {
    // Test-only kinds: an org's channels (`channels:` in the root) and a context's notes.
    interface RawChannel {
      name: string;
      group?: string;
    }
    const kind = (type: string, parent: string, yamlKey: string, schemaKeys = {}) =>
      ({
        ...groupKind,
        type: type as ResourceType,
        parent,
        config: { ...groupKind.config, yamlKey, schemaDef: type, schemaKeys },
      }) as unknown as ResourceKind<unknown, unknown>;
    const channel = kind("channel", "org", "channels", {
      channel: keysOf<RawChannel>()(["name", "group"], ["name"]),
    });
    const note = kind("context_note", "context", "notes");
    const keys = schemaKeysOf([...ALL_KINDS, channel, note]);
    expect(keys.channel).toEqual({ keys: ["name", "group"], required: ["name"] });
    expect(keys.root!.keys).toEqual([...RAW_KEYS.root!.keys, "channels"]);
    expect(keys.context!.keys).toEqual([...RAW_KEYS.context!.keys, "notes"]);
    expect(keys.root!.required).toEqual(["org"]);
    // Two kinds listing one object differently is a programming error, found at load.
    const other = kind("other", "org", "others", {
      group: keysOf<{ description?: string; name?: string }>()(["description", "name"], []),
    });
    expect(() => schemaKeysOf([...ALL_KINDS, other])).toThrow(/group is listed twice/);
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
