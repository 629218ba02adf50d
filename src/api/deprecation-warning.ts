import type { ResolvedOptions } from "./client-options.js";
import { type RawHeaders, readDeprecation } from "./headers.js";
import { routeTemplate } from "./request-target.js";
import type { Method } from "./retry-policy.js";

/** The deprecation / sunset notice of a response, given once per route (`onWarning`). */
export const createDeprecationWarner = (
  o: Pick<ResolvedOptions, "scrub" | "onWarning">,
): ((method: Method, fullPath: string, headers: RawHeaders) => void) => {
  const warnedRoutes = new Set<string>();
  const warnIfDeprecated = (method: Method, fullPath: string, headers: RawHeaders): void => {
    const notice = readDeprecation(headers);
    if (notice === undefined) return;
    const route = `${method} ${routeTemplate(fullPath.split("?")[0] ?? fullPath)}`;
    if (warnedRoutes.has(route)) return;
    warnedRoutes.add(route);
    const parts = [
      notice.sunset ? `it will be removed on ${o.scrub(notice.sunset)}` : undefined,
      notice.link ? `see ${o.scrub(notice.link)}` : undefined,
    ].filter((p): p is string => p !== undefined);
    o.onWarning(
      `the API route ${route} is deprecated${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`,
    );
  };
  return warnIfDeprecated;
};
