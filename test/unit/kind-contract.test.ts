/**
 * The kind contract (src/kinds/contract.ts) and its registry (src/kinds/registry.ts),
 * issue 16: a kind left half-done must not compile, and every kind must answer every part
 * of the contract the planner, apply, saved plans, drift and export walk.
 *
 * The `@ts-expect-error` lines are the type-level half of this test: `npm run typecheck`
 * fails if one of them stops being an error (that is, if the contract or the registry
 * stops catching a missing part).
 */
import { describe, expect, it } from "vitest";
import { answerShape, idAt, type ResourceKind } from "../../src/kinds/contract.js";
import { ALL_KINDS, KINDS, kindOf } from "../../src/kinds/registry.js";
import { type LiveWebhook, webhookKind } from "../../src/kinds/webhook.js";
import { RESOURCE_TYPES, type ResourceType } from "../../src/model/address.js";
import type { DesiredWebhook } from "../../src/model/desired.js";

describe("the kind contract", () => {
  it("a kind without its adopt rule, its listing or its collection does not compile", () => {
    const { adopt: _adopt, ...withoutAdopt } = webhookKind;
    // @ts-expect-error adopt is required: a kind can never silently re-send a create
    const a: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = withoutAdopt;
    const { list: _list, ...withoutList } = webhookKind;
    // @ts-expect-error list is required: the live reader, drift, export and re-list use it
    const b: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = withoutList;
    const { collection: _collection, ...withoutCollection } = webhookKind;
    // @ts-expect-error collection is required: the planner's walk finds the kind by it
    const c: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = withoutCollection;
    expect([a, b, c].every((k) => k.type === "webhook")).toBe(true);
  });

  it("the registry is exhaustive: a resource type without its kind does not compile", () => {
    const { trigger: _trigger, ...withoutTrigger } = KINDS;
    // @ts-expect-error every resource type has its kind
    const registry: { readonly [T in ResourceType]: ResourceKind<unknown, unknown> } =
      withoutTrigger;
    expect(Object.keys(registry)).not.toContain("trigger");
  });

  it("has one kind per resource type, under its own name, in the order of RESOURCE_TYPES", () => {
    expect(Object.keys(KINDS)).toEqual([...RESOURCE_TYPES]);
    for (const type of RESOURCE_TYPES) expect(kindOf(type).type).toBe(type);
    expect(ALL_KINDS.map((k) => k.type)).toEqual([...RESOURCE_TYPES]);
  });

  it("every kind's parent is the org, a project, or a kind that names itself to its children", () => {
    for (const kind of ALL_KINDS) {
      if (kind.parent === "org" || kind.parent === "project") continue;
      const parent = kindOf(kind.parent);
      expect(parent.collection.childParam, `${kind.type} under ${parent.type}`).toBeDefined();
    }
  });

  it("a kind created by a POST that is not idempotent re-lists after an uncertain create", () => {
    for (const kind of ALL_KINDS) {
      if (kind.adopt.by === "resend") expect(kind.adopt.why.length, kind.type).toBeGreaterThan(10);
      else expect(typeof kind.adopt.matches, kind.type).toBe("function");
    }
    // Resending an uncertain create is safe only for an upsert (spec: the env var `set` and
    // settings routes, the SSO mappings' PUT): the kinds that claim it, pinned; every other
    // kind re-lists (the grouped spec's default for a plain collection), a kind added later too.
    expect(
      ALL_KINDS.filter((k) => k.adopt.by === "resend")
        .map((k) => k.type)
        .sort(),
    ).toEqual([
      "context_env_var",
      "org_settings",
      "project_env_var",
      "project_settings",
      "sso_group_mappings",
    ]);
  });
});

describe("a create call's answer (ApiCall `answer`)", () => {
  it("is its generation's unless the call declares it, and the id is read only there", () => {
    expect(answerShape({ api: "v3" })).toBe("envelope");
    expect(answerShape({ api: "v2" })).toBe("flat");
    expect(answerShape({ api: "v3", answer: "flat" })).toBe("flat");
    expect(idAt("envelope", { data: { id: "a" } })).toBe("a");
    expect(idAt("flat", { id: "b" })).toBe("b");
    expect(idAt("envelope", { id: "b" })).toBeUndefined();
    expect(idAt("flat", { data: { id: "a" } })).toBeUndefined();
    expect(idAt("flat", null)).toBeUndefined();
    expect(idAt("envelope", { data: { id: 7 } })).toBeUndefined();
  });
});

describe("the kinds' config parts", () => {
  it("the JSON plan schema's resource types are the registry's", async () => {
    const { readFile } = await import("node:fs/promises");
    const schema = JSON.parse(await readFile("schemas/plan.schema.json", "utf8")) as {
      $defs: { resourceType: { enum: string[] } };
    };
    expect(schema.$defs.resourceType.enum).toEqual(Object.keys(KINDS));
  });

  it("the JSON plan schema's resource types are generated, never edited by hand", async () => {
    const { readFile } = await import("node:fs/promises");
    const { planSchemaText, resourceTypesOf, withResourceTypes } = await import(
      "../../scripts/plan-schema-types.js"
    );
    const text = await readFile("schemas/plan.schema.json", "utf8");
    // `node scripts/build-schema-validator.js` writes exactly the file (its --check, run by
    // `npm run build`, fails otherwise) ...
    expect(planSchemaText()).toBe(text);
    expect(resourceTypesOf(await readFile("src/model/address.ts", "utf8"))).toEqual([
      ...RESOURCE_TYPES,
    ]);
    // ... and a new type rewrites the list and nothing else.
    // (A name no kind has, and the list's last type: a kind added later changes neither.)
    const added = withResourceTypes(text, [...RESOURCE_TYPES, "added_test_type"]);
    const parsed = JSON.parse(added) as { $defs: { resourceType: { enum: string[] } } };
    expect(parsed.$defs.resourceType.enum).toEqual([...RESOURCE_TYPES, "added_test_type"]);
    const last = `"${RESOURCE_TYPES[RESOURCE_TYPES.length - 1]}"`;
    expect(added.replace(/\s+"added_test_type"/, "").replace(`${last},`, last)).toBe(text);
  });

  it("name a $defs entry of the config schema", async () => {
    const { readFile } = await import("node:fs/promises");
    const schema = JSON.parse(await readFile("schemas/waybill.schema.json", "utf8")) as {
      $defs: Record<string, unknown>;
    };
    for (const kind of ALL_KINDS) {
      expect(Object.keys(schema.$defs), kind.type).toContain(kind.config.schemaDef);
    }
  });

  it("the loader stores every kind's items where the planner and apply read them", async () => {
    const { loadConfig } = await import("../../src/config/index.js");
    // examples/full.yaml declares an item of every kind, but groups, which the service
    // creates in standalone orgs only: examples/access.yaml declares those.
    const orgs = [];
    for (const file of ["examples/full.yaml", "examples/access.yaml"]) {
      const r = await loadConfig(file, { env: {}, resolveSecrets: false });
      if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("\n"));
      orgs.push(...r.config.orgs);
    }
    for (const kind of ALL_KINDS) {
      const items = orgs.flatMap((org) => [...kind.desiredItems(org)]);
      expect(items.length, kind.type).toBeGreaterThan(0);
      for (const { address, item } of items) {
        const segment = kind.collection.segment;
        const last = segment.keyed
          ? `${segment.name}[${JSON.stringify(kind.collection.addressKey(item))}]`
          : segment.name;
        expect(address.endsWith(last), address).toBe(true);
      }
    }
  });
});
