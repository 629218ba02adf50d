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

/** The project slug a V2 project route needs; missing is a programming error. */
export const scopeSlug = (scope: ListScope): string => {
  if (scope.project_slug === undefined) throw new Error("listing needs project_slug");
  return scope.project_slug;
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
