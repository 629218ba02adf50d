/**
 * Masked project env vars on V2 (spec: api-v2-v1.md "Endpoints (V2)"). Errors on V2 are
 * `{ message }` (rendered by the server). The other V2 families have their own modules
 * (groups.ts, checkout-keys.ts, otel-exporters.ts, schedules.ts).
 */
import { notFound } from "../errors.js";
import { ok, type Route } from "../http.js";

export const v2Routes: readonly Route[] = [
  {
    // spec: the project slug's `/` may be URL-escaped: `*slug` takes one or more segments.
    method: "GET",
    pattern: "/api/v2/project/*slug/envvar",
    handler: (ctx) => {
      const slug = ctx.params.slug!;
      const p = ctx.state.projects.find((x) => x.slug.toLowerCase() === slug.toLowerCase());
      if (!p) throw notFound("project", slug);
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
  },
];
