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
import { isGroupName } from "./context-restriction.js";
import type { ResourceKind } from "./contract.js";
import { cannotRename } from "./contract.js";
import { listV2Items, scopeId } from "./listing.js";
import { toJson } from "./values.js";

/** A group as written under the org's `groups:` map (the key is its name). */
export interface RawGroup {
  description?: string;
}

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

const NO_UPDATE = "a group has no update route (spec: api-v2-v1.md), so it is re-created";

/**
 * The slugs' first segments of the OAuth VCS providers (`gh`, `github`, `bb`, `bitbucket`):
 * an org whose slug starts with one is tied to that provider. Any other first segment is
 * the service's own ("for app-based providers the vcs-slug is a service-native token",
 * spec: api-v2-v1.md Resources and their fields): a standalone org, the only kind where groups are
 * created ("standalone orgs only", spec: api-v2-v1.md Endpoints (V2)).
 * Decision (the spec names no provider): these four, as our emulator reads them.
 */
export const VCS_ORG_SLUG_PREFIXES: ReadonlySet<string> = new Set([
  "gh",
  "github",
  "bb",
  "bitbucket",
]);

/** Whether an org (or project) slug is on a VCS provider, not a standalone org. */
export const isVcsOrgSlug = (slug: string): boolean =>
  VCS_ORG_SLUG_PREFIXES.has(slug.split("/")[0] ?? "");

/** What removing a group takes with it (spec: DELETE …/groups/{group_id}). */
export const GROUP_DESTROYS =
  "deleting a group also removes its members and role grants (spec: api-v2-v1.md); a re-created group starts empty";

export const groupKind: ResourceKind<DesiredGroup, LiveGroup, "org"> = {
  type: "group",
  parent: "org",
  // Decision: delete first. The spec says nothing of two groups with one name; our emulator
  // refuses a second one (the less forgiving reading), so creating the replacement first
  // would fail on a service that does too. The members are lost either way, which is why
  // every replace needs --allow-mass-delete (`destroys`).
  replaceOrder: "delete_before_create",
  replaceOrderWhy:
    "no update route, and a second group of one name may be refused: the old group is deleted, then created again (its members and role grants are lost either way)",
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveAddressKey: (l) => l.name,
  liveId: (l) => l.id,
  pinnedId: () => undefined,
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
  unresolvedSecrets: () => [],
  toConfig: (items) => {
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
  createCalls: () => [
    call("create", "POST", "/organizations/{org_id}/groups", {
      api: "v2",
      body: "flat",
      body_fields: ["name", "description"],
      note: "not idempotent: an uncertain create is re-listed before any retry",
    }),
  ],
  updateCalls: () => [],
  deleteCalls: () => [
    call("delete", "DELETE", "/organizations/{org_id}/groups/{id}", {
      api: "v2",
      note: GROUP_DESTROYS,
    }),
  ],
  // spec: GET /organizations/{org_id}/groups: `limit`, `page-token` (a V2 page).
  list: (api, scope, options) =>
    listV2Items(
      api,
      `/organizations/${encodeURIComponent(scopeId(scope, "org_id"))}/groups`,
      undefined,
      options,
      { is: isV2Group, toLive, what: "a group without an id or a name" },
    ),
  livePlace: {
    under: "org",
    // Also when a restriction or the SSO mappings may name a group by name (issue 17): the
    // name is resolved through the org's groups.
    readFor: (org) =>
      org.groups !== undefined ||
      org.sso_group_mappings !== undefined ||
      [...(org.contexts?.values() ?? [])].some((c) =>
        (c.restrictions ?? []).some((r) => r.type === "group" && isGroupName(r.group)),
      ),
    store: (items) => ({ groups: items }),
    stored: (org) => org.groups,
  },
  unmanaged: { listed: true, key: (l) => l.name },
  adopt: {
    by: "relist",
    matches: (d, _after, l) =>
      l.name === d.name && (d.description === undefined || l.description === d.description),
  },
  refusal: (_d, status) =>
    status === 400 || status === 403
      ? "The service creates groups in standalone orgs only (POST /organizations/{org_id}/groups, spec: api-v2-v1.md Endpoints (V2)); in an org tied to a VCS provider, manage groups there and leave `groups:` out."
      : undefined,
  destroys: GROUP_DESTROYS,
  fingerprint: (l) => toJson(l),
  desiredItems: function* (org) {
    for (const g of org.groups?.values() ?? []) yield { address: addr.group(g.name), item: g };
  },
  liveItems: function* (org) {
    for (const g of org.groups ?? []) yield { key: `group:${g.id}`, item: g };
  },
  rename: cannotRename("a group has no update route: its name cannot change in place"),
  collection: {
    name: "groups",
    segment: { name: "group", keyed: true },
    desiredIn: (org) => (org.groups === undefined ? undefined : [...org.groups.values()]),
    liveIn: (org) => org.groups,
    addressKey: (d) => d.name,
    onParentDelete: "cascades",
  },
  config: {
    yamlKey: "groups",
    summary: { key: "groups", one: "group" },
    shape: "map",
    schemaDef: "group",
    declares: "key",
    build: (ctx, name, raw: RawGroup | null, path): DesiredGroup => ({
      name,
      source: ctx.at(path),
      ...(raw?.description !== undefined && { description: ctx.text(raw.description) }),
    }),
  },
};
