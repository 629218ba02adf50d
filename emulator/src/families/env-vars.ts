/**
 * Context and project environment variables. spec: api-v3.md "Contexts" (env-vars routes),
 * "Context environment variable", "Projects" (environment-variables routes). Values are
 * secrets: no read returns them, only the last four characters (`truncated_value`).
 */
import { badRequest, notFound } from "../errors.js";
import type { Family, SeedLoader } from "../family.js";
import {
  allowFilters,
  body,
  type Ctx,
  created,
  noContent,
  ok,
  type Route,
  requireFilter,
  withoutLastPage,
} from "../http.js";
import { paginate } from "../paging.js";
import { nonEmpty } from "../schemas.js";
import { SEED_TIME } from "../state.js";
import { type Schema, s } from "../validate.js";
import { type ContextRow, contextOr404, type SeedContext } from "./contexts.js";
import { type ProjectRow, projectOr404 } from "./projects.js";

export interface EnvRow {
  readonly name: string;
  value: string;
  readonly created_at: string;
  updated_at: string;
}

declare module "./contexts.js" {
  interface SeedContext {
    /** Variable name → value (values are secrets; only `GET /__admin/state` returns them). */
    readonly env?: Readonly<Record<string, string>>;
  }
}

declare module "./projects.js" {
  interface SeedProject {
    readonly env?: Readonly<Record<string, string>>;
  }
}

/** Decision: a variable name is a shell identifier (letters, digits, `_`, not a digit first). */
export const checkEnvName = (name: string, pointer: string): void => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw badRequest("invalid_request", `${pointer}: not a valid variable name`, pointer);
};

/** Used by `env-vars/set` and project env var create: flat `{ name, value }`. */
export const envVarSetSchema: Schema = s.obj({ name: nonEmpty(), value: s.str() }, [
  "name",
  "value",
]);

/** A seeded env map's rows, each name checked, created (and updated) at `at`. */
const seedEnv = (l: SeedLoader, value: unknown, pointer: string, at: string): EnvRow[] =>
  Object.entries((value ?? {}) as Readonly<Record<string, string>>).map(([name, v]) => {
    l.asSeed(() => checkEnvName(name, `${pointer}/${name}`));
    return { name, value: v, created_at: at, updated_at: at };
  });

const dumpEnv = (rows: readonly EnvRow[]) => Object.fromEntries(rows.map((e) => [e.name, e.value]));

/** Decision: env var lists are ordered by name. */
const sorted = (rows: readonly EnvRow[]): EnvRow[] =>
  [...rows].sort((a, b) => a.name.localeCompare(b.name));

const truncated = (value: string): string => value.slice(-4);

/** `{ name, value }`, with the value non-empty. Decision: an empty value is 400. */
const nameAndValue = (ctx: Ctx): { name: string; value: string } => {
  const b = body(ctx);
  const name = b.name as string;
  const value = b.value as string;
  checkEnvName(name, "/name");
  if (value === "") throw badRequest("invalid_request", "/value: must not be empty", "/value");
  return { name, value };
};

export const envVarRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/contexts/:id/env-vars",
    handler: (ctx) => {
      const c = contextOr404(ctx, ctx.params.id!);
      return ok(
        paginate(ctx, sorted(c.env), (e) => ({
          attributes: {
            name: e.name,
            truncated_value: truncated(e.value),
            created_at: e.created_at,
            updated_at: e.updated_at,
          },
          references: { context: { id: c.id } },
        })),
      );
    },
    // docs/spec-notes.md "Reading the real service": a context's env vars come without
    // `page` (the last page's).
    sparse: withoutLastPage,
  },
  {
    method: "DELETE",
    pattern: "/api/v3/contexts/:id/env-vars",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[name]"]);
      const c = contextOr404(ctx, ctx.params.id!);
      const name = requireFilter(ctx, "filter[name]");
      const i = c.env.findIndex((e) => e.name === name);
      if (i < 0) throw notFound("environment variable", name);
      c.env.splice(i, 1);
      return noContent();
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/contexts/:id/env-vars/set",
    body: envVarSetSchema,
    handler: (ctx) => {
      const c = contextOr404(ctx, ctx.params.id!);
      const { name, value } = nameAndValue(ctx);
      const now = ctx.nowIso();
      let row = c.env.find((e) => e.name === name);
      if (row) {
        row.value = value;
        row.updated_at = now;
      } else {
        row = { name, value, created_at: now, updated_at: now };
        c.env.push(row);
      }
      // spec: "always 200 with the stored variable whether or not it existed"; the set
      // operation returns the stored variable without truncated_value.
      return ok({
        data: {
          attributes: { name: row.name, created_at: row.created_at, updated_at: row.updated_at },
          references: { context: { id: c.id } },
        },
      });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/projects/:id/environment-variables",
    handler: (ctx) => {
      const p = projectOr404(ctx, ctx.params.id!);
      return ok(
        paginate(ctx, sorted(p.env), (e) => ({
          attributes: {
            name: e.name,
            truncated_value: truncated(e.value),
            created_at: e.created_at,
          },
          references: { project: { id: p.id } },
        })),
      );
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/projects/:id/environment-variables",
    body: envVarSetSchema,
    handler: (ctx) => {
      const p = projectOr404(ctx, ctx.params.id!);
      const { name, value } = nameAndValue(ctx);
      // spec: api-v3.md Projects: `POST /projects/:id/environment-variables {name, value}`
      // answers 201 or 404, nothing for "the name exists"; the public docs describe it as
      // setting the variable. So it is an upsert: an existing name takes the new value.
      // The refusal some services may answer instead is a fault a test switches on.
      const existing = p.env.find((e) => e.name === name);
      const now = ctx.nowIso();
      if (existing) {
        if (ctx.faults?.refuse_existing_project_env_var === true) {
          throw badRequest(
            "already_exists",
            `environment variable ${name} already exists`,
            "/name",
          );
        }
        existing.value = value;
        existing.updated_at = now;
      } else p.env.push({ name, value, created_at: now, updated_at: now });
      const row = existing ?? { created_at: now };
      return created({
        data: {
          attributes: { name, truncated_value: truncated(value), created_at: row.created_at },
          references: { project: { id: p.id } },
        },
      });
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v3/projects/:id/environment-variables/:name",
    handler: (ctx) => {
      const p = projectOr404(ctx, ctx.params.id!);
      const i = p.env.findIndex((e) => e.name === ctx.params.name);
      if (i < 0) throw notFound("environment variable", ctx.params.name);
      p.env.splice(i, 1);
      return noContent();
    },
  },
];

export const envVars: Family = {
  name: "env-vars",
  routes: envVarRoutes,
  seed: [
    {
      in: "context",
      key: "env",
      schema: s.record(s.str({ nonEmpty: true })),
      load(l, parent, value, pointer) {
        const at = (parent.item as unknown as SeedContext).created_at ?? SEED_TIME;
        (parent.row as ContextRow).env.push(...seedEnv(l, value, pointer, at));
      },
      dump: (_st, row) => dumpEnv((row as ContextRow).env),
    },
    {
      in: "project",
      key: "env",
      schema: s.record(s.str({ nonEmpty: true })),
      load(l, parent, value, pointer) {
        (parent.row as ProjectRow).env.push(...seedEnv(l, value, pointer, SEED_TIME));
      },
      dump: (_st, row) => dumpEnv((row as ProjectRow).env),
    },
  ],
};
