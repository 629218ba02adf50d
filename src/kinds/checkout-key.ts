/**
 * Checkout keys (spec: api-v2-v1.md "Checkout key", Endpoints (V2)):
 * - `GET /project/{project-slug}/checkout-key`, `digest` (`sha256`|`md5`, default md5): the
 *   project's keys, `{ public-key, type, fingerprint, preferred, created-at }`;
 * - `POST /project/{project-slug}/checkout-key` `{ type user-key|deploy-key }`: "needs a
 *   user token; not for some app-based providers";
 * - `DELETE /project/{project-slug}/checkout-key/{fingerprint}`: "md5 or sha256
 *   fingerprint (sha256 URL-encoded)".
 *
 * Identity is the key's type (design.md §3 "More kinds"): a project has one deploy key and
 * one user key in the config. The input type is `user-key`, but the service answers with
 * `deploy-key` or a `<vcs>-user-key` (`github-user-key`): a live `*-user-key` is the
 * declared `user-key`, or every plan would delete and re-create it.
 *
 * A key has nothing to update (the pair is made by the service), so it is only ever created
 * or deleted. The private half never reaches us; the public key and fingerprint are printed
 * after apply (`announce`).
 */
import { v2Member } from "../core/wire.js";
import { addr } from "../model/address.js";
import { CHECKOUT_KEY_TYPES, type DesiredCheckoutKey } from "../model/desired.js";
import type { LiveCheckoutKey } from "../model/live.js";
import { call } from "./calls.js";
import { groupBy, scopeName } from "./config-doc.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { listV2Items, scopeSlug, v2Slug } from "./listing.js";
import type { JsonObject } from "./values.js";

/**
 * A checkout key as V2 returns it (spec: api-v2-v1.md "Checkout key"): `public-key` and
 * `created-at` in the spec, `public_key` and `created_at` from the service; read with
 * `v2Member` (src/core/wire.ts), either spelling.
 */
export interface V2CheckoutKey {
  readonly type: string;
  readonly fingerprint: string;
  readonly preferred?: boolean;
  readonly [member: string]: unknown;
}

/** A checkout key as written in a project's `checkout_keys:` list. */
export type RawCheckoutKey = (typeof CHECKOUT_KEY_TYPES)[number];

/**
 * The config's word for a live key's type: `deploy-key`, `user-key` for any
 * `<vcs>-user-key` (spec: "`deploy-key` or a `<vcs>-user-key`"), else the type as listed
 * (a type the config cannot declare: it never matches, so an authoritative list deletes it).
 */
export const checkoutKeyType = (wireType: string): string =>
  wireType === "deploy-key"
    ? "deploy-key"
    : wireType === "user-key" || /^\S+-user-key$/.test(wireType)
      ? "user-key"
      : wireType;

const isV2Key = (x: unknown): x is V2CheckoutKey => {
  if (x === null || typeof x !== "object") return false;
  const k = x as Record<string, unknown>;
  return typeof k.type === "string" && typeof k.fingerprint === "string" && k.fingerprint !== "";
};

const toLive = (k: V2CheckoutKey): LiveCheckoutKey => {
  const publicKey = v2Member(k, "public_key");
  const createdAt = v2Member(k, "created_at");
  return {
    type: k.type,
    fingerprint: k.fingerprint,
    // The public half a user installs after a create: lost if only one spelling were read.
    public_key: typeof publicKey === "string" ? publicKey : "",
    preferred: k.preferred === true,
    ...(typeof createdAt === "string" ? { created_at: createdAt } : {}),
  };
};

/**
 * Decision: keys are listed with `digest=sha256`, so the fingerprint a plan shows and a
 * delete sends is the SHA-256 one users see elsewhere (`SHA256:…`), never the legacy MD5.
 * The fingerprint is URL-encoded in the delete's path (spec: "sha256 URL-encoded": its
 * base64 holds `/` and `+`); apply's route filling encodes every path parameter.
 */
const DIGEST = "sha256";

const ROUTE = "/project/{project_slug}/checkout-key";

/** Why a refused create may have been refused (spec: POST "needs a user token; not for some app-based providers"). */
const refusalHint = (type: string): string =>
  type === "user-key"
    ? "A user key needs a user token (a personal API token, not a delegated or project token), the org setting is_user_checkout_keys_disabled must be off, and some app-based providers have no checkout keys at all"
    : "Some app-based providers have no checkout keys, and the token must be allowed to change the project";

export const checkoutKeyKind = defineKind<DesiredCheckoutKey, LiveCheckoutKey, "project">({
  identity: {
    type: "checkout_key",
    parent: "project",
    desiredKey: (d) => d.type,
    liveKey: (l) => checkoutKeyType(l.type),
    liveId: (l) => l.fingerprint,
    // Several live keys of one type (made by hand): the one the service prefers is kept.
    tiebreak: (_d, l) => l.preferred,
    // Issue 19 `moved`: a key has no name; it is identified by its type.
    rename: cannotRename("a checkout key has no name to rename: it is identified by its type"),
  },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "a key has nothing to change: it is created or deleted, never replaced",
    desiredView: (d) => ({ type: d.type }),
    liveView: (l): JsonObject => ({
      type: l.type,
      fingerprint: l.fingerprint,
      preferred: l.preferred,
    }),
    // Nothing of a key can differ once its type matches (the pair is the service's).
    compare: () => ({ fields: [], replace_reasons: [], unverified: [], skipped: [] }),
  },
  wire: {
    list: (api, scope, options) =>
      listV2Items(
        api,
        `/project/${v2Slug(scopeSlug(scope))}/checkout-key`,
        { digest: DIGEST },
        options,
        {
          is: isV2Key,
          toLive,
          what: "a checkout key without a type or fingerprint",
        },
      ),
    createCalls: () => [
      call("create", "POST", ROUTE, {
        api: "v2",
        body: "flat",
        body_fields: ["type"],
        note: "the service makes the key pair; not idempotent: an uncertain create is re-listed before any retry",
      }),
    ],
    deleteCalls: () => [call("delete", "DELETE", `${ROUTE}/{id}`, { api: "v2" })],
  },
  // Otherwise a project's collection's place (defineKind's defaults): `checkout_keys`,
  // `project["<slug>"].checkout_key["<type>"]`, removed with the project (spec: DELETE
  // /project/{slug} (V2): a project's keys go with it).
  config: {
    yamlKey: "checkout_keys",
    summary: { key: "checkout_keys", one: "checkout key" },
    // A list of types: two `deploy-key`s in one list (or two files) is an error naming both
    // places (a list is declared at its value).
    shape: "list",
    build: (ctx, _key, raw: RawCheckoutKey, path): DesiredCheckoutKey => ({
      type: raw,
      source: ctx.at(path, "value"),
    }),
    export: (items, scope) => {
      const slug = scopeName(scope, "project");
      const byType = groupBy(items, (k) => checkoutKeyType(k.type));
      return [...byType.keys()].sort().map((type) => {
        const keys = byType.get(type) ?? [];
        const glob = addr.checkoutKey(slug, type);
        if (!(CHECKOUT_KEY_TYPES as readonly string[]).includes(type)) {
          return { ignored: { glob, reason: `type ${JSON.stringify(type)} cannot be declared` } };
        }
        if (keys.length > 1) {
          return {
            ignored: {
              glob,
              reason: `${keys.length} live ${type}s (fingerprints ${keys.map((k) => k.fingerprint).join(", ")}); the config declares one key per type: delete the extra ones in the service, then declare it`,
            },
          };
        }
        return { written: type, item: keys[0] as LiveCheckoutKey, doc: type };
      });
    },
  },
  hooks: {
    // adopt: re-list and adopt the key of the declared type (the default).
    announce: {
      fromResponse: (body) => (isV2Key(body) ? toLive(body) : undefined),
      note: (l) =>
        `${l.type} fingerprint ${l.fingerprint}${l.public_key === "" ? "" : `, public key ${l.public_key}`}`,
    },
    refusal: (d) => `The service refused a ${d.type} checkout key. ${refusalHint(d.type)}.`,
  },
});
