/**
 * Reads that tell whether a lock-named context is a claim (issue 29): it holds nothing
 * (claim.ts `isEmptyContent`), and when the service wrote it. Shared by the lock
 * (src/lock/org-lock.ts) and by the readers that leave claims out of plan, drift and export
 * (src/live, src/export), so all of them draw the line in one place.
 */
import type { ReadOnlyApi } from "../api/types.js";
import { isEmptyContent, type RestrictionShape } from "./claim.js";

/**
 * spec: api-v3.md Context restrictions: `GET /context-restrictions?filter[context_id]` lists
 * all three types; Contexts: `GET /contexts/:id/env-vars` lists the variables (names only).
 */
export const holdsNothing = async (
  api: ReadOnlyApi,
  orgId: string,
  contextId: string,
  signal?: AbortSignal,
): Promise<boolean> => {
  const options = signal ? { signal } : {};
  const [env, restrictions] = await Promise.all([
    api.listV3<{ name?: string }>(`/contexts/${contextId}/env-vars`, {}, options),
    api.listV3<RestrictionShape>(
      "/context-restrictions",
      { "filter[context_id]": contextId },
      options,
    ),
  ]);
  return isEmptyContent(
    env.length,
    restrictions.map((r) => r.attributes),
    orgId,
  );
};

/**
 * When the service wrote a context: spec: api-v2-v1.md "Resources and their fields" (Context
 * `id`, `name`, `created_at`), "Endpoints (V2)" (`GET /context/{context_id}`). (The V3 Context lists only
 * `name`.) Undefined when the answer has no readable time.
 */
export const contextCreatedAt = async (
  api: ReadOnlyApi,
  contextId: string,
  signal?: AbortSignal,
): Promise<number | undefined> => {
  const body = await api.get<{ created_at?: unknown }>(
    "v2",
    `/context/${contextId}`,
    {},
    signal ? { signal } : {},
  );
  const at = typeof body?.created_at === "string" ? Date.parse(body.created_at) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
};
