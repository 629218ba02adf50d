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
import type { Family } from "../family.js";
import {
  allowFilters,
  body,
  type Ctx,
  created,
  mapData,
  ok,
  type Route,
  uuidFilter,
  withoutAttributes,
  withoutLastPage,
} from "../http.js";
import { hashUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { nonEmpty, seedId, vcsRepoSchema } from "../schemas.js";
import { PROJECT_BOOL_SETTINGS, PROJECT_LIST_SETTING } from "../spec-names.js";
import { findById, memo, nextId, removeWhere, removeWith, type State } from "../state.js";
import { type Schema, s } from "../validate.js";
import type { VcsRepoWire } from "../wire.js";
import type { EnvRow } from "./env-vars.js";
import { findOrg, type OrgRow, onOAuthVcs, type SeedOrg } from "./orgs.js";

export interface ProjectSettings {
  [key: string]: boolean | string[];
}
export interface ProjectRow {
  readonly id: string;
  readonly orgId: string;
  readonly slug: string;
  readonly name: string;
  readonly oauth: boolean;
  readonly isFollowed: boolean;
  readonly lastActiveAt?: string;
  readonly repo: VcsRepoWire;
  settings: ProjectSettings;
  readonly env: EnvRow[];
}

declare module "../state.js" {
  interface State {
    readonly projects: ProjectRow[];
  }
}

export interface SeedProject {
  readonly id?: string;
  /** `gh/acme/api`, or `api` (then prefixed with the org slug). */
  readonly slug: string;
  readonly name?: string;
  /**
   * The synthetic OAuth pipeline and trigger (spec: Pipelines, Triggers): every project has
   * them unless this is `false`.
   */
  readonly oauth?: boolean;
  /** Default true. */
  readonly is_followed?: boolean;
  readonly last_active_at?: string;
  readonly repo?: VcsRepoWire;
  readonly settings?: Readonly<Record<string, boolean | readonly string[]>>;
}

declare module "./orgs.js" {
  interface SeedOrg {
    readonly projects?: readonly SeedProject[];
  }
}

/** spec: api-v3.md "Project settings": 12 booleans plus `pr_only_branch_overrides`. */
export const PROJECT_BOOL_SETTINGS_KEYS = PROJECT_BOOL_SETTINGS;

export const projectSettingsSchema: Schema = s.obj({
  ...Object.fromEntries(PROJECT_BOOL_SETTINGS_KEYS.map((k) => [k, s.bool()])),
  [PROJECT_LIST_SETTING]: s.arr(s.str()),
});

/** spec: api-v2-v1.md Endpoints (V2): POST /organization/{org-slug-or-id}/project `{ name string }`. */
export const projectCreateSchema: Schema = s.obj({ name: nonEmpty() }, ["name"]);

/** Decision: project settings default to all false and no branch overrides. */
export const emptyProjectSettings = (): ProjectSettings => ({
  ...Object.fromEntries(PROJECT_BOOL_SETTINGS_KEYS.map((k) => [k, false])),
  pr_only_branch_overrides: [],
});

/** Decision: a project without `repo` gets a GitHub repo named after its slug. */
export const defaultRepo = (slug: string, id: string): VcsRepoWire => {
  const parts = slug.split("/");
  return {
    provider: "github",
    repo_id: String(Number.parseInt(id.replace(/-/g, "").slice(0, 8), 16)),
    repo_full_name: parts.slice(-2).join("/"),
  };
};

export const findProject = (st: State, id: string): ProjectRow | undefined =>
  findById(st, st.projects, id);

/** A seed's project slug: `api` in org `gh/acme` is `gh/acme/api`. */
export const fullSlug = (org: SeedOrg, slug: string): string =>
  slug.includes("/") ? slug : `${org.slug}/${slug}`;

/**
 * A project's V2 slug (spec: api-v2-v1.md "Conventions of V2"): `<vcs-slug>/<org-name>/
 * <repo-name>`, where for app-based providers the vcs-slug is a service-native token, the
 * org-name the organization id and the repo-name the project id. Decision: on an OAuth VCS
 * provider it is the project's slug as V3 lists it; the V3 `slug` of an app-based project
 * (the spec does not say its form) stays what it is, and only this form reaches its V2 routes.
 */
export const v2SlugOf = (p: {
  readonly id: string;
  readonly orgId: string;
  readonly slug: string;
}): string => (onOAuthVcs(p.slug) ? p.slug : `${p.slug.split("/")[0] ?? ""}/${p.orgId}/${p.id}`);

/** A project listing, filtered and sorted once per state version for all its pages. */
const projectListing = (
  st: State,
  query: string,
  build: () => readonly ProjectRow[],
): readonly ProjectRow[] => {
  const listings = memo(st, "projects:listings", () => new Map<string, readonly ProjectRow[]>());
  let rows = listings.get(query);
  if (!rows) {
    // Bounded: many different `filter[name]` searches must not grow it without end.
    if (listings.size >= 64) listings.clear();
    rows = build();
    listings.set(query, rows);
  }
  return rows;
};

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
  const hits = projectListing(
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
  {
    method: "GET",
    pattern: "/api/v3/projects",
    handler: (ctx) => ok(listProjects(ctx)),
    // docs/spec-notes.md "Reading the real service": projects come without a slug (listing,
    // look-up by slug, by id), and the look-up by slug without `page`.
    sparse: (body, ctx) => {
      const bare = mapData(body, (p) => withoutAttributes(p, ["slug"]));
      return ctx.query.get("filter[slug]") === null ? bare : withoutLastPage(bare);
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/projects/:id",
    handler: (ctx) => ok({ data: renderProject(projectOr404(ctx, ctx.params.id!)) }),
    sparse: (body) => mapData(body, (p) => withoutAttributes(p, ["slug"])),
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
 * The V2 project create and delete. Registered last (the family's `lastRoutes`): `DELETE
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
      // Everything in the project goes with it (each family's `onRemove.project`).
      removeWith(st, "project", p.id);
      removeWhere(st.projects, (x) => x.id === p.id);
      return ok({ message: "Project deleted." });
    },
  },
];

export const projects: Family = {
  name: "projects",
  routes: projectRoutes,
  lastRoutes: projectLifecycleRoutes,
  tables: ["projects"],
  seed: [
    {
      in: "org",
      key: "projects",
      level: "project",
      props: {
        id: seedId,
        slug: nonEmpty(),
        name: s.str(),
        oauth: s.bool(),
        is_followed: s.bool(),
        last_active_at: s.str(),
        repo: vcsRepoSchema,
        settings: projectSettingsSchema,
      },
      required: ["slug"],
      loadItem(l, parent, item, pp) {
        const org = parent.row as OrgRow;
        const sp = item as unknown as SeedProject;
        const slug = fullSlug(parent.item as unknown as SeedOrg, sp.slug);
        if (l.slugs.has(slug)) l.fail(`${pp}/slug`, `duplicate slug ${slug}`);
        l.slugs.add(slug);
        const id = l.claim(sp.id ?? hashUuid("project", slug), `${pp}/id`);
        const settings: ProjectSettings = { ...emptyProjectSettings() };
        for (const [k, v] of Object.entries(sp.settings ?? {}))
          settings[k] = Array.isArray(v) ? [...v] : (v as boolean);
        const project: ProjectRow = {
          id,
          orgId: org.id,
          slug,
          name: sp.name ?? slug.split("/").pop() ?? slug,
          // spec: api-v3.md Pipelines: GET /pipelines "includes the synthetic OAuth pipeline".
          // Decision: every project has it unless its seed says `oauth: false`, so every test
          // meets it as clients meet it on the service.
          oauth: sp.oauth !== false,
          isFollowed: sp.is_followed !== false,
          ...(sp.last_active_at !== undefined ? { lastActiveAt: sp.last_active_at } : {}),
          repo: sp.repo ? { ...sp.repo } : defaultRepo(slug, id),
          settings,
          env: [],
        };
        l.st.projects.push(project);
        return project;
      },
      dumpItems: (st, row) =>
        st.projects
          .filter((p) => p.orgId === (row as OrgRow).id)
          .map((p) => ({
            row: p,
            out: {
              id: p.id,
              slug: p.slug,
              name: p.name,
              oauth: p.oauth,
              is_followed: p.isFollowed,
              ...(p.lastActiveAt !== undefined ? { last_active_at: p.lastActiveAt } : {}),
              repo: { ...p.repo },
              settings: structuredClone(p.settings),
            },
          })),
    },
  ],
};
