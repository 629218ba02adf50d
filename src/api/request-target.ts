import { isUuid } from "../core/uuid.js";
import { InvalidRequestError } from "./errors.js";
import type { ApiGeneration, Query } from "./types.js";

/** The API root of each generation (spec: api-v3.md Versioning). */
export const API_ROOT: Readonly<Record<ApiGeneration, string>> = {
  v3: "/api/v3",
  v2: "/api/v2",
};

/** Keep `[` and `]` readable in parameter names (`filter[org_id]`, types.ts contract). */
const encodeKey = (key: string): string =>
  encodeURIComponent(key).replace(/%5B/gi, "[").replace(/%5D/gi, "]");

/**
 * `?a=1&b=x` from a query object, in the object's order; `undefined` values are left out.
 * Values are percent-encoded (a cursor is sent back byte for byte: spec: api-v3.md
 * Envelopes: "sent back unchanged as `page[cursor]`").
 */
export const queryString = (query: Query | undefined): string => {
  if (query === undefined) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    parts.push(`${encodeKey(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
};

/**
 * `/api/v3/contexts?filter[org_id]=…`: the path as logged and put in errors (the base URL's
 * own path prefix is not repeated there). Throws InvalidRequestError for a path that is not
 * a plain absolute path: a query belongs in `query`, so it is encoded and never duplicated.
 */
export const apiPath = (api: ApiGeneration, path: string, query: Query | undefined): string => {
  if (!path.startsWith("/") || /[?#\s]/.test(path) || path.includes("//")) {
    throw new InvalidRequestError(
      `invalid API path ${JSON.stringify(path)}: expected an absolute path like "/contexts" without a query string`,
    );
  }
  return `${API_ROOT[api]}${path}${queryString(query)}`;
};

/** A segment that names a route (`contexts`, `env-vars`, `update-settings`), not an item. */
const ROUTE_WORD = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/;

/**
 * The route of a path with ids replaced (`/api/v3/contexts/{id}/env-vars`), for "one
 * deprecation warning per route" (spec: api-v3.md Versioning).
 *
 * Decision: without a route table the client cannot know which segments are ids, so UUIDs,
 * numbers and any segment that is not a lower-case route word (an env var name like
 * `NPM_TOKEN`, a V2 slug with `%2F`) count as ids. A lower-case env var name would make its
 * own "route" and so its own warning: at worst a repeated warning, never a missing one.
 */
export const routeTemplate = (pathWithoutQuery: string): string =>
  pathWithoutQuery
    .split("/")
    .map((seg, i) => {
      if (i === 0 || seg === "") return seg;
      if (isUuid(seg) || /^\d+$/.test(seg)) return "{id}";
      return ROUTE_WORD.test(seg) ? seg : "{id}";
    })
    .join("/");

/**
 * The key a route's rate-limit budget is kept under (src/api/route-scheduler.ts): the method
 * and the route of the path (`POST /api/v3/contexts/{id}/env-vars/{id}`). A plan's call
 * route with placeholders (`/contexts/{context_id}/env-vars/{name}`) gives the same key as
 * the path it becomes, since a placeholder is not a route word.
 */
export const routeKey = (method: string, api: ApiGeneration, path: string): string =>
  `${method} ${routeTemplate(`${API_ROOT[api]}${path}`)}`;
