import { compileAddressGlob } from "../model/address.js";

/**
 * Decision: up to PROJECT_SLUG_LOOKUP_MAX declared project slugs per org are resolved with
 * one `GET /projects?filter[slug]=` each; above that, the org's projects are listed with
 * `filter[org_id]` (50 per page, the documented maximum). At the default parallelism (10)
 * ten slug look-ups finish in one round trip, which beats any listing; a listing costs
 * ceil(org projects / 50) sequential pages, which for a typical org (a few hundred projects)
 * is fewer requests than one per declared slug once there are more than ten, and it spends
 * less of the per-route rate limit (spec: api-v3.md "Limits").
 */
export const PROJECT_SLUG_LOOKUP_MAX = 10;

export type ProjectLookup = "by_slug" | "list_org";

export const chooseProjectLookup = (slugCount: number): ProjectLookup =>
  slugCount <= PROJECT_SLUG_LOOKUP_MAX ? "by_slug" : "list_org";

/** The HTTP status carried by an API error (src/api/errors.ts ApiError), if any. */
export const httpStatusOf = (err: unknown): number | undefined => {
  if (typeof err !== "object" || err === null) return undefined;
  const status = (err as { status?: unknown }).status;
  return typeof status === "number" ? status : undefined;
};

/**
 * spec: api-v3.md Errors, rule 5: "Not found (or not visible, where visibility must not
 * leak) is 404"; Authentication rule 5: insufficient permission is 403. On a declared parent
 * both mean the planner must not plan a create over something that may exist.
 */
export const isNotVisible = (err: unknown): boolean => {
  const status = httpStatusOf(err);
  return status === 403 || status === 404;
};

/** A readable reason for a NotVisible entry, without anything but method, path and status. */
export const notVisibleReason = (what: string, err: unknown): string => {
  const status = httpStatusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  return status === undefined ? `${what}: ${message}` : `${what} answered ${status}: ${message}`;
};

/** True when any `ignore` glob matches the address exactly. */
export const makeIgnoreMatcher = (globs: readonly string[]): ((address: string) => boolean) => {
  const res = globs.map(compileAddressGlob);
  return (address) => res.some((re) => re.test(address));
};
