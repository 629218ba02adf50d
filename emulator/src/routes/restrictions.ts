/** Context restrictions. spec: api-v3.md "Context restrictions", "Context restriction". */
import { badRequest, notFound, unknownReference } from "../errors.js";
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
import { isUuid } from "../ids.js";
import { paginate } from "../paging.js";
import { restrictionCreateSchema } from "../schemas.js";
import {
  type ContextRow,
  findContext,
  findOrg,
  findProject,
  groupName,
  type RestrictionRow,
  type RestrictionType,
  restrictionId,
  type State,
} from "../store.js";

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
