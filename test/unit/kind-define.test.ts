/**
 * `defineKind` (src/kinds/define.ts): the members most kinds share are filled in with their
 * defaults, a member the module gives wins, and the kinds written with it keep the members
 * they had when they stated them (webhook, pipeline, checkout key, OTLP exporter).
 */
import { describe, expect, it } from "vitest";
import { defineKind, type KindSpec } from "../../src/kinds/define.js";
import { KINDS } from "../../src/kinds/registry.js";
import { toJson } from "../../src/kinds/values.js";

type Item = { readonly id: string; readonly name: string };

const spec = (): KindSpec<Item, Item, "project"> => {
  // Borrow a full kind's members, then leave out every defaulted one.
  const {
    liveAddressKey: _a,
    pinnedId: _p,
    unresolvedSecrets: _u,
    fingerprint: _f,
    unmanaged: _m,
    livePlace: _l,
    ...rest
  } = KINDS.webhook as unknown as ReturnType<typeof defineKind<Item, Item, "project">>;
  return rest;
};

describe("defineKind", () => {
  it("fills in the shared defaults", () => {
    const kind = defineKind(spec());
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
    const kind = defineKind({ ...spec(), pinnedId: () => "pinned" });
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
