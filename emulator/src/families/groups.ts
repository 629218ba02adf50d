/**
 * Org groups (spec: api-v2-v1.md "Group", Endpoints (V2)): `GET|POST
 * /organizations/{org_id}/groups` (GET: `limit`, `page-token`; POST `{ name required,
 * description? }`, "standalone orgs only"), `GET|DELETE /organizations/{org_id}/groups/{group_id}`
 * ("delete also removes members and role grants"). Errors are V2's `{ message }`.
 *
 * Decisions where the spec is silent, each the less forgiving reading:
 * - a standalone org is one whose slug does not start with an OAuth VCS provider's
 *   (`gh`, `github`, `bb`, `bitbucket`; as an app-based project's slug, api-v2-v1.md): a create
 *   elsewhere is 400;
 * - two groups of one org may not share a name (case-insensitive): 400;
 * - the list is a V2 page sorted by name;
 * - deleting a group also deletes the context restrictions naming it (they would name
 *   nothing), as the service removes its members and role grants.
 */
import { badRequest, notFound } from "../errors.js";
import type { Family, SeedScope } from "../family.js";
import { body, type Ctx, created, ok, type Route } from "../http.js";
import { hashUuid, isUuid } from "../ids.js";
import { paginateV2 } from "../paging.js";
import { nonEmpty, seedId } from "../schemas.js";
import { nextId, removeWith } from "../state.js";
import { type Schema, s } from "../validate.js";
import { type OrgRow, onOAuthVcs, orgOr404, type SeedOrg } from "./orgs.js";

export interface GroupRow {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

export interface SeedGroup {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
}

declare module "./orgs.js" {
  interface SeedOrg {
    readonly groups?: readonly SeedGroup[];
    /** SSO group mappings: an IdP group name → a group of this org, by id or name. */
    readonly sso_group_mappings?: readonly {
      readonly idp_group_name: string;
      readonly group: string;
    }[];
  }
}

/**
 * spec: api-v2-v1.md Endpoints (V2): POST /organizations/{org_id}/groups `{ name required,
 * description? }`.
 */
export const groupCreateSchema: Schema = s.obj({ name: nonEmpty(), description: s.str() }, [
  "name",
]);

/**
 * PUT /orgs/:id/sso-group-mappings (spec: api-v3.md Orgs): `{ data: { attributes: { mappings:
 * [ { attributes: { idp_group_name string }, references: { group: { id uuid, rel string?,
 * attributes string? } } } ] } } }`. The shape has no `data.references`: a member it does not
 * list is 400, like everywhere else.
 */
export const ssoGroupMappingsSchema: Schema = s.obj(
  {
    data: s.obj(
      {
        attributes: s.obj(
          {
            mappings: s.arr(
              s.obj(
                {
                  attributes: s.obj({ idp_group_name: nonEmpty() }, ["idp_group_name"]),
                  references: s.obj(
                    { group: s.obj({ id: nonEmpty(), rel: s.str(), attributes: s.str() }, ["id"]) },
                    ["group"],
                  ),
                },
                ["attributes", "references"],
              ),
            ),
          },
          ["mappings"],
        ),
      },
      ["attributes"],
    ),
  },
  ["data"],
);

/** Decision: "all members" is shown as a group named `All members`. */
export const groupName = (org: OrgRow | undefined, groupId: string): string | undefined =>
  org && groupId === org.id ? "All members" : org?.groups.find((g) => g.id === groupId)?.name;

/**
 * Decision (spec: api-v3.md Orgs shows only the PUT's body): the GET answers the same shape,
 * one resource without an id, each group reference with the group's name as its attributes.
 */
const renderMappings = (o: OrgRow) => ({
  data: {
    attributes: {
      mappings: o.ssoGroupMappings.map((m) => ({
        attributes: { idp_group_name: m.idp_group_name },
        references: {
          group: { id: m.group_id, attributes: { name: groupName(o, m.group_id) ?? "" } },
        },
      })),
    },
    references: { org: { id: o.id } },
  },
});

const render = (g: GroupRow) => ({ id: g.id, name: g.name, description: g.description ?? "" });

const orgOf = (ctx: Ctx): OrgRow => {
  const id = ctx.params.org_id ?? "";
  if (!isUuid(id)) throw badRequest("invalid_request", "org_id must be a UUID");
  return orgOr404(ctx, id);
};

export const groupRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/organizations/:org_id/groups",
    handler: (ctx) => {
      const org = orgOf(ctx);
      const rows = [...org.groups].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return ok(paginateV2(ctx, rows, render));
    },
  },
  {
    method: "POST",
    pattern: "/api/v2/organizations/:org_id/groups",
    body: groupCreateSchema,
    handler: (ctx) => {
      const org = orgOf(ctx);
      const body = ctx.body as { name: string; description?: string };
      if (onOAuthVcs(org.slug)) {
        throw badRequest(
          "invalid_request",
          `organization ${org.slug} is tied to a VCS provider: groups can be created in standalone orgs only`,
        );
      }
      if (org.groups.some((g) => g.name.toLowerCase() === body.name.toLowerCase())) {
        throw badRequest("invalid_request", `a group named ${body.name} already exists`, "/name");
      }
      const row: GroupRow = {
        id: nextId(ctx.state, "group"),
        name: body.name,
        ...(body.description !== undefined ? { description: body.description } : {}),
      };
      org.groups.push(row);
      return created(render(row));
    },
  },
  {
    method: "GET",
    pattern: "/api/v2/organizations/:org_id/groups/:group_id",
    handler: (ctx) => {
      const g = orgOf(ctx).groups.find((x) => x.id === ctx.params.group_id);
      if (!g) throw notFound("group", ctx.params.group_id);
      return ok(render(g));
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v2/organizations/:org_id/groups/:group_id",
    handler: (ctx) => {
      const org = orgOf(ctx);
      const i = org.groups.findIndex((x) => x.id === ctx.params.group_id);
      if (i < 0) throw notFound("group", ctx.params.group_id);
      const [gone] = org.groups.splice(i, 1);
      org.ssoGroupMappings = org.ssoGroupMappings.filter((m) => m.group_id !== gone?.id);
      if (gone) removeWith(ctx.state, "group", gone.id, org.id);
      return ok({ message: "ok" });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/orgs/:id/sso-group-mappings",
    handler: (ctx) => ok(renderMappings(orgOr404(ctx, ctx.params.id!))),
  },
  {
    method: "PUT",
    pattern: "/api/v3/orgs/:id/sso-group-mappings",
    body: ssoGroupMappingsSchema,
    handler: (ctx) => {
      const org = orgOr404(ctx, ctx.params.id!);
      const b = body(ctx) as {
        data: {
          attributes: {
            mappings: {
              attributes: { idp_group_name: string };
              references: { group: { id: string } };
            }[];
          };
        };
      };
      const next = b.data.attributes.mappings.map((m, i) => {
        const id = m.references.group.id;
        // Decision: a group that is not one of the org's is 400 (the body is wrong), and so
        // is one IdP group name mapped twice to one group.
        if (!org.groups.some((g) => g.id === id)) {
          const pointer = `/data/attributes/mappings/${i}/references/group/id`;
          throw badRequest("unknown_reference", `${pointer}: not a group of this org`, pointer);
        }
        return { idp_group_name: m.attributes.idp_group_name, group_id: id };
      });
      const keys = new Set(next.map((m) => `${m.idp_group_name}\u0000${m.group_id}`));
      if (keys.size !== next.length) {
        throw badRequest("invalid_request", "a mapping is listed twice");
      }
      org.ssoGroupMappings = next;
      return ok(renderMappings(org));
    },
  },
];

const seedOrg = (scope: SeedScope): OrgRow => scope.row as OrgRow;

export const groups: Family = {
  name: "groups",
  routes: groupRoutes,
  seed: [
    {
      in: "org",
      key: "groups",
      schema: s.arr(s.obj({ id: seedId, name: nonEmpty(), description: s.str() }, ["name"])),
      load(l, parent, value, pointer) {
        const org = seedOrg(parent);
        const so = parent.item as unknown as SeedOrg;
        ((value ?? []) as readonly SeedGroup[]).forEach((g, gi) => {
          org.groups.push({
            id: l.claim(g.id ?? hashUuid("group", so.slug, g.name), `${pointer}/${gi}/id`),
            name: g.name,
            ...(g.description !== undefined ? { description: g.description } : {}),
          });
        });
      },
      dump: (_st, row) => (row as OrgRow).groups.map((g) => ({ ...g })),
    },
    {
      in: "org",
      key: "sso_group_mappings",
      schema: s.arr(
        s.obj({ idp_group_name: nonEmpty(), group: nonEmpty() }, ["idp_group_name", "group"]),
      ),
      load(l, parent, value, pointer) {
        const org = seedOrg(parent);
        for (const [mi, m] of (
          (value ?? []) as NonNullable<SeedOrg["sso_group_mappings"]>
        ).entries()) {
          const group = org.groups.find((g) => g.id === m.group || g.name === m.group);
          if (group === undefined) {
            l.fail(`${pointer}/${mi}/group`, `no group ${m.group} in this org`);
            continue;
          }
          org.ssoGroupMappings.push({ idp_group_name: m.idp_group_name, group_id: group.id });
        }
      },
      dump: (_st, row) =>
        (row as OrgRow).ssoGroupMappings.map((m) => ({
          idp_group_name: m.idp_group_name,
          group: m.group_id,
        })),
    },
  ],
};
