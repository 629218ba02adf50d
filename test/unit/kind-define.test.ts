/**
 * `defineFlatKind` (src/kinds/define.ts): the members most kinds share are filled in with their
 * defaults, a member the module gives wins, and the kinds written with it (or with the
 * grouped `defineKind`, which flattens through it) keep the members they had when they
 * stated them (webhook, pipeline, checkout key, OTLP exporter).
 */
import { describe, expect, it } from "vitest";
import { defineFlatKind, type FlatKindSpec } from "../../src/kinds/define.js";
import { KINDS } from "../../src/kinds/registry.js";
import { toJson } from "../../src/kinds/values.js";

type Item = { readonly id: string; readonly name: string };

const spec = (): FlatKindSpec<Item, Item, "project"> => {
  // Borrow a full kind's members, then leave out every defaulted one.
  const {
    liveAddressKey: _a,
    pinnedId: _p,
    unresolvedSecrets: _u,
    fingerprint: _f,
    unmanaged: _m,
    livePlace: _l,
    ...rest
  } = KINDS.webhook as unknown as ReturnType<typeof defineFlatKind<Item, Item, "project">>;
  return rest;
};

describe("defineFlatKind", () => {
  it("fills in the shared defaults", () => {
    const kind = defineFlatKind(spec());
    const l = { id: "w1", name: "deploy" };
    expect(kind.liveAddressKey(l)).toBe(kind.liveKey(l));
    expect(kind.pinnedId(l)).toBeUndefined();
    expect(kind.unresolvedSecrets(l)).toEqual([]);
    expect(kind.fingerprint(l)).toEqual(toJson(l));
    expect(kind.unmanaged.listed && kind.unmanaged.key(l)).toBe("deploy");
    const place = kind.livePlace;
    expect(place.under).toBe("project");
    expect(place.store([l])).toEqual({ webhooks: [l] });
    expect(place.stored({ webhooks: [l] } as never)).toEqual([l]);
    expect(place.readFor({ webhooks: new Map() } as never)).toBe(true);
    expect(place.readFor({} as never)).toBe(false);
  });

  it("keeps a member the module gives", () => {
    const kind = defineFlatKind({ ...spec(), pinnedId: () => "pinned" });
    expect(kind.pinnedId({ id: "x", name: "y" })).toBe("pinned");
  });

  it("gives the converted kinds the members they stated before", () => {
    const web = { id: "w1", name: "deploy", url: "https://x", events: [] };
    expect(KINDS.webhook.liveAddressKey(web as never)).toBe("deploy");
    expect(KINDS.webhook.livePlace.store([web as never])).toEqual({ webhooks: [web] });
    expect(KINDS.pipeline.livePlace.stored({ pipelines: [] } as never)).toEqual([]);
    expect(KINDS.checkout_key.livePlace.store([])).toEqual({ checkout_keys: [] });
    expect(KINDS.otel_exporter.livePlace.under).toBe("org");
    expect(KINDS.otel_exporter.livePlace.store([])).toEqual({ otel_exporters: [] });
    expect(KINDS.otel_exporter.pinnedId({} as never)).toBeUndefined();
    expect(KINDS.checkout_key.unresolvedSecrets({} as never)).toEqual([]);
  });
});

describe("defineWalkedParent (the project kind)", () => {
  it("gives the members the walks never ask of a project, as the contract needs them", () => {
    const p = KINDS.project;
    expect(p.toConfig([], {} as never, {} as never)).toEqual([]);
    expect(p.updateCalls([])).toEqual([]);
    expect(p.livePlace.readFor({} as never)).toBe(false);
    expect(p.livePlace.store([])).toEqual({});
    expect(p.unmanaged).toEqual({
      listed: false,
      why: "projects are declared one by one: leaving one out never deletes it",
    });
    expect(p.collection.desiredIn({} as never)).toBeUndefined();
    expect(p.collection.liveIn({} as never, {} as never)).toBeUndefined();
    expect(p.config.builtByLoader).toBe(true);
    expect(() => p.config.build({} as never, "x", {} as never, [])).toThrow(/built by the loader/);
  });
});

describe("defineKind's org-level defaults (src/kinds/grouped.ts)", () => {
  // The members group and otel_exporter stated by hand before the defaults gave them (issue 47).
  it("gives the org-level kinds written with it the collection and items they stated", () => {
    const group = KINDS.group;
    expect([group.collection.name, group.collection.segment]).toEqual([
      "groups",
      { name: "group", keyed: true },
    ]);
    expect(group.collection.onParentDelete).toBe("cascades");
    expect([group.config.shape, group.config.schemaDef, group.config.declares]).toEqual([
      "map",
      "group",
      "key",
    ]);
    const groups = new Map([["ops", { name: "ops", source: { file: "f", line: 1, col: 1 } }]]);
    const org = { groups } as never;
    expect([...group.desiredItems(org)].map((x) => x.address)).toEqual(['group["ops"]']);
    expect(group.collection.desiredIn(org)).toEqual([...groups.values()]);
    const liveOrg = { groups: [{ id: "g1", name: "ops", description: "" }] } as never;
    expect([...group.liveItems(liveOrg)].map((x) => x.key)).toEqual(["group:g1"]);

    const otel = KINDS.otel_exporter;
    expect([otel.collection.name, otel.collection.segment.name, otel.collection.serial]).toEqual([
      "otel_exporters",
      "otel_exporter",
      true,
    ]);
    expect([otel.config.shape, otel.config.schemaDef, otel.config.declares]).toEqual([
      "list",
      "otelExporter",
      "value",
    ]);
    const e = { endpoint: "api.example.com:443", protocol: "grpc" as const };
    expect(otel.collection.addressKey(e as never)).toBe("grpc:api.example.com:443");
    expect([...otel.desiredItems({ otel_exporters: [e] } as never)].map((x) => x.address)).toEqual([
      'otel_exporter["grpc:api.example.com:443"]',
    ]);
    expect(
      [...otel.liveItems({ otel_exporters: [{ id: "x1", ...e }] } as never)].map((x) => x.key),
    ).toEqual(["otel_exporter:x1"]);
  });
});
