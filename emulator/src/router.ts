/**
 * A tiny router: `:name` matches one path segment, `*name` one or more (joined with `/`).
 * Segments are percent-decoded after splitting, so `gh%2Facme%2Fapi` is one segment whose
 * value is `gh/acme/api` (spec: api-v2-v1.md: the slug's `/` may be URL-escaped).
 */
import type { Route } from "./http.js";

export interface Match {
  readonly route: Route;
  readonly params: Record<string, string>;
}

/** A segment without `%` decodes to itself: skip decodeURIComponent (it runs per request). */
const decode = (seg: string): string | undefined => {
  if (!seg.includes("%")) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
};

interface Compiled {
  readonly route: Route;
  readonly segs: readonly string[];
  /** Index of the `*name` segment, or -1. */
  readonly star: number;
}

const matchSegments = (
  c: Compiled,
  path: readonly string[],
): Record<string, string> | undefined => {
  const pattern = c.segs;
  const star = c.star;
  if (star < 0 && pattern.length !== path.length) return undefined;
  if (star >= 0 && path.length < pattern.length) return undefined;
  const params: Record<string, string> = {};
  const tail = pattern.length - star - 1;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (i === star) {
      const parts = path.slice(i, path.length - tail).map(decode);
      if (parts.some((x) => x === undefined)) return undefined;
      params[p.slice(1)] = parts.join("/");
      continue;
    }
    const seg = star >= 0 && i > star ? path[path.length - (pattern.length - i)]! : path[i]!;
    const value = decode(seg);
    if (value === undefined) return undefined;
    if (p.startsWith(":")) {
      if (value === "") return undefined;
      params[p.slice(1)] = value;
    } else if (p !== value) return undefined;
  }
  return params;
};

export interface Router {
  match(method: string, rawPath: string): Match | undefined;
}

export const createRouter = (routes: readonly Route[]): Router => {
  // Grouped by method, in table order: a request only tries the routes of its method.
  const byMethod = new Map<string, Compiled[]>();
  for (const route of routes) {
    const segs = route.pattern.split("/").slice(1);
    const list = byMethod.get(route.method) ?? [];
    list.push({ route, segs, star: segs.findIndex((p) => p.startsWith("*")) });
    byMethod.set(route.method, list);
  }
  return {
    match(method, rawPath) {
      const candidates = byMethod.get(method);
      if (!candidates) return undefined;
      const segs = rawPath.split("/").slice(1);
      for (const c of candidates) {
        const params = matchSegments(c, segs);
        if (params) return { route: c.route, params };
      }
      return undefined;
    },
  };
};
