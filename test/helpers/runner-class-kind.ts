/**
 * A TEST-ONLY kind, never in src/kinds/registry.ts: runner resource classes (spec: api-v3.md
 * Runner, `/runner/resource-classes`), an org-level collection with two fields, one naming a
 * context by name. test/unit/kind-fixture-runner-class.test.ts registers it in a copy of the
 * registry with its emulator family (./runner-class-family.ts) and keeps it ≤ 150 lines.
 * Decision (the spec shows no shapes here): a create answers a flat `{id, …}` (`answer`).
 */
import type { SourceLocation } from "../../src/core/errors.js";
import { refId, type V3Resource } from "../../src/core/wire.js";
import { call } from "../../src/kinds/calls.js";
import { compareFields, newComparison } from "../../src/kinds/compare.js";
import { namedEntries } from "../../src/kinds/config-doc.js";
import { cannotRename, type KindRefs } from "../../src/kinds/contract.js";
import { defineOrgCollection } from "../../src/kinds/define.js";
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
const contextRef = (d: DesiredRunnerClass, env: KindRefs) =>
  d.context === undefined ? undefined : env.refId("context", d.context);
// The masked views (a context this plan creates is `null` until apply fills its id).
const view = (name: string, description: string, ref: unknown) => {
  return { name, description, context_id: typeof ref === "string" ? ref : null };
};
const desiredOf = (d: DesiredRunnerClass, env: KindRefs) =>
  view(d.name, d.description ?? "", contextRef(d, env));
const liveOf = (l: LiveRunnerClass) => view(l.name, l.description, l.context_id);
const address = (name: string) => formatAddress([{ name: "runner_resource_class", key: name }]);

export const runnerClassKind = defineOrgCollection<DesiredRunnerClass, LiveRunnerClass>({
  type: "runner_resource_class" as ResourceType,
  parent: "org",
  replaceOrder: "never",
  replaceOrderWhy: "every field updates in place (POST :id/update)",
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveId: (l) => l.id,
  desiredView: desiredOf,
  liveView: liveOf,
  compare: (d, l, env) => ({
    ...newComparison(),
    fields: compareFields(desiredOf(d, env), liveOf(l), [
      { path: "description", mode: "update" },
      ...(d.context === undefined ? [] : [{ path: "context_id", mode: "update" as const }]),
    ]),
  }),
  toConfig: (items) =>
    namedEntries(items, "runner resource class", address, (l) => ({
      ...(l.description === "" ? {} : { description: l.description }),
      ...(l.context_id === null ? {} : { context: l.context_name ?? l.context_id }),
    })),
  createCalls: (d) => [
    call("create", "POST", "/runner/resource-classes", {
      body: "envelope",
      answer: "flat",
      body_fields: ["name", "description", "references.org"].concat(
        d.context === undefined ? [] : ["references.context"],
      ),
    }),
  ],
  refParams: (d, env): Record<string, string | { readonly pending: string }> => {
    const id = contextRef(d, env);
    return id === undefined ? {} : { context_id: id };
  },
  updateCalls: (fields) => [
    call("update", "POST", "/runner/resource-classes/{id}/update", {
      body: "envelope",
      body_fields: fields.map((f) => (f.path === "context_id" ? "references.context" : f.path)),
    }),
  ],
  deleteCalls: () => [call("delete", "DELETE", "/runner/resource-classes/{id}")],
  list: async (api, scope, options) =>
    (
      await api.listV3<Wire["attributes"]>(
        "/runner/resource-classes",
        { "filter[org_id]": scopeId(scope, "org_id") },
        pageOptions(options, toLive),
      )
    ).map(toLive),
  rename: cannotRename("a resource class's name is its identity"),
  references: [
    {
      field: "context",
      to: "context",
      by: ["name"],
      writtenAs: (name) => `context: ${name}`,
      written: function* (org) {
        for (const { name, context: value, source } of org.runner_resource_classes?.values() ??
          []) {
          const path = `runner_resource_classes.${name}.context`;
          if (value !== undefined)
            yield { address: address(name), value, form: "name", source, path };
        }
      },
      liveIds: (before) => (typeof before.context_id === "string" ? [before.context_id] : []),
      named: (l, nameOf) => {
        const name = l.context_id === null ? undefined : nameOf(l.context_id);
        return name === undefined ? l : { ...l, context_name: name };
      },
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
  },
});
