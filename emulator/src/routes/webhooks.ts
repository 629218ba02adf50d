/** Outbound webhooks. spec: api-v3.md "Webhooks", "Webhook", "States and transitions". */
import { badRequest, notFound } from "../errors.js";
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
import { paginate } from "../paging.js";
import { setEnabledSchema, webhookCreateSchema, webhookUpdateSchema } from "../schemas.js";
import {
  checkWebhookEvents,
  checkWebhookUrl,
  findWebhook,
  nextId,
  rowsOf,
  WEBHOOKS_PER_PROJECT,
  type WebhookRow,
} from "../store.js";
import { projectOr404 } from "./projects.js";

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
      const ofProject = rowsOf.webhooks(ctx.state, p.id);
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
