/**
 * Projects and project settings. spec: api-v3.md "Projects", "Project settings"; and the V2
 * project create and delete (api-v2-v1.md Endpoints (V2), issue 18):
 * `POST /organization/{org-slug-or-id}/project` `{ name }`, `DELETE /project/{project-slug}`.
 *
 * Decisions where the spec is silent, each the less forgiving reading:
 * - the org is named by id or by slug (its `/` kept or escaped);
 * - a name the org already has (any case) is 400;
 * - the new project's slug is `<org slug>/<name>` in an org on an OAuth VCS provider, and
 *   `<org slug>/<project id>` in a standalone org (api-v2-v1.md: for app-based providers
 *   "repo-name" is the project id); the V2 answer's `slug` is its V2 slug (`v2SlugOf`:
 *   `<vcs-slug>/<org id>/<project id>` there); an OAuth org's project gets the synthetic
 *   OAuth pipeline;
 * - a delete takes everything in the project with it (env vars, webhooks, pipelines,
 *   triggers, checkout keys, schedules) and the context restrictions naming it.
 */
import { badRequest, notFound } from "../errors.js";
import { allowFilters, body, type Ctx, created, ok, type Route, uuidFilter } from "../http.js";
import { paginate } from "../paging.js";
import { projectCreateSchema, projectSettingsSchema } from "../schemas.js";
import {
  defaultRepo,
  emptyProjectSettings,
  findOrg,
  findProject,
  nextId,
  onOAuthVcs,
  type ProjectRow,
  removeWhere,
  rowsOf,
  v2SlugOf,
} from "../store.js";

/** spec: api-v3.md "Projects": `page[limit]` (max 50). */
const PROJECTS_MAX = 50;

export const renderProject = (p: ProjectRow) => ({
  id: p.id,
  attributes: {
    slug: p.slug,
    name: p.name,
    is_followed: p.isFollowed,
    ...(p.lastActiveAt !== undefined ? { last_active_at: p.lastActiveAt } : {}),
  },
  references: { org: { id: p.orgId } },
});

/**
 * The project a V2 route's `*slug` names (spec: api-v2-v1.md: "the `/` may be URL-escaped").
 * An app-based project is named only by `<vcs-slug>/<org id>/<project id>` (spec: api-v2-v1.md
 * "Conventions of V2"; `v2SlugOf`): a slug built from its name names nothing, 404 (the less
 * forgiving reading). Decision: slugs compare case-insensitively; none is 404.
 */
export const projectBySlugOr404 = (ctx: Ctx): ProjectRow => {
  const slug = (ctx.params.slug ?? "").toLowerCase();
  const p = ctx.state.projects.find((x) => v2SlugOf(x).toLowerCase() === slug);
  if (!p) throw notFound("project", ctx.params.slug ?? "");
  return p;
};

export const projectOr404 = (ctx: Ctx, id: string): ProjectRow => {
  const p = findProject(ctx.state, id);
  if (!p) throw notFound("project", id);
  return p;
};

// No deep copy: a rendered body is serialized at once (server.ts) and never kept.
const renderSettings = (p: ProjectRow) => ({
  data: { attributes: p.settings, references: { project: { id: p.id } } },
});

const byName = (a: ProjectRow, b: ProjectRow): number =>
  a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug);
/** Most recent build first; never-built projects last, by name. */
const byLastActive = (a: ProjectRow, b: ProjectRow): number =>
  (b.lastActiveAt ?? "").localeCompare(a.lastActiveAt ?? "") || byName(a, b);

const listProjects = (ctx: Ctx) => {
  allowFilters(ctx, ["filter[slug]", "filter[org_id]", "filter[following]", "filter[name]"]);
  const q = ctx.query;
  const slug = q.get("filter[slug]");
  const orgId = uuidFilter(ctx, "filter[org_id]", false);
  const following = q.get("filter[following]");
  const name = q.get("filter[name]");
  // Rule 1: at least one of slug, org_id, following.
  if (slug === null && orgId === undefined && following === null) {
    throw badRequest(
      "missing_filter",
      "one of filter[slug], filter[org_id], filter[following] is required",
    );
  }
  // Rule 2: filter[slug] must be the only filter.
  if (slug !== null) {
    if (orgId !== undefined || following !== null || name !== null) {
      throw badRequest("invalid_filter", "filter[slug] cannot be combined with other filters");
    }
    // Rule 5: order_by is accepted and ignored with filter[slug]. Rule 6: no match is empty.
    // Decision: slugs compare case-insensitively.
    const hits = ctx.state.projects.filter((p) => p.slug.toLowerCase() === slug.toLowerCase());
    return paginate(ctx, hits, renderProject, PROJECTS_MAX);
  }
  // Rule 4: filter[following] accepts only `true`.
  if (following !== null && following !== "true") {
    throw badRequest("invalid_filter", "filter[following] accepts only true");
  }
  // Rule 5: order_by is name (default) or last_active_at.
  const orderBy = q.get("order_by") ?? "name";
  if (orderBy !== "name" && orderBy !== "last_active_at") {
    throw badRequest("invalid_order_by", "order_by must be name or last_active_at");
  }
  // Rule 6: an org that does not exist is 404.
  if (orgId !== undefined && !findOrg(ctx.state, orgId)) throw notFound("org", orgId);
  // Rule 3: filters combine; filter[name] is a case-insensitive substring search.
  const needle = name?.toLowerCase();
  const hits = rowsOf.projectListing(
    ctx.state,
    JSON.stringify([orgId ?? null, following, needle ?? null, orderBy]),
    () =>
      ctx.state.projects
        .filter((p) => orgId === undefined || p.orgId === orgId)
        .filter((p) => following === null || p.isFollowed)
        .filter((p) => needle === undefined || p.name.toLowerCase().includes(needle))
        .sort(orderBy === "name" ? byName : byLastActive),
  );
  return paginate(ctx, hits, renderProject, PROJECTS_MAX);
};

export const projectRoutes: readonly Route[] = [
  { method: "GET", pattern: "/api/v3/projects", handler: (ctx) => ok(listProjects(ctx)) },
  {
    method: "GET",
    pattern: "/api/v3/projects/:id",
    handler: (ctx) => ok({ data: renderProject(projectOr404(ctx, ctx.params.id!)) }),
  },
  {
    method: "GET",
    pattern: "/api/v3/projects/:id/settings",
    handler: (ctx) => ok(renderSettings(projectOr404(ctx, ctx.params.id!))),
  },
  {
    method: "POST",
    pattern: "/api/v3/projects/:id/update-settings",
    body: projectSettingsSchema,
    handler: (ctx) => {
      const p = projectOr404(ctx, ctx.params.id!);
      const b = body(ctx);
      p.settings = { ...p.settings, ...(structuredClone(b) as ProjectRow["settings"]) };
      return ok(renderSettings(p));
    },
  },
];

/**
 * The V2 project create and delete. Registered last (emulator/src/server.ts): `DELETE
 * /project/*slug` would otherwise take every V2 route under a project (a checkout key's).
 */
export const projectLifecycleRoutes: readonly Route[] = [
  {
    method: "POST",
    pattern: "/api/v2/organization/*org/project",
    body: projectCreateSchema,
    handler: (ctx) => {
      const key = ctx.params.org ?? "";
      const org =
        findOrg(ctx.state, key) ??
        ctx.state.orgs.find((o) => o.slug.toLowerCase() === key.toLowerCase());
      if (!org) throw notFound("organization", key);
      const { name } = body(ctx) as { name: string };
      if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
        throw badRequest("invalid_request", "/name: letters, digits, _ . - only", "/name");
      }
      if (
        ctx.state.projects.some(
          (p) => p.orgId === org.id && p.name.toLowerCase() === name.toLowerCase(),
        )
      ) {
        throw badRequest("invalid_request", `/name: the org has a project named ${name}`, "/name");
      }
      const id = nextId(ctx.state, "project");
      const oauth = onOAuthVcs(org.slug);
      const slug = `${org.slug}/${oauth ? name : id}`;
      const row: ProjectRow = {
        id,
        orgId: org.id,
        slug,
        name,
        oauth,
        isFollowed: true,
        repo: defaultRepo(slug, id),
        settings: { ...emptyProjectSettings() },
        env: [],
      };
      ctx.state.projects.push(row);
      // V2's project: slug, name, id and the org's (api-v2-v1.md "Project").
      return created({
        slug: v2SlugOf(row),
        name,
        id,
        organization_name: org.name,
        organization_slug: org.slug,
        organization_id: org.id,
        vcs_info: { provider: slug.split("/")[0], default_branch: "main" },
      });
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v2/project/*slug",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const st = ctx.state;
      const pipelines = new Set(st.pipelines.filter((x) => x.projectId === p.id).map((x) => x.id));
      removeWhere(st.triggers, (t) => pipelines.has(t.pipelineId));
      removeWhere(st.pipelines, (x) => x.projectId === p.id);
      removeWhere(st.webhooks, (w) => w.projectId === p.id);
      removeWhere(st.checkoutKeys, (k) => k.projectId === p.id);
      removeWhere(st.schedules, (s) => s.projectId === p.id);
      for (const c of st.contexts) {
        removeWhere(
          c.restrictions,
          (r) => r.restriction_type === "project" && r.match_pattern === p.id,
        );
      }
      removeWhere(st.projects, (x) => x.id === p.id);
      return ok({ message: "Project deleted." });
    },
  },
];
