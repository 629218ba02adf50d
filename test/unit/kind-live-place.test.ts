/**
 * The kind contract's live-tree members (src/kinds/contract.ts `livePlace`, `unmanaged`),
 * issue 16: the live reader and drift's unmanaged list walk the registry by them, so every
 * kind must answer them, and a kind that leaves one out must not compile.
 */
import { describe, expect, it } from "vitest";
import type { LivePlaces, ResourceKind } from "../../src/kinds/contract.js";
import { ALL_KINDS, KINDS, kindOf } from "../../src/kinds/registry.js";
import { type LiveWebhook, webhookKind } from "../../src/kinds/webhook.js";
import type {
  DesiredContext,
  DesiredOrg,
  DesiredProject,
  DesiredWebhook,
} from "../../src/model/desired.js";
import type { LiveContext, LiveOrg, LiveProject, LiveRestriction } from "../../src/model/live.js";

const source = { file: "waybill.yaml", line: 1, col: 1 };

describe("the kinds' places in the live tree", () => {
  it("a kind without its livePlace or its unmanaged line does not compile", () => {
    const { livePlace: _place, ...withoutPlace } = webhookKind;
    // @ts-expect-error livePlace is required: without it the live reader would never read the kind
    const a: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = withoutPlace;
    const { unmanaged: _line, ...withoutLine } = webhookKind;
    // @ts-expect-error unmanaged is required: drift's unmanaged list asks every kind
    const b: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = withoutLine;
    const wrongPlace = { ...webhookKind, livePlace: KINDS.context.livePlace };
    // @ts-expect-error a project kind is kept under a project, not under the org
    const c: ResourceKind<DesiredWebhook, LiveWebhook, "project"> = wrongPlace;
    expect([a, b, c].every((k) => k.type === "webhook")).toBe(true);
  });

  it("keeps every kind under its parent's record (a pipeline's triggers under their project)", () => {
    // The record of a kind's parent: the parent itself when it is one the live reader keeps
    // records of (the org, a context, a project), else the parent kind's own record.
    for (const kind of ALL_KINDS) {
      const expected =
        kind.parent === "org" || kind.parent === "project" || kind.parent === "context"
          ? kind.parent
          : kindOf(kind.parent).livePlace.under;
      expect(kind.livePlace.under, kind.type).toBe(expected);
    }
    expect(KINDS.trigger.livePlace.under).toBe("project");
    expect(KINDS.context_env_var.livePlace.under).toBe("context");
  });

  it("finds again in the live record what it stored there, for every kind", () => {
    const org: LiveOrg = { status: "found", id: "o", slug: "gh/acme", projects: new Map() };
    const context: LiveContext = { id: "c", name: "prod" };
    const project: LiveProject = { status: "found", id: "p", slug: "gh/acme/api" };
    // Projects are the org's `projects` map, which the live reader fills itself (it resolves
    // each declared project); the project kind stores nothing.
    for (const kind of ALL_KINDS.filter((k) => k.type !== "project")) {
      const items = [{ marker: kind.type }];
      const place = kind.livePlace;
      const back =
        place.under === "org"
          ? place.stored({ ...org, ...place.store(items) })
          : place.under === "context"
            ? place.stored({ ...context, ...place.store(items) })
            : place.stored({ ...project, ...place.store(items) });
      expect(back, kind.type).toEqual(items);
      // Not read: nothing stored, so nothing found (drift then lists the collection itself).
      const none =
        place.under === "org"
          ? place.stored(org)
          : place.under === "context"
            ? place.stored(context)
            : place.stored(project);
      expect(none, kind.type).toBeUndefined();
    }
  });

  it("is read only when the config declares it, with the reader's three documented exceptions", () => {
    const bareOrg: DesiredOrg = { slug: "gh/acme", source, projects: new Map(), ignore: [] };
    const bareContext: DesiredContext = { name: "prod", source };
    const bareProject: DesiredProject = { slug: "gh/acme/api", source };
    // Each parent with every kind under it declared (an empty collection, or a bare
    // singleton), from the kinds: a new kind's key is declared here without a line.
    const declaredUnder = (parent: string) =>
      Object.fromEntries(
        ALL_KINDS.filter((k) => k.parent === parent).map((k) => [
          k.config.yamlKey,
          k.config.shape === "map" ? new Map() : k.config.shape === "list" ? [] : { source },
        ]),
      );
    const fullContext = { ...bareContext, ...declaredUnder("context") } as DesiredContext;
    const fullOrg = {
      ...bareOrg,
      ...declaredUnder("org"),
      projects: new Map(),
      contexts: new Map([["prod", fullContext]]),
    } as DesiredOrg;
    const fullProject = { ...bareProject, ...declaredUnder("project") } as DesiredProject;
    const readFor = (place: LivePlaces<unknown>[keyof LivePlaces<unknown>], full: boolean) =>
      place.under === "org"
        ? place.readFor(full ? fullOrg : bareOrg)
        : place.under === "context"
          ? place.readFor(full ? fullContext : bareContext)
          : place.readFor(full ? fullProject : bareProject);
    for (const kind of ALL_KINDS.filter((k) => k.type !== "project")) {
      expect(readFor(kind.livePlace, true), `${kind.type} declared`).toBe(true);
      expect(readFor(kind.livePlace, false), `${kind.type} left out`).toBe(false);
    }
    // Org settings are read with contexts (a context may need a group restriction).
    expect(KINDS.org_settings.livePlace.readFor({ ...bareOrg, contexts: new Map() })).toBe(true);
    // A context no declaration manages: its env is read (the secrets its delete destroys),
    // its restrictions are not.
    expect(KINDS.context_env_var.livePlace.readFor(undefined)).toBe(true);
    expect(KINDS.context_restriction.livePlace.readFor(undefined)).toBe(false);
    // Triggers are read per project whenever `pipelines` is declared.
    expect(KINDS.trigger.livePlace.readFor({ ...bareProject, pipelines: new Map() })).toBe(true);
  });

  it("gives every kind but the settings maps a line in drift's unmanaged list", () => {
    // Listed unless the kind says why not (a new kind is listed by defineKind's default).
    const notListed = ALL_KINDS.filter((k) => !k.unmanaged.listed).map((k) => k.type);
    expect(notListed).toEqual(["org_settings", "project", "project_settings"]);
    for (const kind of ALL_KINDS) {
      if (!kind.unmanaged.listed) expect(kind.unmanaged.why.length, kind.type).toBeGreaterThan(10);
    }
    // A line's key is the live item's address key, as the planner addresses a delete
    // (a restriction by the key a config would write, not the stored id).
    const r: LiveRestriction = {
      id: "r1",
      restriction_type: "project",
      match_pattern: "id-1",
      key_value: "gh/a/b",
    };
    const line = KINDS.context_restriction.unmanaged;
    expect(line.listed && line.key(r)).toBe(KINDS.context_restriction.liveAddressKey(r));
    expect(line.listed && line.key(r)).toBe("project:gh/a/b");
  });
});
