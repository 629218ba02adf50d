/**
 * Legacy V2 schedules: `GET /project/{project-slug}/schedule` (spec: api-v2-v1.md Endpoints (V2)
 * lists it "by method and path only": the request and response shapes are not shown).
 *
 * Decision: the list follows V2's convention for paginated lists (`{ items,
 * next_page_token }`, `page-token`; api-v2-v1.md "Resources and their fields") with the
 * spec's Schedule fields (`id`, `timetable`, `updated-at`, `name`, `created-at`,
 * `project-slug`, `parameters`, `actor`, `description`). Seeded only: Waybill never writes
 * them, it lists them in drift.
 */
import { notFound } from "../errors.js";
import { ok, type Route } from "../http.js";
import { paginateV2 } from "../paging.js";

export const scheduleRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/project/*slug/schedule",
    handler: (ctx) => {
      const slug = ctx.params.slug ?? "";
      const p = ctx.state.projects.find((x) => x.slug.toLowerCase() === slug.toLowerCase());
      if (!p) throw notFound("project", slug);
      const rows = ctx.state.schedules.filter((s) => s.projectId === p.id);
      return ok(
        paginateV2(ctx, rows, (s) => ({
          id: s.id,
          name: s.name,
          description: s.description,
          timetable: s.timetable,
          parameters: s.parameters,
          actor: s.actor,
          "project-slug": p.slug,
          "created-at": s.created_at,
          "updated-at": s.created_at,
        })),
      );
    },
  },
];
