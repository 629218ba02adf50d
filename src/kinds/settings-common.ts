/**
 * The two settings singletons (org settings, project settings) share one shape: never
 * created or deleted; only the declared keys are managed, and an update sends only the
 * declared keys that differ, in one `update-settings` call (design.md §1 "Ownership").
 */
import type { V3One } from "../core/wire.js";
import { addr, type ResourceType } from "../model/address.js";
import type { DesiredOrg } from "../model/desired.js";
import type { LiveOrg } from "../model/live.js";
import { call } from "./calls.js";
import type { FieldRule } from "./compare.js";
import { addFields, compareFields, newComparison } from "./compare.js";
import { type ConfigScope, scopeName, settingsDoc } from "./config-doc.js";
import type { ListScope, LivePlaceUnder, PlanParents, ResourceKind } from "./contract.js";
import { cannotRename } from "./contract.js";
import { defineKind, type KindGroups } from "./grouped.js";
import { singletonAttributes } from "./listing.js";
import type { JsonObject } from "./values.js";
import { toJson, toJsonObject } from "./values.js";

/** Only the declared keys of a settings map, as JSON (the `source` location is dropped). */
export const declaredSettings = (settings: object, names: readonly string[]): JsonObject => {
  const values = new Map<string, unknown>(Object.entries(settings));
  const out: JsonObject = {};
  for (const name of names) {
    const v = values.get(name);
    if (v !== undefined) out[name] = toJson(v);
  }
  return out;
};

/**
 * The settings the service returned that the config schema lacks (the real service sends
 * some our spec does not name, e.g. `is_bitbucket_workspace_member_org_member`: issue 40).
 * Reported, never written: an update sends only declared keys of the schema.
 */
export const unknownSettings = (
  settings: object,
  names: readonly string[],
): { member: string; reason: string }[] => {
  const known = new Set(names);
  return Object.keys(settings)
    .filter((k) => !known.has(k))
    .sort()
    .map((member) => ({
      member,
      reason:
        "a setting the service returns that Waybill's config schema lacks: read, never written",
    }));
};

/** The address of the settings singleton an export writes under `scope`. */
const settingsAddress = (parent: "org" | "project", scope: ConfigScope): string =>
  parent === "org" ? addr.orgSettings() : addr.projectSettings(scopeName(scope, "project"));

/** One rule per declared key; arrays (pr_only_branch_overrides) compare as sets. */
export const settingsRules = (declared: JsonObject): FieldRule[] =>
  Object.keys(declared).map((path) => ({
    path,
    mode: "update",
    compare: Array.isArray(declared[path]) ? "set" : "value",
  }));

/**
 * A settings singleton kind: its type, parent, the API's setting names and its update route
 * (`defineKind` fills in the rest: addressed by its key, no `id:` pin, no secret, its
 * fingerprint the settings as read).
 */
export const settingsKind = <D extends object, L extends object, P extends "org" | "project">(
  spec: Parameters<typeof settingsSpec<D, L, P>>[0],
): ResourceKind<D, L, P> => defineKind(settingsSpec(spec));

/** The groups of a settings kind (`defineKind`). */
const settingsSpec = <D extends object, L extends object, P extends "org" | "project">(spec: {
  readonly type: ResourceType;
  readonly parent: P;
  readonly names: readonly string[];
  readonly updateRoute: string;
  /** The singleton's GET route in the scope (spec: `GET /orgs/:id/settings`, ...). */
  readonly readRoute: (scope: ListScope) => string;
  /** Where the declared settings are in the org, with their addresses. */
  readonly declared: (org: DesiredOrg) => Iterable<{ address: string; item: D }>;
  /** Where the singleton sits in the live tree, and when it is read. */
  readonly place: LivePlaceUnder<L, P>;
  /** Where the read settings are in the org, with their fingerprint keys. */
  readonly read: (org: LiveOrg) => Iterable<{ key: string; item: L }>;
  /** The YAML key and address segment: `org_settings` at the top, `settings` in a project. */
  readonly name: string;
  /** The declared and the read settings in the parent. */
  readonly desiredIn: (parent: PlanParents[P]["desired"]) => D | undefined;
  readonly liveIn: (parent: PlanParents[P]["live"]) => L | undefined;
  /** The key in the parent's YAML (`settings` for both), and whether the address is declared. */
  readonly yamlKey: string;
  readonly schemaDef: string;
  readonly declares?: "key";
}): KindGroups<D, L, P> => ({
  identity: {
    type: spec.type,
    parent: spec.parent,
    desiredKey: () => "settings",
    liveKey: () => "settings",
    liveId: () => undefined,
    rename: cannotRename("settings have no name: they are one object per org or project"),
  },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "a singleton: it always exists and is only updated",
    desiredView: (d) => declaredSettings(d, spec.names),
    liveView: (l) => toJsonObject(l),
    compare: (d, l) => {
      const declared = declaredSettings(d, spec.names);
      const acc = newComparison();
      addFields(acc, compareFields(declared, toJsonObject(l), settingsRules(declared)));
      return acc;
    },
  },
  wire: {
    unknownMembers: (l) => unknownSettings(l, spec.names),
    // A singleton is planned as a create only when its parent is created in the same apply (a
    // `create: true` project): it exists as soon as the project does, so "creating" it is one
    // update-settings call with every declared key (issue 28: never a step that sends nothing).
    createCalls: (d) => [
      call("create", "POST", spec.updateRoute, {
        body: "flat",
        body_fields: Object.keys(declaredSettings(d, spec.names)),
        note: "the settings exist with their parent: the declared keys are set",
      }),
    ],
    updateCalls: (fields) => [
      call("update", "POST", spec.updateRoute, {
        body: "flat",
        body_fields: fields.map((f) => f.path),
      }),
    ],
    deleteCalls: () => [],
    // A singleton (no id): one GET, a list of one.
    list: async (api, scope, options) => {
      const route = spec.readRoute(scope);
      return [
        singletonAttributes(
          await api.get<V3One<L>>(
            "v3",
            route,
            {},
            options?.signal ? { signal: options.signal } : {},
          ),
          `GET /api/v3${route}`,
        ),
      ];
    },
  },
  place: {
    livePlace: spec.place,
    unmanaged: {
      listed: false,
      why: "a settings map is managed key by key: undeclared keys are left alone, not listed",
    },
    desiredItems: (org) => spec.declared(org),
    liveItems: (org) => spec.read(org),
    collection: {
      name: spec.name,
      segment: { name: spec.name, keyed: false },
      desiredIn: (parent) => {
        const d = spec.desiredIn(parent);
        return d === undefined ? undefined : [d];
      },
      liveIn: (parent) => {
        const l = spec.liveIn(parent);
        return l === undefined ? undefined : [l];
      },
      addressKey: () => "settings",
      onParentDelete: "cascades",
    },
  },
  // Only the keys the YAML lists are managed (design.md §1 "Plans"); list values are text.
  config: {
    yamlKey: spec.yamlKey,
    shape: "singleton",
    schemaDef: spec.schemaDef,
    ...(spec.declares === undefined ? {} : { declares: spec.declares }),
    build: (ctx, _key, raw: Readonly<Record<string, boolean | readonly string[]>>, path) =>
      ({
        ...Object.fromEntries(
          Object.entries(raw).map(([k, v]) => [
            k,
            Array.isArray(v) ? v.map((x: string) => ctx.text(x)) : v,
          ]),
        ),
        source: ctx.at(path),
      }) as unknown as D,
    export: (items, scope) =>
      items.flatMap((l) => [
        { written: "settings", item: l, doc: settingsDoc(l, spec.names) },
        // design.md §5: a setting the schema lacks is a comment in the export, not config
        // (the schema would refuse it) and not dropped without a word.
        ...unknownSettings(l, spec.names).map((u) => ({
          ignored: {
            glob: `${settingsAddress(spec.parent, scope)}.${u.member}`,
            reason: u.reason,
            commentOnly: true as const,
          },
        })),
      ]),
  },
  hooks: {
    adopt: { by: "resend", why: "a singleton that always exists: its update is sent again" },
  },
});
