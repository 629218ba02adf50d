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

const decode = (seg: string): string | undefined => {
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
};

const matchSegments = (
  pattern: readonly string[],
  path: readonly string[],
): Record<string, string> | undefined => {
  const params: Record<string, string> = {};
  const star = pattern.findIndex((p) => p.startsWith("*"));
  if (star < 0 && pattern.length !== path.length) return undefined;
  if (star >= 0 && path.length < pattern.length) return undefined;
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
  const compiled = routes.map((route) => ({ route, segs: route.pattern.split("/").slice(1) }));
  return {
    match(method, rawPath) {
      const segs = rawPath.split("/").slice(1);
      for (const c of compiled) {
        if (c.route.method !== method) continue;
        const params = matchSegments(c.segs, segs);
        if (params) return { route: c.route, params };
      }
      return undefined;
    },
  };
};
