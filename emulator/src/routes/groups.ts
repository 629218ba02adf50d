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
import { type Ctx, created, ok, type Route } from "../http.js";
import { isUuid } from "../ids.js";
import { paginateV2 } from "../paging.js";
import { groupCreateSchema } from "../schemas.js";
import { type GroupRow, nextId, type OrgRow, onOAuthVcs } from "../store.js";
import { orgOr404 } from "./orgs.js";

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
      for (const c of ctx.state.contexts) {
        if (c.orgId !== org.id) continue;
        for (let r = c.restrictions.length - 1; r >= 0; r--) {
          const row = c.restrictions[r];
          if (row?.restriction_type === "group" && row.match_pattern === gone?.id) {
            c.restrictions.splice(r, 1);
          }
        }
      }
      return ok({ message: "ok" });
    },
  },
];
