/** V2 reads of entities other families own: a project's env vars, a context. */
import type { Family } from "../family.js";
import { ok, type Route, snakeMembers } from "../http.js";
import { contextOr404 } from "./contexts.js";
import { projectBySlugOr404 } from "./projects.js";

export const v2Routes: readonly Route[] = [
  {
    // spec: the project slug's `/` may be URL-escaped: `*slug` takes one or more segments.
    method: "GET",
    pattern: "/api/v2/project/*slug/envvar",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      // spec: value masked: four `x` characters plus the last four characters.
      // Decision: the list is one page (`next_page_token: null`), sorted by name.
      const items = [...p.env]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((e) => ({
          name: e.name,
          value: `xxxx${e.value.slice(-4)}`,
          "created-at": e.created_at,
        }));
      return ok({ items, next_page_token: null });
    },
    sparse: snakeMembers,
  },
  {
    // spec: api-v2-v1.md Endpoints (V2): GET /context/{context_id} answers the context,
    // `id`, `name`, `created_at` (Resources: Context). The org lock (issue 29) judges a
    // claim's age by this service-side time.
    method: "GET",
    pattern: "/api/v2/context/:id",
    handler: (ctx) => {
      const c = contextOr404(ctx, ctx.params.id!);
      return ok({ id: c.id, name: c.name, created_at: c.created_at });
    },
  },
];

export const v2: Family = { name: "v2", routes: v2Routes };
