/** Outbound webhooks. spec: api-v3.md "Webhooks", "Webhook", "States and transitions". */
import { badRequest, notFound } from "../errors.js";
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
import { enveloped as envelopedSchema, nonEmpty, ref, seedId } from "../schemas.js";
import { WEBHOOK_EVENT_NAMES } from "../spec-names.js";
import {
  findById,
  groupBy,
  memo,
  NONE,
  nextId,
  removeWhere,
  SEED_TIME,
  type State,
} from "../state.js";
import { type Schema, s } from "../validate.js";
import { type ProjectRow, projectOr404 } from "./projects.js";

export interface WebhookRow {
  readonly id: string;
  readonly projectId: string;
  name: string;
  readonly scope: string;
  url: string;
  events: string[];
  should_verify_tls: boolean;
  is_enabled: boolean;
  signing_secret?: string;
  readonly auto_disabled_at: string | null;
  readonly created_at: string;
}

declare module "../state.js" {
  interface State {
    readonly webhooks: WebhookRow[];
  }
}

export interface SeedWebhook {
  readonly id?: string;
  readonly name: string;
  /** Default `project`. */
  readonly scope?: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly should_verify_tls?: boolean;
  readonly is_enabled?: boolean;
  readonly signing_secret?: string;
  readonly auto_disabled_at?: string;
}

declare module "./projects.js" {
  interface SeedProject {
    readonly webhooks?: readonly SeedWebhook[];
  }
}

/** spec: api-v3.md "Limits": webhooks per project 25 (one more is 400). */
export const WEBHOOKS_PER_PROJECT = 25;

/** spec: Webhook: `url` (HTTPS only). */
export const checkWebhookUrl = (url: string, pointer: string): void => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest("invalid_url", `${pointer}: not a URL`, pointer);
  }
  if (parsed.protocol !== "https:") {
    throw badRequest("invalid_url", `${pointer}: only https URLs are accepted`, pointer);
  }
};

/** Decision: `events` must be non-empty and hold no duplicates. */
export const checkWebhookEvents = (events: readonly string[], pointer: string): void => {
  if (events.length === 0)
    throw badRequest("invalid_request", `${pointer}: must not be empty`, pointer);
  if (new Set(events).size !== events.length)
    throw badRequest("invalid_request", `${pointer}: holds a duplicate event`, pointer);
};

const webhookProps = {
  name: nonEmpty(),
  scope: nonEmpty(),
  url: nonEmpty(),
  events: s.arr(s.str({ oneOf: WEBHOOK_EVENT_NAMES })),
  should_verify_tls: s.bool(),
  signing_secret: s.str(),
  is_enabled: s.bool(),
};
export const webhookCreateSchema = envelopedSchema(
  s.obj(webhookProps, ["name", "scope", "url", "events"]),
  s.obj({ project: ref }, ["project"]),
);
/** spec: Webhooks: update takes only name, url, events, should_verify_tls, signing_secret. */
export const webhookUpdateSchema: Schema = s.obj({
  name: nonEmpty(),
  url: nonEmpty(),
  events: s.arr(s.str({ oneOf: WEBHOOK_EVENT_NAMES })),
  should_verify_tls: s.bool(),
  signing_secret: s.str(),
});
export const setEnabledSchema: Schema = s.obj({ is_enabled: s.bool() }, ["is_enabled"]);

const findWebhook = (st: State, id: string): WebhookRow | undefined =>
  findById(st, st.webhooks, id);

/**
 * The stored webhooks of one project, in creation order, from an index built once per state
 * version instead of a scan of the whole table on every list read.
 */
const webhooksOf = (st: State, projectId: string): readonly WebhookRow[] =>
  memo(st, "webhooks:by-project", () => groupBy(st.webhooks, (w) => w.projectId)).get(projectId) ??
  NONE;

/** spec: Webhook: `signing_secret` is write-only; responses carry `has_signing_secret`. */
const renderWebhook = (w: WebhookRow) => ({
  id: w.id,
  attributes: {
    name: w.name,
    scope: w.scope,
    url: w.url,
    events: [...w.events],
    should_verify_tls: w.should_verify_tls,
    has_signing_secret: w.signing_secret !== undefined,
    is_enabled: w.is_enabled,
    auto_disabled_at: w.auto_disabled_at,
    created_at: w.created_at,
  },
  references: { project: { id: w.projectId } },
});

const webhookOr404 = (ctx: Ctx): WebhookRow => {
  const w = findWebhook(ctx.state, ctx.params.id!);
  if (!w) throw notFound("webhook", ctx.params.id);
  return w;
};

export const webhookRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v3/webhooks",
    handler: (ctx) => {
      allowFilters(ctx, ["filter[project_id]", "filter[is_enabled]"]);
      const p = projectOr404(ctx, uuidFilter(ctx, "filter[project_id]", true)!);
      const enabled = ctx.query.get("filter[is_enabled]");
      if (enabled !== null && enabled !== "true" && enabled !== "false") {
        throw badRequest("invalid_filter", "filter[is_enabled] must be true or false");
      }
      const ofProject = webhooksOf(ctx.state, p.id);
      const hits =
        enabled === null
          ? ofProject
          : ofProject.filter((w) => w.is_enabled === (enabled === "true"));
      return ok(paginate(ctx, hits, renderWebhook));
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/webhooks",
    body: webhookCreateSchema,
    handler: (ctx) => {
      const { attributes: a, references } = enveloped(body(ctx));
      const p = projectOr404(ctx, references.project!.id);
      checkWebhookUrl(a.url as string, "/data/attributes/url");
      checkWebhookEvents(a.events as string[], "/data/attributes/events");
      // spec: "Limits": 25 webhooks per project, one more is 400.
      if (ctx.state.webhooks.filter((w) => w.projectId === p.id).length >= WEBHOOKS_PER_PROJECT) {
        throw badRequest(
          "limit_exceeded",
          `the project already has ${WEBHOOKS_PER_PROJECT} webhooks`,
        );
      }
      // Decision: `scope` is any non-empty string (the spec names no values); an empty
      // `signing_secret` means none.
      const secret = a.signing_secret as string | undefined;
      // spec: not idempotent: a repeated create adds another webhook (names are not unique).
      const row: WebhookRow = {
        id: nextId(ctx.state, "webhook"),
        projectId: p.id,
        name: a.name as string,
        scope: a.scope as string,
        url: a.url as string,
        events: [...(a.events as string[])],
        // spec: Webhook: should_verify_tls and is_enabled default to true.
        should_verify_tls: a.should_verify_tls !== false,
        is_enabled: a.is_enabled !== false,
        ...(secret ? { signing_secret: secret } : {}),
        auto_disabled_at: null,
        created_at: ctx.nowIso(),
      };
      ctx.state.webhooks.push(row);
      return created({ data: renderWebhook(row) });
    },
  },
  {
    method: "GET",
    pattern: "/api/v3/webhooks/:id",
    handler: (ctx) => ok({ data: renderWebhook(webhookOr404(ctx)) }),
  },
  {
    method: "DELETE",
    pattern: "/api/v3/webhooks/:id",
    handler: (ctx) => {
      const w = webhookOr404(ctx);
      ctx.state.webhooks.splice(ctx.state.webhooks.indexOf(w), 1);
      return noContent();
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/webhooks/:id/update",
    body: webhookUpdateSchema,
    handler: (ctx) => {
      const w = webhookOr404(ctx);
      const b = body(ctx);
      if (b.url !== undefined) checkWebhookUrl(b.url as string, "/url");
      if (b.events !== undefined) checkWebhookEvents(b.events as string[], "/events");
      // Omitted fields keep their values; `events` replaces the subscription.
      if (b.name !== undefined) w.name = b.name as string;
      if (b.url !== undefined) w.url = b.url as string;
      if (b.events !== undefined) w.events = [...(b.events as string[])];
      if (b.should_verify_tls !== undefined) w.should_verify_tls = b.should_verify_tls as boolean;
      // spec: a non-empty signing_secret replaces the stored one; a stored secret cannot be
      // removed (so an empty string changes nothing).
      if (typeof b.signing_secret === "string" && b.signing_secret !== "")
        w.signing_secret = b.signing_secret;
      return ok({ data: renderWebhook(w) });
    },
  },
  {
    method: "POST",
    pattern: "/api/v3/webhooks/:id/set-enabled",
    body: setEnabledSchema,
    handler: (ctx) => {
      const w = webhookOr404(ctx);
      // spec: States: set-enabled with the value it already has changes nothing.
      w.is_enabled = body(ctx).is_enabled as boolean;
      return ok({ data: renderWebhook(w) });
    },
  },
];

export const webhooks: Family = {
  name: "webhooks",
  routes: webhookRoutes,
  tables: ["webhooks"],
  toFront: ["webhooks"],
  seed: [
    {
      in: "project",
      key: "webhooks",
      schema: s.arr(
        s.obj({ id: seedId, ...webhookProps, auto_disabled_at: s.str() }, [
          "name",
          "url",
          "events",
        ]),
      ),
      load(l, parent, value, pointer) {
        const id = (parent.row as ProjectRow).id;
        const hooks = (value ?? []) as readonly SeedWebhook[];
        if (hooks.length > WEBHOOKS_PER_PROJECT)
          l.fail(pointer, `more than ${WEBHOOKS_PER_PROJECT} webhooks`);
        hooks.forEach((sw, wi) => {
          const wp = `${pointer}/${wi}`;
          l.asSeed(() => {
            checkWebhookUrl(sw.url, `${wp}/url`);
            checkWebhookEvents(sw.events, `${wp}/events`);
          });
          l.st.webhooks.push({
            id: l.claim(sw.id ?? hashUuid("webhook", id, sw.name, String(wi)), `${wp}/id`),
            projectId: id,
            name: sw.name,
            scope: sw.scope ?? "project",
            url: sw.url,
            events: [...sw.events],
            should_verify_tls: sw.should_verify_tls !== false,
            is_enabled: sw.is_enabled !== false,
            ...(sw.signing_secret ? { signing_secret: sw.signing_secret } : {}),
            auto_disabled_at: sw.auto_disabled_at ?? null,
            created_at: SEED_TIME,
          });
        });
      },
      dump: (st, row) =>
        st.webhooks
          .filter((w) => w.projectId === (row as ProjectRow).id)
          .map((w) => ({
            id: w.id,
            name: w.name,
            scope: w.scope,
            url: w.url,
            events: [...w.events],
            should_verify_tls: w.should_verify_tls,
            is_enabled: w.is_enabled,
            ...(w.signing_secret !== undefined ? { signing_secret: w.signing_secret } : {}),
            ...(w.auto_disabled_at !== null ? { auto_disabled_at: w.auto_disabled_at } : {}),
          })),
    },
  ],
  onRemove: {
    project: (st, id) => removeWhere(st.webhooks, (w) => w.projectId === id),
  },
};
