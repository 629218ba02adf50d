/**
 * A TEST-ONLY kind, never in src/kinds/registry.ts: runner resource classes (spec: api-v3.md
 * Runner, `/runner/resource-classes`), an org-level collection with two fields, one naming a
 * context by name. test/integration/kind-fixture-runner-class.test.ts registers it in a copy
 * of the registry with its emulator family (./runner-class-family.ts) and keeps it ≤ 150
 * lines. Written with the grouped spec (`defineKind`): what a plain org-level collection does
 * the usual way (its collection, place, items, adopt, config shape, the reference's plumbing)
 * is the groups' defaults. Decision (the spec shows no shapes here): a create answers a flat
 * `{id, …}` (`answer`).
 */
import type { SourceLocation } from "../../src/core/errors.js";
import { refId, type V3Resource } from "../../src/core/wire.js";
import { call } from "../../src/kinds/calls.js";
import { namedEntries } from "../../src/kinds/config-doc.js";
import { cannotRename, type KindRefs } from "../../src/kinds/contract.js";
import { defineKind } from "../../src/kinds/grouped.js";
import { pageOptions, requireId, scopeId } from "../../src/kinds/listing.js";
import { keysOf } from "../../src/kinds/raw-keys.js";
import { formatAddress, type ResourceType } from "../../src/model/address.js";

export interface RawRunnerClass {
  description?: string;
  context?: string;
}
const KEYS = { runnerResourceClass: keysOf<RawRunnerClass>()(["description", "context"], []) };

export interface DesiredRunnerClass extends RawRunnerClass {
  readonly name: string;
  readonly source: SourceLocation;
}
export interface LiveRunnerClass {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly context_id: string | null;
  readonly context_name?: string; // when the contexts were read (`named`)
}

// Where the items sit in the org: augmented, not edited in (docs/adding-a-kind.md).
declare module "../../src/model/desired.js" {
  interface DesiredOrg {
    readonly runner_resource_classes?: ReadonlyMap<string, DesiredRunnerClass>;
  }
}
declare module "../../src/model/live.js" {
  interface LiveOrg {
    readonly runner_resource_classes?: readonly LiveRunnerClass[];
  }
}

type Wire = V3Resource<{ name: string; description?: string }>;
const toLive = (r: Wire): LiveRunnerClass => ({
  id: requireId(r, "runner resource class"),
  name: r.attributes.name,
  description: r.attributes.description ?? "",
  context_id: refId(r.references?.context) ?? null,
});
// The masked views (a context this plan creates is `null` until apply fills its id).
const view = (name: string, description: string, ref: unknown) => {
  return { name, description, context_id: typeof ref === "string" ? ref : null };
};
const desiredOf = (d: DesiredRunnerClass, env: KindRefs) =>
  view(
    d.name,
    d.description ?? "",
    d.context === undefined ? undefined : env.refId("context", d.context),
  );
const address = (name: string) => formatAddress([{ name: "runner_resource_class", key: name }]);
const ROUTE = "/runner/resource-classes";

export const runnerClassKind = defineKind({
  identity: {
    type: "runner_resource_class" as ResourceType,
    parent: "org",
    desiredKey: (d: DesiredRunnerClass) => d.name,
    liveKey: (l: LiveRunnerClass) => l.name,
    liveId: (l) => l.id,
    rename: cannotRename("a resource class's name is its identity"),
  },
  diff: {
    desiredView: desiredOf,
    liveView: (l) => view(l.name, l.description, l.context_id),
    // Paths checked against the view's type; every field updates in place (`:id/update`).
    fields: (d) => [
      { path: "description", mode: "update" },
      ...(d.context === undefined ? [] : [{ path: "context_id", mode: "update" } as const]),
    ],
  },
  wire: {
    list: async (api, scope, options) =>
      (
        await api.listV3<Wire["attributes"]>(
          ROUTE,
          { "filter[org_id]": scopeId(scope, "org_id") },
          pageOptions(options, toLive),
        )
      ).map(toLive),
    createCalls: (d) => [
      call("create", "POST", ROUTE, {
        body: "envelope",
        answer: "flat",
        body_fields: ["name", "description", "references.org"].concat(
          d.context === undefined ? [] : ["references.context"],
        ),
      }),
    ],
    updateCalls: (fields) => [
      call("update", "POST", `${ROUTE}/{id}/update`, {
        body: "envelope",
        body_fields: fields.map((f) => (f.path === "context_id" ? "references.context" : f.path)),
      }),
    ],
    deleteCalls: () => [call("delete", "DELETE", `${ROUTE}/{id}`)],
  },
  // The context, by name: its id is the views' and the live item's `context_id`, the
  // create's `context_id` param, and export's name `context_name`.
  references: [
    {
      field: "context",
      to: "context",
      id: "context_id",
      name: "context_name",
      param: "context_id",
    },
  ],
  config: {
    yamlKey: "runner_resource_classes",
    schemaKeys: KEYS,
    build: (ctx, name, raw: RawRunnerClass | null, path): DesiredRunnerClass => ({
      name,
      source: ctx.at(path),
      ...(raw?.description !== undefined && { description: ctx.text(raw.description) }),
      ...(raw?.context !== undefined && { context: raw.context }),
    }),
    export: (items) =>
      namedEntries(items, "runner resource class", address, (l) => ({
        ...(l.description === "" ? {} : { description: l.description }),
        ...(l.context_id === null ? {} : { context: l.context_name ?? l.context_id }),
      })),
  },
});
