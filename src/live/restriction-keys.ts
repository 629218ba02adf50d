/**
 * The slug resolution's last step for context restrictions, shared by the live reader
 * (src/live/read-live-state.ts) and export's reader (src/export/read.ts).
 */
import type { ReadOnlyApi } from "../api/types.js";
import type { ProjectAttributes, V3One } from "../core/wire.js";
import { restrictionKeyValue } from "../kinds/context-restriction.js";
import type { LiveContext } from "../model/live.js";
import { isNotVisible } from "./resolve.js";

/**
 * Restriction key values (src/model/live.ts LiveRestriction.key_value): a project id becomes
 * its slug — from the slugs the config references first, else one `GET /projects/{id}` per
 * unknown id (in parallel, each id once); an unresolvable id stays the id. This is the
 * slug resolution's last step (the walk's, like the org's slug → id lookups), applied to
 * the restrictions the context_restriction kind listed.
 */
export const resolveRestrictionKeys = async (
  api: ReadOnlyApi,
  orgId: string,
  contexts: readonly LiveContext[],
  projectIds: ReadonlyMap<string, string>,
): Promise<LiveContext[]> => {
  const slugById = new Map<string, string>();
  for (const [slug, id] of projectIds) slugById.set(id, slug);
  const unknown = new Set<string>();
  for (const c of contexts) {
    for (const r of c.restrictions ?? []) {
      if (r.restriction_type === "project" && !slugById.has(r.match_pattern))
        unknown.add(r.match_pattern);
    }
  }
  const looked = await Promise.all(
    [...unknown].map(async (id): Promise<[string, string | undefined]> => {
      try {
        const p = await api.get<V3One<ProjectAttributes>>("v3", `/projects/${id}`);
        return [id, p?.data?.attributes?.slug];
      } catch (err) {
        if (isNotVisible(err)) return [id, undefined];
        throw err;
      }
    }),
  );
  for (const [id, slug] of looked) if (slug !== undefined) slugById.set(id, slug);

  return contexts.map((c) =>
    c.restrictions === undefined
      ? c
      : {
          ...c,
          restrictions: c.restrictions.map((r) => ({
            ...r,
            key_value: restrictionKeyValue(r.restriction_type, r.match_pattern, orgId, (id) =>
              slugById.get(id),
            ),
          })),
        },
  );
};
