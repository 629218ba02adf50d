/**
 * Orgs and org settings. spec: api-v3.md "Orgs", "Org settings". The seed's root member:
 * every other family's items hang off an org (seed `orgs[]`).
 */

import { notFound } from "../errors.js";
import type { Family, SeedScope } from "../family.js";
import { allowFilters, body, type Ctx, mapData, ok, type Route, withoutLastPage } from "../http.js";
import { hashUuid, isUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { nonEmpty, seedId } from "../schemas.js";
import { ORG_SETTINGS } from "../spec-names.js";
import { findById, type State } from "../state.js";
import { type Schema, s } from "../validate.js";
import type { GroupRow } from "./groups.js";

export interface OrgRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  settings: Record<string, boolean>;
  readonly defaultContextRestriction: boolean;
  readonly groups: GroupRow[];
  /** The org's SSO group mappings (a PUT replaces the whole list). */
  ssoGroupMappings: { readonly idp_group_name: string; readonly group_id: string }[];
}

declare module "../state.js" {
  interface State {
    readonly orgs: OrgRow[];
  }
}

export interface SeedOrg {
  readonly id?: string;
  /** e.g. `gh/acme`. */
  readonly slug: string;
  readonly name?: string;
  readonly settings?: Readonly<Record<string, boolean>>;
  /** Whether `POST /contexts` adds an "all members" group restriction. Default true. */
  readonly default_context_restriction?: boolean;
}

declare module "../seed.js" {
  interface Seed {
    readonly orgs?: readonly SeedOrg[];
  }
}

/** spec: api-v3.md "Org settings": the 18 booleans (the emulator's own list: spec-names.ts). */
export const ORG_SETTINGS_KEYS = ORG_SETTINGS;

export const orgSettingsSchema: Schema = s.obj(
  Object.fromEntries(ORG_SETTINGS_KEYS.map((k) => [k, s.bool()])),
);

/** Decision: org settings default to all false. */
const emptyOrgSettings = (): Record<string, boolean> =>
  Object.fromEntries(ORG_SETTINGS_KEYS.map((k) => [k, false]));

export const findOrg = (st: State, id: string): OrgRow | undefined => findById(st, st.orgs, id);

/**
 * Decision: the OAuth VCS providers' slugs (`gh`, `github`, `bb`, `bitbucket`). A slug that
 * starts with another is app-based (a project slug's vcs-slug "for app-based providers is a
 * service-native token", spec: api-v2-v1.md Resources and their fields): its projects have no checkout keys, and
 * its org is a standalone one, the only kind where groups can be created.
 */
export const OAUTH_VCS_SLUGS: ReadonlySet<string> = new Set(["gh", "github", "bb", "bitbucket"]);

/** Whether a project or org slug is on an OAuth VCS provider (see OAUTH_VCS_SLUGS). */
export const onOAuthVcs = (slug: string): boolean => OAUTH_VCS_SLUGS.has(slug.split("/")[0] ?? "");

/**
 * Decision: an app-based org's slug `<vcs-slug>/<uuid>` names its id (spec: api-v2-v1.md
 * "Conventions of V2": for app-based providers "org-name is the organization id"), so a
 * seed org written so gets that id unless the seed says otherwise.
 */
const standaloneOrgId = (slug: string): string | undefined => {
  const [vcs, second, ...rest] = slug.split("/");
  return vcs !== undefined && !onOAuthVcs(slug) && rest.length === 0 && isUuid(second ?? "")
    ? (second as string).toLowerCase()
    : undefined;
};

/** The org of a seed scope below it (a project's, a context's, a restriction's). */
export const seedOrgOf = (scope: SeedScope): { row: OrgRow; item: SeedOrg } => {
  let at: SeedScope | undefined = scope;
  while (at && at.level !== "org") at = at.parent;
  if (!at) throw new Error("emulator: a seed scope outside an org");
  return { row: at.row as OrgRow, item: at.item as unknown as SeedOrg };
};

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
    // docs/spec-notes.md "Reading the real service": the look-up by slug answers each org
    // as `{ id }` alone, without `page`.
    sparse: (body, ctx) =>
      ctx.query.get("filter[slug]") === null
        ? body
        : withoutLastPage(mapData(body, (o) => ({ id: o.id }))),
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
];

export const orgs: Family = {
  name: "orgs",
  routes: orgRoutes,
  tables: ["orgs"],
  seed: [
    {
      in: "",
      key: "orgs",
      level: "org",
      props: {
        id: seedId,
        slug: nonEmpty(),
        name: s.str(),
        // Any boolean by name, not only the spec's 18: the real service returns settings the
        // spec does not name (`is_bitbucket_workspace_member_org_member`, issue 40), and a
        // seed says what the service holds. `update-settings` still takes only the spec's
        // (orgSettingsSchema: others are 400), so a client can never write one.
        settings: s.record(s.bool()),
        default_context_restriction: s.bool(),
      },
      required: ["slug"],
      loadItem(l, _parent, item, op) {
        const so = item as unknown as SeedOrg;
        if (l.slugs.has(so.slug)) l.fail(`${op}/slug`, `duplicate org slug ${so.slug}`);
        l.slugs.add(so.slug);
        const org: OrgRow = {
          id: l.claim(so.id ?? standaloneOrgId(so.slug) ?? hashUuid("org", so.slug), `${op}/id`),
          slug: so.slug,
          name: so.name ?? so.slug.split("/").pop() ?? so.slug,
          settings: { ...emptyOrgSettings(), ...so.settings },
          defaultContextRestriction: so.default_context_restriction !== false,
          groups: [],
          ssoGroupMappings: [],
        };
        l.st.orgs.push(org);
        return org;
      },
      dumpItems: (st) =>
        st.orgs.map((o) => ({
          row: o,
          out: {
            id: o.id,
            slug: o.slug,
            name: o.name,
            settings: { ...o.settings },
            default_context_restriction: o.defaultContextRestriction,
          },
        })),
    },
  ],
};
