/**
 * Webhooks (spec: api-v3.md "Webhook", Webhooks, States and transitions).
 * - `POST /webhooks/:id/update` takes name, url, events, should_verify_tls, signing_secret
 *   ("omitted fields keep values; events replaces the subscription").
 * - `is_enabled` changes only through `POST /webhooks/:id/set-enabled`: a second call of
 *   the same update.
 * - `scope` has no update: a change forces replacement.
 * - "a stored secret cannot be removed": a config that drops the signing secret of a
 *   webhook that has one needs a replacement, and the plan says why.
 * Defaults (design.md §1 "Plans"): scope `project`, should_verify_tls true, is_enabled true.
 * `events` compare as a set.
 */

import { isSecret } from "../core/secret.js";
import type { V3Resource, WebhookAttributes } from "../core/wire.js";
import { addr } from "../model/address.js";
import {
  type DesiredWebhook,
  MAX_WEBHOOKS_PER_PROJECT,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from "../model/desired.js";
import { call } from "./calls.js";
import {
  addFields,
  addSecret,
  compareFields,
  compareSecret,
  type FieldRule,
  newComparison,
} from "./compare.js";
import {
  type ConfigContext,
  type DocMap,
  type DocValue,
  escapeText,
  namedEntries,
  projectShortName,
  type Skip,
  scopeName,
} from "./config-doc.js";
import type { ApiCall } from "./contract.js";
import { defineKind, renamableByName } from "./grouped.js";
import { pageOptions, requireId, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { type JsonObject, SENSITIVE } from "./values.js";
import { lowerUuid } from "./vcs.js";

export type LiveWebhook = WebhookAttributes & { readonly id: string };

/**
 * Decision: the spec types webhook `scope` as a string without values; `project` is the
 * only scope the V2 API knows (design.md "Plans"), so other values are refused as typos.
 */
export const WEBHOOK_SCOPES = ["project"] as const;

/** A webhook as written under a project's `webhooks:`. */
export interface RawWebhook {
  id?: string;
  url: string;
  events: string[];
  scope?: (typeof WEBHOOK_SCOPES)[number];
  should_verify_tls?: boolean;
  is_enabled?: boolean;
  signing_secret?: string;
}

/** The schema's `webhook` object, checked against RawWebhook (src/kinds/raw-keys.ts). */
export const WEBHOOK_KEYS = {
  webhook: keysOf<RawWebhook>()(
    ["id", "url", "events", "scope", "should_verify_tls", "is_enabled", "signing_secret"],
    ["url", "events"],
  ),
};

const toLiveWebhook = (w: V3Resource<WebhookAttributes>): LiveWebhook => ({
  ...w.attributes,
  id: requireId(w, "webhook"),
});

/** Fields `POST /webhooks/:id/update` accepts (spec: Webhooks). */
export const WEBHOOK_UPDATE_FIELDS = [
  "name",
  "url",
  "events",
  "should_verify_tls",
  "signing_secret",
] as const;

const RULES: readonly FieldRule[] = [
  { path: "name", mode: "update" },
  { path: "scope", mode: "replace", default: "project" },
  { path: "events", mode: "update", compare: "set" },
  { path: "should_verify_tls", mode: "update", default: true },
  { path: "is_enabled", mode: "update", default: true },
];

export const SIGNING_SECRET_REMOVAL =
  'signing_secret: a stored signing secret cannot be removed (the API reference, "Webhooks": update), so the webhook is re-created without one';

const plainView = (d: DesiredWebhook): JsonObject => ({
  name: d.name,
  scope: d.scope ?? "project",
  events: [...d.events],
  should_verify_tls: d.should_verify_tls ?? true,
  is_enabled: d.is_enabled ?? true,
});

/** When the service itself disabled the webhook, if it did and it is still disabled. */
export const autoDisabled = (l: LiveWebhook): string | undefined =>
  !l.is_enabled && typeof l.auto_disabled_at === "string" && l.auto_disabled_at !== ""
    ? l.auto_disabled_at
    : undefined;

/**
 * One webhook's document, without its name. Defaults the planner fills in are left out
 * (design.md §1 "Plans": scope `project`, should_verify_tls true, is_enabled true).
 */
const webhookDoc = (ctx: ConfigContext, slug: string, w: LiveWebhook): DocMap | Skip => {
  // The schema allows only the scope the V2 API knows (design.md §1 "Plans").
  if (w.scope !== "project") return { skip: `scope ${JSON.stringify(w.scope)} is not project` };
  // The schema's url pattern: https:// and no white space.
  if (!/^https:\/\/\S+$/.test(w.url))
    return { skip: "the url is not an https:// URL without spaces" };
  const events = [...new Set(w.events)];
  if (events.length === 0 || events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e)))
    return { skip: `events ${JSON.stringify(w.events)} are not expressible` };
  // Issue 30: a webhook URL is a credential (a Slack or Teams incoming-webhook URL posts for
  // whoever holds it), so the files meant for Git get a `${env:…}` placeholder, listed with
  // the secrets, unless `export --inline-urls` asks for it in clear.
  const url: DocValue = ctx.inlineUrls
    ? escapeText(w.url)
    : ctx.env(
        ["WEBHOOK", projectShortName(slug), w.name, "URL"],
        addr.webhook(slug, w.name),
        "url",
      );
  const out: DocMap = { url, events: [...events].sort() };
  if (w.should_verify_tls === false) out.should_verify_tls = false;
  if (w.is_enabled === false) out.is_enabled = false;
  // spec: api-v3.md Webhook: signing_secret is write-only; has_signing_secret tells.
  if (w.has_signing_secret) {
    out.signing_secret = ctx.env(
      ["WEBHOOK", projectShortName(slug), w.name, "SIGNING_SECRET"],
      addr.webhook(slug, w.name),
      "signing_secret",
    );
  }
  return out;
};

export const webhookKind = defineKind<DesiredWebhook, LiveWebhook, "project">({
  identity: {
    type: "webhook",
    parent: "project",
    // spec: api-v3.md Webhooks: POST /webhooks/:id/update takes `name` (issue 19 `moved`).
    ...renamableByName<DesiredWebhook, LiveWebhook>(),
  },
  diff: {
    // Decision: create the new webhook before deleting the old one. The API allows two
    // webhooks with one name (create is not idempotent), the old id is known in the plan so
    // apply deletes exactly that one, and deliveries never stop. When the project is at its
    // maximum (25) the planner switches this change to delete-before-create.
    replaceOrder: "create_before_delete",
    replaceOrderWhy:
      "two webhooks may share a name, so the new one is created first and deliveries never stop",
    desiredView: (d) => {
      const out: JsonObject = {
        ...plainView(d),
        url: isSecret(d.url) ? SENSITIVE : d.url,
      };
      if (d.signing_secret !== undefined) out.signing_secret = SENSITIVE;
      return out;
    },
    liveView: (l) => {
      const out: JsonObject = {
        name: l.name,
        scope: l.scope,
        url: l.url,
        events: [...l.events],
        should_verify_tls: l.should_verify_tls,
        is_enabled: l.is_enabled,
      };
      if (l.has_signing_secret) out.signing_secret = SENSITIVE;
      return out;
    },
    compare: (d, l, env) => {
      const acc = newComparison();
      addFields(
        acc,
        compareFields(
          plainView(d),
          {
            name: l.name,
            scope: l.scope,
            events: [...l.events],
            should_verify_tls: l.should_verify_tls,
            is_enabled: l.is_enabled,
          },
          RULES,
        ),
      );
      // The url is returned in full, so it compares exactly even when it came from a secret.
      if (typeof d.url === "string") {
        if (d.url !== l.url) acc.fields.push({ path: "url", before: l.url, after: d.url });
      } else if (!d.url.isResolved) {
        acc.skipped.push("url");
      } else if (d.url.reveal() !== l.url) {
        acc.fields.push({ path: "url", before: SENSITIVE, after: SENSITIVE, sensitive: true });
      }
      // spec: signing_secret is write-only; has_signing_secret says whether one is stored.
      const outcome = compareSecret(
        d.signing_secret,
        { present: l.has_signing_secret },
        env.forceSecrets,
      );
      addSecret(acc, "signing_secret", outcome, l.has_signing_secret, SIGNING_SECRET_REMOVAL);
      // spec: api-v3.md Events: "`auto_disabled_at` records when the service itself disabled a
      // webhook". Re-enabling such a webhook is never silent: the plan (and drift) says who
      // disabled it and when, so the failing receiver is looked at.
      const auto = autoDisabled(l);
      if (auto !== undefined && (d.is_enabled ?? true)) {
        acc.notes.push(
          `the service disabled this webhook itself at ${auto} (auto_disabled_at); the config re-enables it`,
        );
      }
      return acc;
    },
    unresolvedSecrets: (d) => {
      const out: string[] = [];
      if (isSecret(d.url) && !d.url.isResolved) out.push("url");
      if (d.signing_secret !== undefined && !d.signing_secret.isResolved)
        out.push("signing_secret");
      return out;
    },
  },
  wire: {
    // spec: api-v3.md Webhooks: listed with filter[project_id].
    list: async (api, scope, options) =>
      (
        await api.listV3<WebhookAttributes>(
          "/webhooks",
          { "filter[project_id]": scopeId(scope, "project_id") },
          pageOptions(options, toLiveWebhook),
        )
      ).map(toLiveWebhook),
    createCalls: (d) => {
      const fields = ["name", "scope", "url", "events", "should_verify_tls", "is_enabled"];
      // design.md §4 "Integration": a webhook URL is a credential; the plan holds it masked
      // (src/plan/mask-urls.ts), so apply always takes it from the config, as a secret.
      const sensitive: string[] = ["url"];
      if (d.signing_secret !== undefined) {
        fields.push("signing_secret");
        sensitive.push("signing_secret");
      }
      return [
        call("create", "POST", "/webhooks", {
          body: "envelope",
          body_fields: [...fields, "references.project"],
          sensitive_fields: sensitive,
          note: "not idempotent: an uncertain create is re-listed before any retry",
        }),
      ];
    },
    updateCalls: (fields) => {
      const calls: ApiCall[] = [];
      const update = fields.filter((f) =>
        (WEBHOOK_UPDATE_FIELDS as readonly string[]).includes(f.path),
      );
      if (update.length > 0) {
        calls.push(
          call("update", "POST", "/webhooks/{id}/update", {
            body: "flat",
            body_fields: update.map((f) => f.path),
            // The url too, always: the plan holds it masked (src/plan/mask-urls.ts).
            sensitive_fields: update
              .filter((f) => f.sensitive === true || f.path === "url")
              .map((f) => f.path),
          }),
        );
      }
      if (fields.some((f) => f.path === "is_enabled")) {
        calls.push(
          call("update", "POST", "/webhooks/{id}/set-enabled", {
            body: "flat",
            body_fields: ["is_enabled"],
          }),
        );
      }
      return calls;
    },
    deleteCalls: () => [call("delete", "DELETE", "/webhooks/{id}")],
  },
  // Otherwise a project's map's place (defineKind's defaults): `webhooks`,
  // `project["<slug>"].webhook["<name>"]`, removed with the project.
  place: {
    collection: {
      // Decision: at the project's webhook maximum (spec: Limits, 25) a create-first replace
      // would be refused, so such replaces delete first.
      replaceOrderFor: (desired, live) => {
        const creates = desired.filter(
          (w) => !live.some((l) => l.name === w.name || l.id === w.id),
        );
        return live.length + creates.length >= MAX_WEBHOOKS_PER_PROJECT
          ? "delete_before_create"
          : undefined;
      },
    },
  },
  config: {
    yamlKey: "webhooks",
    summary: { key: "webhooks", one: "webhook" },
    schemaKeys: WEBHOOK_KEYS,
    // spec: api-v3.md "Limits" — webhooks per project: 25 (one more is 400).
    limit: {
      max: MAX_WEBHOOKS_PER_PROJECT,
      message: (total) =>
        `this project declares ${total} webhooks; the service allows at most ${MAX_WEBHOOKS_PER_PROJECT} per project`,
    },
    secretPaths: [
      { at: ["url"], field: "url", where: "a webhook's url" },
      { at: ["signing_secret"], field: "signing_secret", where: "a webhook's signing_secret" },
    ],
    build: (ctx, name, raw: RawWebhook, path): DesiredWebhook => ({
      name,
      source: ctx.at(path),
      ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
      url: ctx.value([...path, "url"]),
      events: raw.events as WebhookEvent[],
      ...(raw.scope !== undefined && { scope: raw.scope }),
      ...(raw.should_verify_tls !== undefined && { should_verify_tls: raw.should_verify_tls }),
      ...(raw.is_enabled !== undefined && { is_enabled: raw.is_enabled }),
      ...(raw.signing_secret !== undefined && {
        signing_secret: ctx.secret([...path, "signing_secret"]),
      }),
    }),
    export: (items, scope, ctx) => {
      const slug = scopeName(scope, "project");
      return namedEntries(
        items,
        "webhook",
        (name) => addr.webhook(slug, name),
        (w) => webhookDoc(ctx, slug, w),
      );
    },
  },
  // hooks: after an uncertain create, re-list and adopt the webhook of the declared name
  // (the default).
});
