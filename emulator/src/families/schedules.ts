/** Legacy V2 schedules (spec: api-v2-v1.md "Schedule"): seeded and listed, never written. */
import type { Family } from "../family.js";
import { ok, type Route } from "../http.js";
import { hashUuid } from "../ids.js";
import { paginateV2 } from "../paging.js";
import { nonEmpty, seedId } from "../schemas.js";
import type { SeedJson } from "../seed.js";
import { removeWhere, SEED_TIME } from "../state.js";
import { s } from "../validate.js";
import { type ProjectRow, projectBySlugOr404 } from "./projects.js";

/** A legacy V2 schedule (spec: api-v2-v1.md "Schedule"); seeded, listed, never written. */
export interface ScheduleRow {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly description: string;
  readonly timetable: Record<string, unknown>;
  readonly parameters: Record<string, unknown>;
  readonly actor: Record<string, unknown>;
  readonly created_at: string;
}

declare module "../state.js" {
  interface State {
    readonly schedules: ScheduleRow[];
  }
}

/** A legacy V2 schedule (spec: api-v2-v1.md "Schedule"); listed only (GET). */
export interface SeedSchedule {
  readonly id?: string;
  readonly name: string;
  readonly description?: string;
  readonly timetable?: SeedJson;
  readonly parameters?: SeedJson;
  readonly actor?: SeedJson;
}

declare module "./projects.js" {
  interface SeedProject {
    readonly schedules?: readonly SeedSchedule[];
  }
}

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

export const schedules: Family = {
  name: "schedules",
  routes: scheduleRoutes,
  tables: ["schedules"],
  seed: [
    {
      in: "project",
      key: "schedules",
      schema: s.arr(
        s.obj(
          {
            id: seedId,
            name: nonEmpty(),
            description: s.str(),
            timetable: s.jsonObject(),
            parameters: s.jsonObject(),
            actor: s.jsonObject(),
          },
          ["name"],
        ),
      ),
      load(l, parent, value, pointer) {
        const id = (parent.row as ProjectRow).id;
        ((value ?? []) as readonly SeedSchedule[]).forEach((ss, si) => {
          l.st.schedules.push({
            id: l.claim(ss.id ?? hashUuid("schedule", id, String(si)), `${pointer}/${si}/id`),
            projectId: id,
            name: ss.name,
            description: ss.description ?? "",
            timetable: {
              ...(ss.timetable ?? { per_hour: 1, hours_of_day: [0], days_of_week: ["MON"] }),
            },
            parameters: { ...(ss.parameters ?? {}) },
            actor: { ...(ss.actor ?? { login: "system", name: "system" }) },
            created_at: SEED_TIME,
          });
        });
      },
      dump: (st, row) =>
        st.schedules
          .filter((x) => x.projectId === (row as ProjectRow).id)
          .map((x) => ({
            id: x.id,
            name: x.name,
            description: x.description,
            timetable: structuredClone(x.timetable) as SeedJson,
            parameters: structuredClone(x.parameters) as SeedJson,
            actor: structuredClone(x.actor) as SeedJson,
          })),
    },
  ],
  onRemove: {
    project: (st, id) => removeWhere(st.schedules, (x) => x.projectId === id),
  },
};
