/**
 * Checkout keys (spec: api-v2-v1.md "Endpoints (V2)"): `GET|POST
 * /project/{project-slug}/checkout-key`, `GET|DELETE .../checkout-key/{fingerprint}`.
 * Errors are V2's `{ message }` with the status (api-v2-v1.md "Errors"), rendered by the
 * server.
 *
 * Decisions where the spec is silent, each the less forgiving reading:
 * - `digest` other than `sha256`/`md5` is 400; the default is md5 (spec), also in the create's
 *   answer (the POST takes no `digest`).
 * - a `{fingerprint}` is matched exactly in the form it was listed in (md5 hex or
 *   `SHA256:…`); a sha256 fingerprint sent with a raw `/` splits the path and is not found
 *   (spec: "sha256 URL-encoded").
 * - "needs a user token": a `user-key` create with a token that is not a user's is 403 (spec:
 *   api-v3.md Authentication rule 5, insufficient permission), and so is one in an org whose
 *   setting `is_user_checkout_keys_disabled` is on.
 * - "not for some app-based providers": a project whose slug is not one of the OAuth VCS
 *   providers' (`gh`, `github`, `bb`, `bitbucket`) is app-based and has no checkout keys: a
 *   create is 400.
 * - a project has any number of keys; the first one made is `preferred`.
 */
import { badRequest, EmulatorHttpError, notFound } from "../errors.js";
import { type Ctx, created, ok, type Route } from "../http.js";
import { keySeed } from "../keys.js";
import { paginateV2 } from "../paging.js";
import { checkoutKeyCreateSchema } from "../schemas.js";
import {
  type CheckoutKeyRow,
  checkoutKeyRow,
  findOrg,
  nextId,
  onOAuthVcs,
  type ProjectRow,
} from "../store.js";
import { projectBySlugOr404 } from "./projects.js";

const digestOf = (ctx: Ctx): "md5" | "sha256" => {
  const d = ctx.query.get("digest");
  if (d === null || d === "md5") return "md5";
  if (d === "sha256") return "sha256";
  throw badRequest("invalid_filter", `digest must be sha256 or md5 (got ${JSON.stringify(d)})`);
};

/** spec: "Checkout key": `public-key`, `type`, `fingerprint`, `preferred`, `created-at`. */
const render = (k: CheckoutKeyRow, digest: "md5" | "sha256") => ({
  "public-key": k.publicKey,
  type: k.type,
  fingerprint: digest === "sha256" ? k.sha256 : k.md5,
  preferred: k.preferred,
  "created-at": k.created_at,
});

const keysOf = (ctx: Ctx, p: ProjectRow): CheckoutKeyRow[] =>
  ctx.state.checkoutKeys.filter((k) => k.projectId === p.id);

/** The key a `{fingerprint}` names, in either digest. */
const findKey = (ctx: Ctx, p: ProjectRow): CheckoutKeyRow => {
  const fp = ctx.params.fingerprint ?? "";
  const k = keysOf(ctx, p).find((x) => x.md5 === fp || x.sha256 === fp);
  if (!k) throw notFound("checkout key", fp);
  return k;
};

export const checkoutKeyRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/project/*slug/checkout-key",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const digest = digestOf(ctx);
      return ok(paginateV2(ctx, keysOf(ctx, p), (k) => render(k, digest)));
    },
  },
  {
    method: "POST",
    pattern: "/api/v2/project/*slug/checkout-key",
    body: checkoutKeyCreateSchema,
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const type = (ctx.body as { type: "deploy-key" | "user-key" }).type;
      if (!onOAuthVcs(p.slug)) {
        throw badRequest(
          "invalid_request",
          `project ${p.slug} is on an app-based provider, which has no checkout keys`,
        );
      }
      if (type === "user-key") {
        if (ctx.token !== undefined && !ctx.token.user) {
          throw new EmulatorHttpError(
            403,
            "forbidden",
            "Forbidden",
            "a user key needs a user token",
          );
        }
        if (findOrg(ctx.state, p.orgId)?.settings.is_user_checkout_keys_disabled === true) {
          throw new EmulatorHttpError(
            403,
            "forbidden",
            "Forbidden",
            "user checkout keys are disabled for this organization",
          );
        }
      }
      const seed = keySeed("created", p.id, nextId(ctx.state, "checkout-key")).toString("hex");
      const row = checkoutKeyRow(p, type, keysOf(ctx, p).length === 0, seed, ctx.nowIso());
      ctx.state.checkoutKeys.push(row);
      return created(render(row, "md5"));
    },
  },
  {
    method: "GET",
    pattern: "/api/v2/project/*slug/checkout-key/:fingerprint",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const k = findKey(ctx, p);
      return ok(render(k, k.sha256 === ctx.params.fingerprint ? "sha256" : "md5"));
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v2/project/*slug/checkout-key/:fingerprint",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const k = findKey(ctx, p);
      const i = ctx.state.checkoutKeys.indexOf(k);
      ctx.state.checkoutKeys.splice(i, 1);
      return ok({ message: "ok" });
    },
  },
];
