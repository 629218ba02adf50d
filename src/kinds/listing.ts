/**
 * What the kinds' `list`, `desiredItems` and `liveItems` share (src/kinds/contract.ts): the
 * scope's ids, an id every listed item must have, a singleton's attributes, and the walk
 * over the found projects of an org.
 */
import type { ListOptions, Query, ReadOnlyApi } from "../api/types.js";
import { LiveReadError } from "../core/errors.js";
import type { V3One, V3Resource } from "../core/wire.js";
import type { LiveOrg, LiveProject } from "../model/live.js";
import type { ListOptionsOf, ListScope } from "./contract.js";

/** A scope id the kind's route needs; missing is a programming error, not the service's. */
export const scopeId = (scope: ListScope, name: "org_id" | "project_id" | "context_id"): string => {
  const v = scope[name];
  if (v === undefined) throw new Error(`listing needs ${name}`);
  return v;
};

/** spec: api-v3.md Envelopes: every listed resource has an id; identity needs it. */
export const requireId = (r: V3Resource<unknown>, kind: string): string => {
  if (!r.id) throw new LiveReadError(`the service listed a ${kind} without an id`);
  return r.id;
};

/** A singleton's attributes (org and project settings), or a LiveReadError. */
export const singletonAttributes = <A>(body: V3One<A> | undefined, what: string): A => {
  const attributes = body?.data?.attributes;
  if (attributes === undefined || attributes === null || typeof attributes !== "object") {
    throw new LiveReadError(`${what} answered without data.attributes`);
  }
  return attributes;
};

/** The client's list options for a kind's listing: pages are handed on as live items. */
export const pageOptions = <A, L>(
  options: ListOptionsOf<L> | undefined,
  toLive: (r: V3Resource<A>) => L,
): ListOptions<V3Resource<A>> => ({
  ...(options?.signal ? { signal: options.signal } : {}),
  ...(options?.onPage
    ? { onPage: (items: readonly V3Resource<A>[]) => options.onPage?.(items.map(toLive)) }
    : {}),
});

/** The org's projects that were read (not the absent or not visible ones), by slug. */
export function* foundProjects(org: LiveOrg): Iterable<[string, LiveProject]> {
  for (const [slug, p] of org.projects) if (p.status === "found") yield [slug, p];
}

/** spec: api-v2-v1.md: the project slug `<vcs>/<org>/<repo>` goes in the path, `/` kept. */
export const v2Slug = (slug: string): string => slug.split("/").map(encodeURIComponent).join("/");

/**
 * The OAuth VCS providers' slugs: "two long and two short VCS provider names" (spec:
 * api-v2-v1.md Endpoints (V2), project settings `provider`). Decision: a project slug whose
 * first segment is another is on an app-based provider (its vcs-slug "is a service-native
 * token", api-v2-v1.md "Conventions of V2").
 */
const OAUTH_VCS: ReadonlySet<string> = new Set(["gh", "github", "bb", "bitbucket"]);

/**
 * Whether an org or project slug is on an OAuth VCS provider; any other first segment is an
 * app-based provider's or a standalone org's (where groups can be created: spec:
 * api-v2-v1.md Endpoints (V2), "standalone orgs only").
 */
export const isVcsOrgSlug = (slug: string): boolean =>
  OAUTH_VCS.has((slug.split("/")[0] ?? "").toLowerCase());

/**
 * The slug a project's V2 routes take (spec: api-v2-v1.md "Conventions of V2"):
 * `<vcs-slug>/<org-name>/<repo-name>`; for app-based providers the org-name is the
 * organization id and the repo-name the project id. So an app-based project's V2 slug is
 * built from the ids, never from its name or the slug V3 lists (issue 28); an OAuth
 * provider's project keeps its slug.
 */
export const v2ProjectSlug = (slug: string, orgId: string, projectId: string): string => {
  return isVcsOrgSlug(slug) ? slug : `${slug.split("/")[0] ?? ""}/${orgId}/${projectId}`;
};

/**
 * The slug of a project the service listed without `attributes.slug` (docs/spec-notes.md
 * "Reading the real service"), built as spec: api-v2-v1.md "Conventions of V2" builds a V2
 * slug, from the ORG (never from a config key): on an OAuth VCS provider
 * `<org slug>/<project name>` (the repo's name), undefined without a name; on any other
 * provider (app-based, or the service's own) `<org's provider>/<org id>/<project id>`.
 */
export const builtProjectSlug = (
  orgSlug: string,
  orgId: string,
  projectId: string,
  name: string | undefined,
): string | undefined => {
  if (!isVcsOrgSlug(orgSlug)) return `${orgSlug.split("/")[0] ?? ""}/${orgId}/${projectId}`;
  return name === undefined || name === "" ? undefined : `${orgSlug}/${name}`;
};

/** A listed project's slug: its `attributes.slug`, else `builtProjectSlug`. */
export const listedProjectSlug = (
  attributes: { readonly slug?: unknown; readonly name?: unknown },
  orgSlug: string,
  orgId: string,
  projectId: string,
): string | undefined =>
  typeof attributes.slug === "string" && attributes.slug !== ""
    ? attributes.slug
    : builtProjectSlug(
        orgSlug,
        orgId,
        projectId,
        typeof attributes.name === "string" ? attributes.name : undefined,
      );

/** The V2 slug of the scope's project (`v2ProjectSlug`); missing is a programming error. */
export const scopeSlug = (scope: ListScope): string => {
  if (scope.project_slug === undefined) throw new Error("listing needs project_slug");
  if (scope.org_id === undefined || scope.project_id === undefined) {
    throw new Error("listing needs org_id and project_id for a V2 project slug");
  }
  return v2ProjectSlug(scope.project_slug, scope.org_id, scope.project_id);
};

/**
 * Every item of a V2 listing, each checked and made a live item (`what` says what a bad one
 * lacks, for the error), handed to `onPage` at once; the whole list or a LiveReadError.
 */
export const listV2Items = async <W, L>(
  api: ReadOnlyApi,
  path: string,
  query: Query | undefined,
  options: ListOptionsOf<L> | undefined,
  check: {
    readonly is: (x: unknown) => x is W;
    readonly toLive: (w: W) => L;
    readonly what: string;
  },
): Promise<L[]> => {
  const items = await api.listV2<unknown>(
    path,
    query,
    options?.signal ? { signal: options.signal } : {},
  );
  const out = items.map((x) => {
    if (!check.is(x)) throw new LiveReadError(`the service listed ${check.what}`);
    return check.toLive(x);
  });
  options?.onPage?.(out);
  return out;
};
