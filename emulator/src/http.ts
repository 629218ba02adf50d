/**
 * What a route handler sees and returns. Handlers are synchronous functions of the state and
 * the request; the server (server.ts) does the I/O, auth, faults, ETags and rendering.
 */
import { badRequest, fromIssue } from "./errors.js";
import { isUuid } from "./ids.js";
import type { FaultOptions } from "./seed.js";
import type { State, TokenRow } from "./state.js";
import { check, isPlainObject, type Schema, s } from "./validate.js";

export type ApiName = "v3" | "v2";

/**
 * The shapes the emulator answers in (docs/emulator.md "Shapes"): `sparse` (the default) is
 * the sparest the real service is known to send (docs/spec-notes.md "Reading the real
 * service": no `page` where the service sends none, "" cursors on last pages, the org
 * look-up's `{ id }`, projects without a slug, V2 snake case, `{ message }` 401s, ...);
 * `full` is every member the spec names. Request checks are the same in both.
 */
export type Shapes = "sparse" | "full";

export interface Ctx {
  readonly state: State;
  readonly api: ApiName;
  readonly method: string;
  /** Path without the query string, decoded per segment by the router. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Parsed JSON body, or undefined when the request had none. */
  readonly body: unknown;
  /** ISO timestamp of "now" (injected clock). */
  readonly nowIso: () => string;
  /** Per-server random secret that signs cursors, so clients cannot forge them. */
  readonly cursorSecret: string;
  /** The faults in force (a route reads the switchable behaviours, e.g. env var refusal). */
  readonly faults?: FaultOptions;
  /** The caller's token; absent for another client's request (a script's `after`). */
  readonly token?: TokenRow;
  /** The shapes answers take (`Shapes`); `full` when absent. */
  readonly shapes?: Shapes;
}

export interface Reply {
  readonly status: number;
  /** JSON body; absent for 204. */
  readonly body?: unknown;
}

export type Handler = (ctx: Ctx) => Reply;

interface RouteBase {
  /** `/api/v3/contexts/:id`; a `*name` segment matches one or more segments (V2 slugs). */
  readonly pattern: string;
  readonly handler: Handler;
  /**
   * The sparse shape of a 2xx answer (`Shapes`): the full body made as sparse as the real
   * service sends it on this route. The server applies it, then the generic rules (a last
   * page's cursor ""), in `sparse` mode only.
   */
  readonly sparse?: (body: unknown, ctx: Ctx) => unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A V3 list answer without its `page` member when it is the last page (the service sends no
 * `page` on a list it does not page, nor on a look-up); a page that has a next one keeps it.
 */
export const withoutLastPage = (body: unknown): unknown => {
  if (!isObject(body) || !isObject(body.page) || body.page.next !== null) return body;
  const { page: _page, ...rest } = body;
  return rest;
};

/**
 * A whole V3 list on one page as `{ data, meta: { total_count } }`, without `page`: how the
 * vendor's CLI fake answers the pipelines and triggers lists (docs/spec-notes.md "Reading the
 * real service"). A page with a neighbour keeps its `page` (the total of a part is unknown).
 */
export const withTotalCount = (body: unknown): unknown => {
  if (!isObject(body) || !isObject(body.page) || !Array.isArray(body.data)) return body;
  if (body.page.next !== null || body.page.prev !== null) return body;
  const { page: _page, ...rest } = body;
  return { ...rest, meta: { total_count: body.data.length } };
};

/** Each item of a V3 list or one resource, mapped (`{ data: [...] }` or `{ data: {...} }`). */
export const mapData = (
  body: unknown,
  f: (item: Record<string, unknown>) => Record<string, unknown>,
): unknown => {
  if (!isObject(body)) return body;
  if (Array.isArray(body.data))
    return { ...body, data: body.data.map((x) => (isObject(x) ? f(x) : x)) };
  if (isObject(body.data)) return { ...body, data: f(body.data) };
  return body;
};

/** A resource without some of its attributes. */
export const withoutAttributes = (
  item: Record<string, unknown>,
  names: readonly string[],
): Record<string, unknown> => {
  if (!isObject(item.attributes)) return item;
  const attributes = { ...item.attributes };
  for (const n of names) delete attributes[n];
  return { ...item, attributes };
};

/**
 * A V2 answer's kebab-case members in snake case (`public-key` → `public_key`), on the body
 * and on each of its `items`: the spec writes some V2 names in kebab case, the service
 * answers them in snake case (docs/spec-notes.md "Reading the real service").
 */
export const snakeMembers = (body: unknown): unknown => {
  const snake = (o: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replaceAll("-", "_"), v]));
  if (!isObject(body)) return body;
  if (Array.isArray(body.items))
    return { ...body, items: body.items.map((x) => (isObject(x) ? snake(x) : x)) };
  return snake(body);
};

/**
 * The generic sparse rules, after the route's own (`RouteBase.sparse`): a last page's
 * cursor is "" rather than null (V3 `page.next`, V2 `next_page_token`), as the vendor's
 * clients record it.
 */
export const sparseCursors = (body: unknown): unknown => {
  if (!isObject(body)) return body;
  if (isObject(body.page) && body.page.next === null) {
    return { ...body, page: { ...body.page, next: "" } };
  }
  if (Array.isArray(body.items) && body.next_page_token === null) {
    return { ...body, next_page_token: "" };
  }
  return body;
};

/** A read or a delete: no request body is read. */
export interface ReadRoute extends RouteBase {
  readonly method: "GET" | "DELETE";
}

/**
 * A write (POST, PUT, PATCH): it must name the spec's shape of its body (in its
 * family module), and the server checks every request against it before the handler runs, so
 * a member the shape does not list is a 400 with a pointer to it on every write route, those
 * added later included (api-v3.md "Errors" rule 2: invalid input is 400; "Envelopes": the
 * error's `source.pointer`). `null`: the route takes no body, so any member is unknown.
 */
export interface WriteRoute extends RouteBase {
  readonly method: "POST" | "PUT" | "PATCH";
  readonly body: Schema | null;
}

export type Route = ReadRoute | WriteRoute;

export const isWriteRoute = (r: Route): r is WriteRoute =>
  r.method === "POST" || r.method === "PUT" || r.method === "PATCH";

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
/**
 * Decision: a successful DELETE answers 204 with no body wherever the spec lists no 2xx
 * (contexts, context env vars, context restrictions, webhooks), like the ones it does list.
 */
export const noContent = (): Reply => ({ status: 204 });

/** spec: api-v3.md "Errors" rule 4: a missing required scope filter is 400. */
export const requireFilter = (ctx: Ctx, name: string): string => {
  const v = ctx.query.get(name);
  if (v === null || v === "") throw badRequest("missing_filter", `${name} is required`);
  return v;
};

/** A uuid-valued filter: malformed is 400 (invalid input), absent is undefined. */
export const uuidFilter = (ctx: Ctx, name: string, required: boolean): string | undefined => {
  const v = required ? requireFilter(ctx, name) : (ctx.query.get(name) ?? undefined);
  if (v === undefined || v === "") return undefined;
  if (!isUuid(v)) throw badRequest("invalid_filter", `${name} must be a UUID`);
  return v;
};

/**
 * Decision: a `filter[...]` parameter the route does not know is 400 (`invalid_filter`), so a
 * client's typo (`filter[projectId]`) fails loudly instead of silently listing everything.
 */
export const allowFilters = (ctx: Ctx, allowed: readonly string[]): void => {
  for (const key of ctx.query.keys()) {
    if (key.startsWith("filter[") && !allowed.includes(key)) {
      throw badRequest(
        "invalid_filter",
        `unknown filter ${key}; accepted: ${allowed.join(", ") || "none"}`,
      );
    }
  }
};

/**
 * A write route's body checked against its schema (unknown members are 400 with a pointer).
 * The server runs it for every write route before the handler (`WriteRoute.body`).
 * Decision: the flat update bodies (`/update`, `update-settings`, `env-vars/set`,
 * `set-enabled`) reject unknown members too, like creates; the body is parsed as JSON
 * whatever its Content-Type; a route without a body shape (`null`) takes no members at all.
 */
export const checkBody = (schema: Schema | null, value: unknown): void => {
  if (schema === null) {
    if (value === undefined) return;
    const issue = check(s.obj({}), value);
    if (issue) throw fromIssue(issue);
    return;
  }
  if (value === undefined) throw badRequest("invalid_request", "a JSON body is required", "/");
  const issue = check(schema, value);
  if (issue) throw fromIssue(issue);
  if (!isPlainObject(value))
    throw badRequest("invalid_request", "the body must be a JSON object", "/");
};

/** The body of a write route, already checked by the server against the route's schema. */
export const body = (ctx: Ctx): Record<string, unknown> => ctx.body as Record<string, unknown>;

/** `{ data: { attributes, references } }` of a validated create body. */
export const enveloped = (
  b: Record<string, unknown>,
): { attributes: Record<string, unknown>; references: Record<string, { id: string }> } => {
  const data = b.data as Record<string, unknown>;
  return {
    attributes: data.attributes as Record<string, unknown>,
    references: data.references as Record<string, { id: string }>,
  };
};
