/**
 * SSO group mappings (issue 17; spec: api-v3.md Orgs): `GET /orgs/:id/sso-group-mappings`
 * and `PUT /orgs/:id/sso-group-mappings`, which "replaces all" with `{ data: { attributes:
 * { mappings: [ { attributes: { idp_group_name }, references: { group: { id } } } ] } } }`
 * and "returns the new state".
 *
 * One singleton per org (`sso_group_mappings`): the config's list is the whole set, compared
 * as a set of (IdP group name, group id) pairs, and one PUT sends the whole set when it
 * differs. A pair's group is a name (a declared group first — created by the same apply when
 * it is new, its id filled in at apply — then a live one) or a group id.
 *
 * Decisions where the spec is silent: the GET answers the PUT's shape (one resource, no id);
 * a mapping's `references.group` is read as `{ id }` or a bare id (spec: api-v3.md Envelopes:
 * "each references entry is an id … and may carry a nested attributes object"); the pairs
 * are sent sorted by IdP group name, so a plan's body does not depend on the YAML's order.
 */
import { LiveReadError } from "../core/errors.js";
import { addr } from "../model/address.js";
import type { DesiredSsoGroupMapping, DesiredSsoGroupMappings } from "../model/desired.js";
import type { LiveSsoGroupMappings } from "../model/live.js";
import { call } from "./calls.js";
import { newComparison } from "./compare.js";
import type { DocMap } from "./config-doc.js";
import { isGroupName } from "./context-restriction.js";
import type { KindRefs } from "./contract.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { type JsonObject, type JsonValue, toJson } from "./values.js";
import { lowerUuid } from "./vcs.js";

/** One pair as written under `sso_group_mappings:`. */
export interface RawSsoGroupMapping {
  idp_group_name: string;
  group: string;
}

/** The schema's `ssoGroupMapping` object (one pair), checked against RawSsoGroupMapping. */
export const SSO_GROUP_MAPPING_KEYS = {
  ssoGroupMapping: keysOf<RawSsoGroupMapping>()(
    ["idp_group_name", "group"],
    ["idp_group_name", "group"],
  ),
};

type GroupRef = string | { readonly pending: string } | undefined;

/** The group id a pair names: its id, a pending create, or undefined (unknown name). */
const groupOf = (m: DesiredSsoGroupMapping, env: KindRefs): GroupRef =>
  isGroupName(m.group) ? env.refId("group", m.group) : m.group;

/** Pairs in the order they are sent: by IdP group name, then group. */
const byPair = (a: readonly [string, string], b: readonly [string, string]): number =>
  a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;

const sorted = (d: DesiredSsoGroupMappings): DesiredSsoGroupMapping[] =>
  [...d.mappings].sort((a, b) => byPair([a.idp_group_name, a.group], [b.idp_group_name, b.group]));

/** A pair in the PUT's words; a group this apply creates has `id: null` until then. */
const wire = (idp: string, id: string | null): JsonObject => ({
  attributes: { idp_group_name: idp },
  references: { group: { id } },
});

const desiredWire = (d: DesiredSsoGroupMappings, env: KindRefs): JsonValue[] =>
  sorted(d).map((m) => {
    const g = groupOf(m, env);
    return wire(m.idp_group_name, typeof g === "string" ? g : null);
  });

const sortedLive = (l: LiveSsoGroupMappings) =>
  [...l.mappings].sort((a, b) =>
    byPair([a.idp_group_name, a.group_id], [b.idp_group_name, b.group_id]),
  );

const liveWire = (l: LiveSsoGroupMappings): JsonValue[] =>
  sortedLive(l).map((m) => wire(m.idp_group_name, m.group_id));

const pairKey = (idp: string, group: string): string => `${idp}\u0000${group}`;

const readMapping = (x: unknown): { idp_group_name: string; group_id: string } => {
  const m = x as {
    attributes?: { idp_group_name?: unknown };
    references?: { group?: unknown };
  } | null;
  const idp = m?.attributes?.idp_group_name;
  const ref = m?.references?.group;
  const id = typeof ref === "string" ? ref : (ref as { id?: unknown } | undefined)?.id;
  if (typeof idp !== "string" || typeof id !== "string") {
    throw new LiveReadError(
      "GET /api/v3/orgs/…/sso-group-mappings listed a mapping without attributes.idp_group_name or references.group.id",
    );
  }
  return { idp_group_name: idp, group_id: id };
};

export const ssoGroupMappingsKind = defineKind<
  DesiredSsoGroupMappings,
  LiveSsoGroupMappings,
  "org"
>({
  identity: {
    type: "sso_group_mappings",
    parent: "org",
    desiredKey: () => "sso_group_mappings",
    liveKey: () => "sso_group_mappings",
    liveId: () => undefined,
    rename: cannotRename("the SSO group mappings are one set per org: they have no name"),
  },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "a singleton: the set always exists (maybe empty) and a PUT replaces it",
    desiredView: (d, env) => ({ mappings: desiredWire(d, env) }),
    liveView: (l) => ({ mappings: liveWire(l) }),
    compare: (d, l, env) => {
      const acc = newComparison();
      const want = new Set(
        d.mappings.map((m) => {
          const g = groupOf(m, env);
          // A group this apply creates is in no live pair yet: always a change.
          return pairKey(m.idp_group_name, typeof g === "string" ? g : `?${m.group}`);
        }),
      );
      const have = new Set(l.mappings.map((m) => pairKey(m.idp_group_name, m.group_id)));
      const same = want.size === have.size && [...want].every((k) => have.has(k));
      if (!same) {
        acc.fields.push({ path: "mappings", before: liveWire(l), after: desiredWire(d, env) });
      }
      return acc;
    },
    fingerprint: (l) => toJson(liveWire(l)),
  },
  wire: {
    createCalls: () => [],
    // spec: PUT /orgs/:id/sso-group-mappings "replaces all": the whole set in one call. A pair
    // whose group this apply creates takes its id from the param (`refParams`).
    updateCalls: (fields) => {
      const after = fields.find((f) => f.path === "mappings")?.after;
      const pending: Record<string, string> = {};
      (Array.isArray(after) ? after : []).forEach((m, i) => {
        const id = (m as { references?: { group?: { id?: unknown } } }).references?.group?.id;
        if (id === null) pending[`mappings.${i}.references.group.id`] = `group_id_${i}`;
      });
      return [
        call("update", "PUT", "/orgs/{org_id}/sso-group-mappings", {
          body: "envelope",
          body_fields: ["mappings"],
          ...(Object.keys(pending).length > 0 ? { param_fields: pending } : {}),
          note: "replaces the org's whole set of mappings",
        }),
      ];
    },
    refParams: (d, env) => {
      const out: Record<string, { readonly pending: string }> = {};
      sorted(d).forEach((m, i) => {
        const g = groupOf(m, env);
        if (g !== undefined && typeof g !== "string") out[`group_id_${i}`] = g;
      });
      return out;
    },
    deleteCalls: () => [],
    // spec: GET /orgs/:id/sso-group-mappings (a singleton, no id).
    list: async (api, scope, options) => {
      const route = `/orgs/${scopeId(scope, "org_id")}/sso-group-mappings`;
      const body = await api.get<{ data?: { attributes?: { mappings?: unknown } } }>(
        "v3",
        route,
        {},
        options?.signal ? { signal: options.signal } : {},
      );
      const mappings = body?.data?.attributes?.mappings;
      if (!Array.isArray(mappings)) {
        throw new LiveReadError(`GET /api/v3${route} answered without data.attributes.mappings`);
      }
      return [{ mappings: mappings.map(readMapping) }];
    },
  },
  place: {
    livePlace: {
      under: "org",
      readFor: (org) => org.sso_group_mappings !== undefined,
      store: (items) => ({ sso_group_mappings: items[0] }),
      stored: (org) =>
        org.sso_group_mappings === undefined ? undefined : [org.sso_group_mappings],
    },
    // Issue 46: one set per org, managed whole when declared; left out, a non-empty set is
    // one line of drift's unmanaged list (mappings made by hand are seen).
    unmanaged: {
      listed: true,
      key: () => "",
      holdsNothing: (l) => l.mappings.length === 0,
    },
    desiredItems: function* (org) {
      if (org.sso_group_mappings !== undefined) {
        yield { address: addr.ssoGroupMappings(), item: org.sso_group_mappings };
      }
    },
    liveItems: function* (org) {
      if (org.sso_group_mappings !== undefined) {
        yield { key: "sso_group_mappings", item: org.sso_group_mappings };
      }
    },
    collection: {
      name: "sso_group_mappings",
      segment: { name: "sso_group_mappings", keyed: false },
      desiredIn: (org) =>
        org.sso_group_mappings === undefined ? undefined : [org.sso_group_mappings],
      liveIn: (org) =>
        org.sso_group_mappings === undefined ? undefined : [org.sso_group_mappings],
      addressKey: () => "sso_group_mappings",
      onParentDelete: "cascades",
    },
  },
  config: {
    yamlKey: "sso_group_mappings",
    shape: "singleton",
    schemaDef: "ssoGroupMappings",
    schemaKeys: SSO_GROUP_MAPPING_KEYS,
    declares: "key",
    build: (ctx, _key, raw: RawSsoGroupMapping[], path): DesiredSsoGroupMappings => ({
      source: ctx.at(path),
      mappings: raw.map((m, i) => ({
        idp_group_name: ctx.text(m.idp_group_name),
        // A group id is a UUID: lowered, as a restriction's is (the service's ids are
        // lower-case; src/kinds/vcs.ts lowerUuid), so `ABC…` and `abc…` are one pair.
        group: lowerUuid(ctx.text(m.group)),
        source: ctx.at([...path, i], "value"),
      })),
    }),
    // Export writes each pair's group by name when the groups were read, else by id.
    export: (items) =>
      items.map((l) => {
        const doc = sortedLive(l).map(
          (m): DocMap => ({ idp_group_name: m.idp_group_name, group: m.group_name ?? m.group_id }),
        );
        return { written: "sso_group_mappings", item: l, doc: doc as unknown as DocMap };
      }),
  },
  // Issue 17: each pair's group, by name (declared, then live) or id.
  references: [
    {
      field: "mappings[].group",
      to: "group",
      by: ["name", "id"],
      writtenAs: (name) => `group: ${name}`,
      written: function* (org) {
        for (const [i, m] of (org.sso_group_mappings?.mappings ?? []).entries()) {
          yield {
            address: addr.ssoGroupMappings(),
            value: m.group,
            form: isGroupName(m.group) ? "name" : "id",
            source: m.source,
            path: `sso_group_mappings.${i}.group`,
          };
        }
      },
      liveIds: (before) =>
        (Array.isArray(before.mappings) ? before.mappings : []).flatMap((m) => {
          const id = (m as { references?: { group?: { id?: unknown } } }).references?.group?.id;
          return typeof id === "string" ? [id] : [];
        }),
      // Export writes each pair's group by name (`group_name`) when the groups were read.
      named: (l, nameOf) => ({
        mappings: l.mappings.map((m) => {
          const name = nameOf(m.group_id);
          return name === undefined || !isGroupName(name) ? m : { ...m, group_name: name };
        }),
      }),
    },
  ],
  hooks: {
    adopt: { by: "resend", why: "a PUT of the whole set: sending it again gives the same state" },
  },
});
