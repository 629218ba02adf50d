/**
 * Several declarations of one org (the files of a folder config, several `-c`): their
 * org-level collections merged kind by kind, from the registry, so a new org-level kind is
 * merged without an edit in the loader or the planner (issue 16: `mergeFiles` and
 * `mergeOrgs` named each collection, and a new one was silently dropped from a second file).
 */
import { type DesiredOrg, mergedOrgLists } from "../model/desired.js";
import { childKinds } from "./registry.js";

/**
 * `a`'s and `b`'s org-level collections: maps unioned (`a`'s entry kept for a key both have;
 * the loader reports such a key as declared twice), lists concatenated, and a singleton
 * (org settings) `a`'s (`first`) or `b`'s keys over `a`'s (`overlay`).
 */
export const mergeOrgCollections = (
  a: DesiredOrg,
  b: DesiredOrg,
  singletons: "first" | "overlay",
): Partial<DesiredOrg> => {
  const out: Record<string, unknown> = {};
  const left = a as unknown as Readonly<Record<string, unknown>>;
  const right = b as unknown as Readonly<Record<string, unknown>>;
  for (const kind of childKinds("org")) {
    // Projects are merged by mergeProjects (below), key by key.
    if (kind.config.builtByLoader) continue;
    const { yamlKey, shape } = kind.config;
    const x = left[yamlKey];
    const y = right[yamlKey];
    if (x === undefined || y === undefined) {
      const one = x ?? y;
      if (one !== undefined) out[yamlKey] = one;
      continue;
    }
    switch (shape) {
      case "map": {
        const merged = new Map(x as ReadonlyMap<string, unknown>);
        for (const [k, v] of y as ReadonlyMap<string, unknown>)
          if (!merged.has(k)) merged.set(k, v);
        out[yamlKey] = merged;
        break;
      }
      case "list":
        out[yamlKey] = [...(x as readonly unknown[]), ...(y as readonly unknown[])];
        break;
      case "singleton":
        out[yamlKey] = singletons === "first" ? x : { ...(x as object), ...(y as object) };
        break;
    }
  }
  return out as Partial<DesiredOrg>;
};

/**
 * Two declarations' projects: a project declared in both gets the keys of both (the loader
 * checks that they do not overlap: each key is declared once), at the first one's place.
 */
export const mergeProjects = (
  a: DesiredOrg["projects"],
  b: DesiredOrg["projects"],
): DesiredOrg["projects"] => {
  const out = new Map(a);
  for (const [slug, p] of b) {
    const first = out.get(slug);
    out.set(slug, first === undefined ? p : { ...p, ...first });
  }
  return out;
};

/** One org from two of its declarations: collections, projects and the org's lists. */
export const mergeOrgDeclarations = (
  a: DesiredOrg,
  b: DesiredOrg,
  singletons: "first" | "overlay",
): DesiredOrg => ({
  slug: a.slug,
  source: a.source,
  ...mergeOrgCollections(a, b, singletons),
  projects: mergeProjects(a.projects, b.projects),
  ignore: [...a.ignore, ...b.ignore],
  ...mergedOrgLists(a, b),
});
