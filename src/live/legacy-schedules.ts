/**
 * Legacy V2 schedules (issue 18): `GET /project/{project-slug}/schedule`. Waybill never
 * manages them (V3 schedule triggers replace them); drift lists them under each declared
 * project so teams see what still runs on the old mechanism (src/live/unmanaged.ts).
 *
 * Decision: the spec lists the route "by method and path only" (api-v2-v1.md), so its
 * shape is taken from V2's convention for lists (`{ items, next_page_token }`, every page
 * read) and the spec's Schedule fields; only `name` (the address key; the `id` when it is
 * missing or empty) is used. An item that is not an object is an error, not skipped: drift
 * never under-reports.
 */
import { ApiError } from "../api/errors.js";
import type { ReadOnlyApi } from "../api/types.js";
import { LiveReadError } from "../core/errors.js";
import { v2Slug } from "../kinds/listing.js";

/** A project's legacy schedules, or why they were not read. */
export type LegacySchedules =
  | { readonly read: true; readonly names: readonly string[] }
  | { readonly read: false; readonly reason: string };

/**
 * The name of each legacy schedule of a project (the id for one without a name).
 *
 * Decision: a 404 on the listing of a project the plan's V3 read found is not "no
 * schedules": the project exists, so the spec gives no reading of that 404 as an empty list
 * (api-v2-v1.md Errors §3: 404 is a "missing entity"), and saying "none" would under-report
 * what may still run. It is returned as not read, with the status, and drift says so on its
 * own line (src/live/unmanaged.ts); drift does not fail for it, since the list is
 * information. Every other error still fails the drift.
 */
export const listLegacySchedules = async (
  api: ReadOnlyApi,
  slug: string,
): Promise<LegacySchedules> => {
  let items: unknown[];
  try {
    items = await api.listV2<unknown>(`/project/${v2Slug(slug)}/schedule`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      return { read: false, reason: `${err.method} ${err.path} answered 404` };
    }
    throw err;
  }
  const names = items.map((x) => {
    if (x === null || typeof x !== "object") {
      throw new LiveReadError(
        `GET /api/v2/project/${slug}/schedule listed an item that is not an object`,
      );
    }
    const { name, id } = x as { name?: unknown; id?: unknown };
    if (typeof name === "string" && name !== "") return name;
    if (typeof id === "string" && id !== "") return id;
    throw new LiveReadError(
      `GET /api/v2/project/${slug}/schedule listed a schedule without a name or id`,
    );
  });
  return { read: true, names };
};
