/** Orgs and org settings. spec: api-v3.md "Orgs", "Org settings". */
import { notFound } from "../errors.js";
import { allowFilters, body, type Ctx, ok, type Route } from "../http.js";
import { paginate } from "../paging.js";
import { orgSettingsSchema } from "../schemas.js";
import { findOrg, type OrgRow } from "../store.js";

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
    handler: (ctx) => {
      const org = orgOr404(ctx, ctx.params.id!);
      // spec: Orgs: "any of the org settings booleans (all optional)"; others are 400.
      const b = body(ctx, orgSettingsSchema) as Record<string, boolean>;
      org.settings = { ...org.settings, ...b };
      return ok(renderSettings(org));
    },
  },
];
