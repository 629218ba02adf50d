/** Context restrictions. spec: api-v3.md "Context restrictions", "Context restriction". */
import { badRequest, notFound, unknownReference } from "../errors.js";
import type { Family } from "../family.js";
import {
  allowFilters,
  body,
  type Ctx,
  created,
  enveloped,
  mapData,
  noContent,
  ok,
  type Route,
  uuidFilter,
  withoutLastPage,
} from "../http.js";
import { hashUuid, isUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { enveloped as envelopedSchema, nonEmpty, refWithRel, seedId } from "../schemas.js";
import { RESTRICTION_TYPES } from "../spec-names.js";
import { removeWhere, type State } from "../state.js";
import { s } from "../validate.js";
import { type ContextRow, findContext } from "./contexts.js";
import { groupName } from "./groups.js";
import { findOrg, seedOrgOf } from "./orgs.js";
import { findProject, fullSlug } from "./projects.js";

export type RestrictionType = "project" | "expression" | "group";

export interface RestrictionRow {
  readonly id: string;
  readonly restriction_type: RestrictionType;
  readonly match_pattern: string;
  readonly created_at?: string;
}

export interface SeedRestriction {
  readonly id?: string;
  /** The spec's three, or (a seed only) a type the service added later. */
  readonly restriction_type: RestrictionType | (string & {});
  /**
   * A project id (or, in a seed only, a project slug), an expression, or a group id (in a
   * seed also a group name; the org id means every member of the org).
   */
  readonly match_pattern: string;
  readonly created_at?: string;
}

declare module "./contexts.js" {
  interface SeedContext {
    readonly restrictions?: readonly SeedRestriction[];
  }
}

/**
 * spec: Context restriction: "Restriction ids are unique only within a context"; DELETE: "for
 * a group restriction that is the group id". Decision: a project or expression restriction's
 * id is a hash of its type and pattern, so the same restriction in two contexts has the same
 * id (as the spec allows), and a client that assumes global uniqueness finds out in tests.
 */
export const restrictionId = (type: RestrictionType, pattern: string): string =>
  type === "group" ? pattern : hashUuid("restriction", type, pattern);

const restrictionAttrProps = {
  restriction_type: s.str({ oneOf: RESTRICTION_TYPES }),
  match_pattern: nonEmpty(),
};
export const restrictionCreateSchema = envelopedSchema(
  s.obj(restrictionAttrProps, ["restriction_type", "match_pattern"]),
  s.obj({ context: refWithRel }, ["context"]),
);

/** The subject's name: a project's or a group's; an expression has no subject. */
const subjectName = (st: State, c: ContextRow, r: RestrictionRow): string | undefined => {
  if (r.restriction_type === "project") return findProject(st, r.match_pattern)?.name;
  if (r.restriction_type === "group") return groupName(findOrg(st, c.orgId), r.match_pattern);
  return undefined;
};

/**
 * spec: Context restriction: references `context`; a project restriction a `project`
 * reference, a group restriction a `group` reference (subject name included in list reads,
 * id only on create); an expression restriction has no subject reference.
 */
export const renderRestriction = (
  st: State,
  c: ContextRow,
  r: RestrictionRow,
  withNames: boolean,
) => {
  const name = withNames ? subjectName(st, c, r) : undefined;
  const subject = { id: r.match_pattern, ...(name !== undefined ? { attributes: { name } } : {}) };
  return {
    id: r.id,
    attributes: {
      restriction_type: r.restriction_type,
      match_pattern: r.match_pattern,
      ...(r.created_at !== undefined ? { created_at: r.created_at } : {}),
    },
    references: {
      context: { id: c.id },
      ...(r.restriction_type === "project" ? { project: subject } : {}),
      ...(r.restriction_type === "group" ? { group: subject } : {}),
    },
  };
};

/**
 * One entry of a context's `references["context-restrictions"]` (spec: Context: embedded
 * with `include=restrictions`). Decision: a reference carries `id` and `attributes` only
 * (spec: Envelopes), so the subject's name is the `name` attribute.
 */
export const embedRestriction = (st: State, c: ContextRow, r: RestrictionRow) => {
  const name = subjectName(st, c, r);
  return {
    id: r.id,
    attributes: {
      restriction_type: r.restriction_type,
      match_pattern: r.match_pattern,
      ...(r.created_at !== undefined ? { created_at: r.created_at } : {}),
      ...(name !== undefined ? { name } : {}),
    },
  };
};

const contextOr404 = (ctx: Ctx, id: string): ContextRow => {
  const c = findContext(ctx.state, id);
  if (!c) throw notFound("context", id);
  return c;
};

/**
 * Decision: a project pattern must be a project of the context's org, a group pattern a
 * group of that org or the org id itself (all members); otherwise 400 (the body is wrong,
 * the addressed resource exists). Creating a restriction the context already has is 400
 * `already_exists`.
 */
// Decision: an expression pattern is any non-empty string (the service's expression
// language is not emulated).
const checkPattern = (st: State, c: ContextRow, type: RestrictionType, pattern: string): void => {
  const pointer = "/data/attributes/match_pattern";
  if (type === "project") {
    const p = isUuid(pattern) ? findProject(st, pattern) : undefined;
    if (!p || p.orgId !== c.orgId)
      throw badRequest(
        "invalid_request",
        `${pointer}: not a project id of the context's org`,
        pointer,
      );
  }
  if (type === "group") {
    const org = findOrg(st, c.orgId);
    if (!org || (pattern !== org.id && !org.groups.some((g) => g.id === pattern)))
      throw badRequest(
        "invalid_request",
        `${pointer}: not a group id of the context's org (or the org id)`,
        pointer,
      );
  }
};

export const restrictionRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/context-restrictions",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[context_id]"]);
      const c = contextOr404(ctx, uuidFilter(ctx, "filter[context_id]", true)!);
      return ok(paginate(ctx, c.restrictions, (r) => renderRestriction(ctx.state, c, r, true)));
    },
    // docs/spec-notes.md "Reading the real service": the list is not paged (no `page`), and
    // each restriction's subject name is an attribute, `name`.
    sparse: (body) =>
      withoutLastPage(
        mapData(body, (r) => {
          const refs = r.references as Record<string, { attributes?: { name?: unknown } }>;
          const name = (refs.project ?? refs.group)?.attributes?.name;
          return name === undefined
            ? r
            : { ...r, attributes: { ...(r.attributes as object), name } };
        }),
      ),
  },
  {
    method: "POST",
    pattern: "/api/v3/context-restrictions",
    body: restrictionCreateSchema,
    handler: (ctx) => {
      const { attributes, references } = enveloped(body(ctx));
      const c = findContext(ctx.state, references.context!.id);
      if (!c) throw unknownReference("context", references.context!.id);
      const type = attributes.restriction_type as RestrictionType;
      const pattern = attributes.match_pattern as string;
      checkPattern(ctx.state, c, type, pattern);
      const id = restrictionId(type, pattern);
      if (c.restrictions.some((r) => r.id === id))
        throw badRequest("already_exists", `the context already has this ${type} restriction`);
      const row: RestrictionRow = {
        id,
        restriction_type: type,
        match_pattern: pattern,
        created_at: ctx.nowIso(),
      };
      c.restrictions.push(row);
      return created({ data: renderRestriction(ctx.state, c, row, false) });
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v3/context-restrictions/:id",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[context_id]"]);
      // spec: DELETE needs filter[context_id]: restriction ids are unique only within a context.
      const c = contextOr404(ctx, uuidFilter(ctx, "filter[context_id]", true)!);
      const i = c.restrictions.findIndex((r) => r.id === ctx.params.id);
      if (i < 0) throw notFound("restriction", ctx.params.id);
      c.restrictions.splice(i, 1);
      return noContent();
    },
  },
];

export const restrictions: Family = {
  name: "restrictions",
  routes: restrictionRoutes,
  seed: [
    {
      in: "context",
      key: "restrictions",
      // Decision: a seed may hold a restriction of a type the spec does not name (the
      // service may add types: docs/spec-notes.md "Reading the real service"), so clients
      // can be tested against one; the API still creates only the spec's types.
      schema: s.arr(
        s.obj(
          {
            id: seedId,
            restriction_type: nonEmpty(),
            match_pattern: nonEmpty(),
            created_at: s.str(),
          },
          ["restriction_type", "match_pattern"],
        ),
      ),
      load(l, parent, value, pointer) {
        const c = parent.row as ContextRow;
        const { row: org, item: so } = seedOrgOf(parent);
        ((value ?? []) as readonly SeedRestriction[]).forEach((sr, ri) => {
          const rp = `${pointer}/${ri}`;
          let pattern = sr.match_pattern;
          if (sr.restriction_type === "project" && !isUuid(pattern)) {
            const slug = fullSlug(so, pattern);
            const proj = l.st.projects.find((p) => p.slug === slug);
            if (!proj) l.fail(`${rp}/match_pattern`, `no project ${slug} in the seed`);
            pattern = proj!.id;
          }
          if (sr.restriction_type === "group" && !isUuid(pattern)) {
            const group = org.groups.find((g) => g.name === pattern);
            if (!group && pattern !== org.slug)
              l.fail(`${rp}/match_pattern`, `no group ${pattern} in org ${org.slug}`);
            pattern = group ? group.id : org.id;
          }
          const type = sr.restriction_type as RestrictionType;
          const id = sr.id ?? restrictionId(type, pattern);
          if (c.restrictions.some((r) => r.id === id))
            l.fail(`${rp}`, `duplicate restriction ${id} in context`);
          c.restrictions.push({
            id,
            restriction_type: type,
            match_pattern: pattern,
            ...(sr.created_at !== undefined ? { created_at: sr.created_at } : {}),
          });
        });
      },
      dump: (_st, row) => (row as ContextRow).restrictions.map((r) => ({ ...r })),
    },
  ],
  onRemove: {
    // A deleted project's restrictions go with it (the V2 project delete).
    project: (st, id) => {
      for (const c of st.contexts) {
        removeWhere(
          c.restrictions,
          (r) => r.restriction_type === "project" && r.match_pattern === id,
        );
      }
    },
    // A deleted group's restrictions in its org's contexts go with it (they would name nothing).
    group: (st, id, orgId) => {
      for (const c of st.contexts) {
        if (c.orgId !== orgId) continue;
        removeWhere(
          c.restrictions,
          (r) => r.restriction_type === "group" && r.match_pattern === id,
        );
      }
    },
  },
};
