/**
 * The names of referred items the live read did not list, read one by one by id (issue 31:
 * generic over the registry's references, src/kinds/references.ts). A kind whose items the
 * walk reads only in part (projects: the declared ones, and the slugs the config writes)
 * says how one is read by its id (`nameById`); every id a live reference names that neither
 * the read nor the walk's own look-ups named is read once (in parallel), and an id the
 * service does not show (403/404) stays an id. Shared by the live reader
 * (src/live/read-live-state.ts) and export's reader (src/export/read.ts), which then give
 * each reference's id as its name (`namedReferences`).
 */
import type { ReadOnlyApi } from "../api/types.js";
import { type Kinds, type KnownNames, unnamedReferredIds } from "../kinds/references.js";
import { ALL_KINDS } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";
import type { LiveOrg } from "../model/live.js";
import { isNotVisible } from "./resolve.js";

/**
 * `known` with the names of the referred items read by id added: for each kind with
 * `nameById` that a reference points to, each id its live referrers name and nobody named.
 */
export const lookUpReferredNames = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  known: KnownNames,
  kinds: Kinds = ALL_KINDS,
): Promise<KnownNames> => {
  const referred = new Set(kinds.flatMap((k) => (k.references ?? []).map((r) => r.to)));
  const out = new Map<ResourceType, ReadonlyMap<string, string>>(known);
  await Promise.all(
    kinds
      .filter((kind) => kind.nameById !== undefined && referred.has(kind.type))
      .map(async (kind) => {
        const ids = unnamedReferredIds(org, kind.type, known, kinds);
        if (ids.length === 0) return;
        const looked = await Promise.all(
          ids.map(async (id): Promise<[string, string | undefined]> => {
            try {
              return [id, await kind.nameById?.(api, id)];
            } catch (err) {
              if (isNotVisible(err)) return [id, undefined];
              throw err;
            }
          }),
        );
        const names = new Map(known.get(kind.type) ?? []);
        for (const [id, name] of looked) if (name !== undefined) names.set(id, name);
        out.set(kind.type, names);
      }),
  );
  return out;
};
