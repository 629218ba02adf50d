/**
 * The two V2 routes Waybill uses (spec: api-v2-v1.md "Endpoints (V2)"): groups, for group
 * restrictions, and masked project env vars. Errors on V2 are `{ message }` (rendered by the
 * server).
 */
import { notFound } from "../errors.js";
import { ok, type Route } from "../http.js";
import { paginateV2 } from "../paging.js";
import { findOrg } from "../store.js";

export const v2Routes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/organizations/:org_id/groups",
    handler: (ctx) => {
      const org = findOrg(ctx.state, ctx.params.org_id!);
      if (!org) throw notFound("organization", ctx.params.org_id);
      return ok(
        paginateV2(ctx, org.groups, (g) => ({
          id: g.id,
          name: g.name,
          ...(g.description !== undefined ? { description: g.description } : {}),
        })),
      );
    },
  },
  {
    // spec: the project slug's `/` may be URL-escaped: `*slug` takes one or more segments.
    method: "GET",
    pattern: "/api/v2/project/*slug/envvar",
    handler: (ctx) => {
      const slug = ctx.params.slug!;
      const p = ctx.state.projects.find((x) => x.slug.toLowerCase() === slug.toLowerCase());
      if (!p) throw notFound("project", slug);
      // spec: value masked: four `x` characters plus the last four characters.
      // Decision: the list is one page (`next_page_token: null`), sorted by name.
      const items = [...p.env]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((e) => ({
          name: e.name,
          value: `xxxx${e.value.slice(-4)}`,
          "created-at": e.created_at,
        }));
      return ok({ items, next_page_token: null });
    },
  },
];
