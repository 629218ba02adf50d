/** Contexts. spec: api-v3.md "Contexts", "Context". */
import { badRequest, notFound, unknownReference } from "../errors.js";
import type { Family } from "../family.js";
import {
  allowFilters,
  body,
  type Ctx,
  created,
  enveloped,
  noContent,
  ok,
  type Route,
  uuidFilter,
} from "../http.js";
import { hashUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { enveloped as envelopedSchema, nonEmpty, refWithRel, seedId } from "../schemas.js";
import { findById, nextId, removeWith, SEED_TIME, type State } from "../state.js";
import { s } from "../validate.js";
import type { EnvRow } from "./env-vars.js";
import { findOrg, type OrgRow, orgOr404 } from "./orgs.js";
import { embedRestriction, type RestrictionRow, restrictionId } from "./restrictions.js";

export interface ContextRow {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly created_at: string;
  readonly env: EnvRow[];
  readonly restrictions: RestrictionRow[];
}

declare module "../state.js" {
  interface State {
    readonly contexts: ContextRow[];
  }
}

export interface SeedContext {
  readonly id?: string;
  readonly name: string;
  readonly created_at?: string;
}

declare module "./orgs.js" {
  interface SeedOrg {
    readonly contexts?: readonly SeedContext[];
  }
}

declare module "../seed.js" {
  interface SeedToken {
    /**
     * Whether the token may write contexts (default true). `false` models a token whose user
     * may change projects and the rest but not the org's contexts (issue 29: a restricted
     * token): every write under `/api/v3/contexts`, `/api/v3/context-restrictions` and
     * `/api/v2/context` is refused with 403 (spec: api-v3.md Authentication rule 5).
     */
    readonly write_contexts?: boolean;
  }
}

export const contextCreateSchema = envelopedSchema(
  s.obj({ name: nonEmpty() }, ["name"]),
  s.obj({ org: refWithRel }, ["org"]),
);

export const findContext = (st: State, id: string): ContextRow | undefined =>
  findById(st, st.contexts, id);

/** spec: Contexts: `include` accepts only `restrictions`; anything else is 400. */
const wantsRestrictions = (ctx: Ctx): boolean => {
  const include = ctx.query.get("include");
  if (include === null) return false;
  if (include !== "restrictions")
    throw badRequest("invalid_include", "include accepts only restrictions");
  return true;
};

/**
 * spec: Context: `context-restrictions` embeds every restriction type on a single read and
 * only group restrictions on a list.
 */
const renderContext = (st: State, c: ContextRow, embed: "none" | "groups" | "all") => {
  const rs =
    embed === "groups"
      ? c.restrictions.filter((r) => r.restriction_type === "group")
      : c.restrictions;
  return {
    id: c.id,
    attributes: { name: c.name, created_at: c.created_at },
    references: {
      org: { id: c.orgId },
      ...(embed !== "none"
        ? { "context-restrictions": rs.map((r) => embedRestriction(st, c, r)) }
        : {}),
    },
  };
};

export const contextOr404 = (ctx: Ctx, id: string): ContextRow => {
  const c = findContext(ctx.state, id);
  if (!c) throw notFound("context", id);
  return c;
};

export const contextRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/contexts",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[org_id]", "filter[name]"]);
      // Decision: an unknown org is 404 (spec lists 200/400; "Errors" rule 5 covers it).
      const org = orgOr404(ctx, uuidFilter(ctx, "filter[org_id]", true)!);
      const embed = wantsRestrictions(ctx) ? "groups" : "none";
      // spec: filter[name] is a case-insensitive substring, applied before paging.
      const needle = ctx.query.get("filter[name]")?.toLowerCase();
      const hits = ctx.state.contexts
        .filter((c) => c.orgId === org.id)
        .filter((c) => needle === undefined || c.name.toLowerCase().includes(needle));
      return ok(paginate(ctx, hits, (c) => renderContext(ctx.state, c, embed)));
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/contexts",
    body: contextCreateSchema,
    handler: (ctx) => {
      const { attributes, references } = enveloped(body(ctx));
      const org = findOrg(ctx.state, references.org!.id);
      if (!org) throw unknownReference("org", references.org!.id);
      const name = attributes.name as string;
      // Decision: context names are unique within an org (exact match); a second is 400.
      if (ctx.state.contexts.some((c) => c.orgId === org.id && c.name === name)) {
        throw badRequest(
          "already_exists",
          `a context named ${name} already exists`,
          "/data/attributes/name",
        );
      }
      const now = ctx.nowIso();
      const row: ContextRow = {
        id: nextId(ctx.state, "context"),
        orgId: org.id,
        name,
        created_at: now,
        env: [],
        // Decision: like the service, a new context is open to every org member: a group
        // restriction whose match_pattern is the org id (spec: Context restriction). Seeds
        // switch it off per org with `default_context_restriction: false`.
        restrictions: org.defaultContextRestriction
          ? [
              {
                id: restrictionId("group", org.id),
                restriction_type: "group",
                match_pattern: org.id,
                created_at: now,
              },
            ]
          : [],
      };
      ctx.state.contexts.push(row);
      return created({ data: renderContext(ctx.state, row, "none") });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/contexts/:id",
    handler: (ctx) => {
      const c = contextOr404(ctx, ctx.params.id!);
      return ok({ data: renderContext(ctx.state, c, wantsRestrictions(ctx) ? "all" : "none") });
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v3/contexts/:id",
    handler: (ctx) => {
      const c = contextOr404(ctx, ctx.params.id!);
      // What names the context goes with it: each family that holds rows naming contexts
      // declares it (`onRemove.context`, given the id and the org's id), and runs while the
      // row is still there (a family that names contexts by name looks the name up). Its own
      // env and restrictions are in its row.
      removeWith(ctx.state, "context", c.id, c.orgId);
      ctx.state.contexts.splice(ctx.state.contexts.indexOf(c), 1);
      return noContent();
    },
  },
];

export const contexts: Family = {
  name: "contexts",
  routes: contextRoutes,
  tables: ["contexts"],
  toFront: ["contexts"],
  tokenRights: [
    {
      flag: "write_contexts",
      writes: /^\/api\/(?:v3\/contexts?(?:-restrictions)?|v2\/context)(?:[/?]|$)/,
      detail: "this token cannot write contexts",
    },
  ],
  seed: [
    {
      in: "org",
      key: "contexts",
      // Pass 2: a context's restrictions may name a project of any org by slug.
      pass: 2,
      level: "context",
      props: { id: seedId, name: nonEmpty(), created_at: s.str() },
      required: ["name"],
      loadItem(l, parent, item, cp, ci) {
        const org = parent.row as OrgRow;
        const sc = item as unknown as SeedContext;
        const row: ContextRow = {
          id: l.claim(sc.id ?? hashUuid("context", org.id, sc.name, String(ci)), `${cp}/id`),
          orgId: org.id,
          name: sc.name,
          created_at: sc.created_at ?? SEED_TIME,
          env: [],
          restrictions: [],
        };
        l.st.contexts.push(row);
        return row;
      },
      dumpItems: (st, row) =>
        st.contexts
          .filter((c) => c.orgId === (row as OrgRow).id)
          .map((c) => ({ row: c, out: { id: c.id, name: c.name, created_at: c.created_at } })),
    },
  ],
};
