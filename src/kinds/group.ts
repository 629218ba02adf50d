/**
 * Org groups (issue 17; spec: api-v2-v1.md "Group" and Endpoints (V2)):
 * - `GET /organizations/{org_id}/groups` (`limit`, `page-token`: a V2 page of groups
 *   `{ id, name, description }`);
 * - `POST /organizations/{org_id}/groups` `{ name required, description? }` ("standalone
 *   orgs only");
 * - `DELETE /organizations/{org_id}/groups/{group_id}`: "delete also removes members and
 *   role grants".
 *
 * Identity is the name (`group["platform"]`); the config's `groups:` is authoritative when
 * present. There is no update route, so a description change re-creates the group, and a
 * re-created group has lost its members and role grants: every delete and replace of a
 * group says so (`destroys`) and apply refuses it without `--allow-mass-delete`.
 */
import { addr } from "../model/address.js";
import type { DesiredGroup } from "../model/desired.js";
import type { LiveGroup } from "../model/live.js";
import { call } from "./calls.js";
import { compareFields, newComparison } from "./compare.js";
import { type DocMap, groupBy, idsOf } from "./config-doc.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { listV2Items, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";

/** A group as written under the org's `groups:` map (the key is its name). */
export interface RawGroup {
  description?: string;
}

/** The schema's `group` object, checked against RawGroup (src/kinds/raw-keys.ts). */
export const GROUP_KEYS = { group: keysOf<RawGroup>()(["description"], []) };

/** A group as V2 returns it (spec: api-v2-v1.md "Group": `id`, `name`, `description`). */
interface V2Group {
  readonly id: string;
  readonly name: string;
  readonly description?: string | null;
}

const isV2Group = (x: unknown): x is V2Group => {
  if (x === null || typeof x !== "object") return false;
  const g = x as Record<string, unknown>;
  return typeof g.id === "string" && g.id !== "" && typeof g.name === "string";
};

const toLive = (g: V2Group): LiveGroup => ({
  id: g.id,
  name: g.name,
  description: typeof g.description === "string" ? g.description : "",
});

const NO_UPDATE = "a group has no update route (the API reference, V2), so it is re-created";

/** Groups are created in standalone orgs only (the slug's provider: kinds/listing.ts). */
export { isVcsOrgSlug } from "./listing.js";

/** What removing a group takes with it (spec: DELETE …/groups/{group_id}). */
export const GROUP_DESTROYS =
  "deleting a group also removes its members and role grants (the API reference, V2); a re-created group starts empty";

export const groupKind = defineKind<DesiredGroup, LiveGroup, "org">({
  identity: {
    type: "group",
    parent: "org",
    desiredKey: (d) => d.name,
    liveKey: (l) => l.name,
    liveId: (l) => l.id,
    rename: cannotRename("a group has no update route: its name cannot change in place"),
  },
  diff: {
    // Decision: delete first. The spec says nothing of two groups with one name; our emulator
    // refuses a second one (the less forgiving reading), so creating the replacement first
    // would fail on a service that does too. The members are lost either way, which is why
    // every replace needs --allow-mass-delete (`destroys`).
    replaceOrder: "delete_before_create",
    replaceOrderWhy:
      "no update route, and a second group of one name may be refused: the old group is deleted, then created again (its members and role grants are lost either way)",
    desiredView: (d) => ({
      name: d.name,
      ...(d.description === undefined ? {} : { description: d.description }),
    }),
    liveView: (l) => ({ name: l.name, description: l.description }),
    compare: (d, l) => {
      const acc = newComparison();
      // Decision: a description the config does not write is not managed: a replace removes
      // the group's members, so it is never made for a field nobody wrote.
      if (d.description === undefined) return acc;
      const fields = compareFields({ description: d.description }, { description: l.description }, [
        { path: "description", mode: "replace", default: "" },
      ]);
      for (const f of fields) {
        acc.fields.push(f);
        acc.replace_reasons.push(`description: ${NO_UPDATE}`);
      }
      return acc;
    },
  },
  wire: {
    // spec: GET /organizations/{org_id}/groups: `limit`, `page-token` (a V2 page).
    list: (api, scope, options) =>
      listV2Items(
        api,
        `/organizations/${encodeURIComponent(scopeId(scope, "org_id"))}/groups`,
        undefined,
        options,
        { is: isV2Group, toLive, what: "a group without an id or a name" },
      ),
    createCalls: () => [
      call("create", "POST", "/organizations/{org_id}/groups", {
        api: "v2",
        body: "flat",
        body_fields: ["name", "description"],
        note: "not idempotent: an uncertain create is re-listed before any retry",
      }),
    ],
    deleteCalls: () => [
      call("delete", "DELETE", "/organizations/{org_id}/groups/{id}", {
        api: "v2",
        note: GROUP_DESTROYS,
      }),
    ],
  },
  // Otherwise an org-level map's place: `groups`, `group["<name>"]`, removed with the org.
  place: {
    livePlace: {
      under: "org",
      // Also when the SSO mappings are declared (issue 17: drift and export name their
      // groups); a reference that names a group by name has the groups read too (the live
      // reader asks src/kinds/references.ts `namesWritten`).
      readFor: (org) => org.groups !== undefined || org.sso_group_mappings !== undefined,
      store: (items) => ({ groups: items }),
      stored: (org) => org.groups,
    },
  },
  config: {
    yamlKey: "groups",
    summary: { key: "groups", one: "group" },
    schemaKeys: GROUP_KEYS,
    build: (ctx, name, raw: RawGroup | null, path): DesiredGroup => ({
      name,
      source: ctx.at(path),
      ...(raw?.description !== undefined && { description: ctx.text(raw.description) }),
    }),
    export: (items) => {
      const byName = groupBy(items, (g) => g.name);
      return [...byName.keys()].sort().map((name) => {
        const list = byName.get(name) ?? [];
        const g = list[0] as LiveGroup;
        if (list.length > 1) {
          return {
            ignored: {
              glob: addr.group(name),
              reason: `${list.length} live groups share this name (ids ${idsOf(list)}); rename or delete the extra ones in the service, then declare it`,
            },
          };
        }
        const doc: DocMap = g.description === "" ? {} : { description: g.description };
        return { written: name, item: g, doc };
      });
    },
  },
  hooks: {
    adopt: {
      by: "relist",
      matches: (d, _after, l) =>
        l.name === d.name && (d.description === undefined || l.description === d.description),
    },
    refusal: (_d, status) =>
      status === 400 || status === 403
        ? 'The service creates groups in standalone orgs only (POST /organizations/{org_id}/groups; the API reference, "Endpoints (V2)"); in an org tied to a VCS provider, manage groups there and leave `groups:` out.'
        : undefined,
    destroys: GROUP_DESTROYS,
  },
});
