import { ok, type Route } from "../http.js";
import { paginateV2 } from "../paging.js";
import { projectBySlugOr404 } from "./projects.js";

export const scheduleRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/project/*slug/schedule",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
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
