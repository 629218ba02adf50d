/** Orgs and org settings. spec: api-v3.md "Orgs", "Org settings". */
import { badRequest, notFound } from "../errors.js";
import { allowFilters, body, type Ctx, ok, type Route } from "../http.js";
import { paginate } from "../paging.js";
import { orgSettingsSchema, ssoGroupMappingsSchema } from "../schemas.js";
import { findOrg, groupName, type OrgRow } from "../store.js";

/** spec: api-v3.md "Limits": `page[limit]` maximum for orgs is 50. */
const ORGS_MAX = 50;

export const renderOrg = (o: OrgRow) => ({
  id: o.id,
  attributes: { slug: o.slug, name: o.name },
  references: {},
});

export const orgOr404 = (ctx: Ctx, id: string): OrgRow => {
  const org = findOrg(ctx.state, id);
  if (!org) throw notFound("org", id);
  return org;
};

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

const renderSettings = (o: OrgRow) => ({
  data: { attributes: { ...o.settings }, references: { org: { id: o.id } } },
});

export const orgRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/orgs",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[slug]"]);
      // spec: Orgs: with filter[slug] one org is resolved; no match is an empty collection.
      // Decision: slugs compare case-insensitively.
      const slug = ctx.query.get("filter[slug]");
      const orgs =
        slug === null
          ? ctx.state.orgs
          : ctx.state.orgs.filter((o) => o.slug.toLowerCase() === slug.toLowerCase());
      return ok(paginate(ctx, orgs, renderOrg, ORGS_MAX));
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/orgs/:id",
    handler: (ctx) => ok({ data: renderOrg(orgOr404(ctx, ctx.params.id!)) }),
  },
  {
    method: "GET",
    pattern: "/api/v3/orgs/:id/settings",
    handler: (ctx) => ok(renderSettings(orgOr404(ctx, ctx.params.id!))),
  },
  {
    method: "POST",
    pattern: "/api/v3/orgs/:id/update-settings",
    body: orgSettingsSchema,
    handler: (ctx) => {
      const org = orgOr404(ctx, ctx.params.id!);
      // spec: Orgs: "any of the org settings booleans (all optional)"; others are 400.
      const b = body(ctx) as Record<string, boolean>;
      org.settings = { ...org.settings, ...b };
      return ok(renderSettings(org));
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
