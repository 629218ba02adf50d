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
import type { Family } from "../family.js";
import { type Ctx, created, ok, type Route, snakeMembers } from "../http.js";
import { keyPairOf, keySeed } from "../keys.js";
import { paginateV2 } from "../paging.js";
import { nextId, removeWhere, SEED_TIME } from "../state.js";
import { type Schema, s } from "../validate.js";
import { findOrg, onOAuthVcs } from "./orgs.js";
import { type ProjectRow, projectBySlugOr404 } from "./projects.js";

/** A checkout key (spec: api-v2-v1.md "Checkout key"); the private half stays here. */
export interface CheckoutKeyRow {
  readonly projectId: string;
  /** As answered: `deploy-key` or `<vcs>-user-key`. */
  readonly type: string;
  readonly preferred: boolean;
  /** The private half's seed, hex (only `GET /__admin/state` shows it). */
  readonly privateSeed: string;
  readonly publicKey: string;
  readonly md5: string;
  readonly sha256: string;
  readonly created_at: string;
}

declare module "../state.js" {
  interface State {
    readonly checkoutKeys: CheckoutKeyRow[];
  }
}

export interface SeedCheckoutKey {
  /** `deploy-key` or `user-key` (stored as `<vcs>-user-key`, as the service answers). */
  readonly type: "deploy-key" | "user-key";
  /** Default: true for the first key of the project. */
  readonly preferred?: boolean;
  /** The private half's 32-byte Ed25519 seed, hex (test only); derived when absent. */
  readonly private_seed?: string;
  readonly created_at?: string;
}

declare module "./projects.js" {
  interface SeedProject {
    readonly checkout_keys?: readonly SeedCheckoutKey[];
  }
}

/** spec: api-v2-v1.md Enumerations: checkout-key input type `user-key` or `deploy-key`. */
export const CHECKOUT_KEY_INPUT_TYPES = ["user-key", "deploy-key"] as const;

/** spec: POST /project/{project-slug}/checkout-key `{ type user-key|deploy-key }`. */
export const checkoutKeyCreateSchema: Schema = s.obj(
  { type: s.str({ oneOf: CHECKOUT_KEY_INPUT_TYPES }) },
  ["type"],
);

/**
 * spec: api-v2-v1.md "Checkout key": `type` is `deploy-key` or a `<vcs>-user-key`.
 * Decision: a user key's type names the VCS of the project's slug (`gh/…` → `github-user-key`,
 * `bb/…` → `bitbucket-user-key`, else the slug's first segment).
 */
const VCS_NAMES: Readonly<Record<string, string>> = { gh: "github", bb: "bitbucket" };
const vcsName = (slug: string): string => {
  const first = slug.split("/")[0] ?? "";
  return VCS_NAMES[first] ?? first;
};

export const checkoutKeyRow = (
  project: ProjectRow,
  input: "deploy-key" | "user-key",
  preferred: boolean,
  seedHex: string,
  createdAt: string,
): CheckoutKeyRow => {
  const pair = keyPairOf(Buffer.from(seedHex, "hex"));
  return {
    projectId: project.id,
    type: input === "deploy-key" ? "deploy-key" : `${vcsName(project.slug)}-user-key`,
    preferred,
    privateSeed: seedHex,
    publicKey: pair.publicKey,
    md5: pair.md5,
    sha256: pair.sha256,
    created_at: createdAt,
  };
};

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
    // docs/spec-notes.md "Reading the real service": `public_key`, `created_at`.
    sparse: snakeMembers,
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
    sparse: snakeMembers,
  },
  {
    method: "GET",
    pattern: "/api/v2/project/*slug/checkout-key/:fingerprint",
    handler: (ctx) => {
      const p = projectBySlugOr404(ctx);
      const k = findKey(ctx, p);
      return ok(render(k, k.sha256 === ctx.params.fingerprint ? "sha256" : "md5"));
    },
    sparse: snakeMembers,
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

export const checkoutKeys: Family = {
  name: "checkout-keys",
  routes: checkoutKeyRoutes,
  tables: ["checkoutKeys"],
  seed: [
    {
      in: "project",
      key: "checkout_keys",
      sample: [{ type: "deploy-key" }],
      schema: s.arr(
        s.obj(
          {
            type: s.str({ oneOf: CHECKOUT_KEY_INPUT_TYPES }),
            preferred: s.bool(),
            private_seed: s.str(),
            created_at: s.str(),
          },
          ["type"],
        ),
      ),
      load(l, parent, value, pointer) {
        const project = parent.row as ProjectRow;
        ((value ?? []) as readonly SeedCheckoutKey[]).forEach((sk, ki) => {
          const seedHex =
            sk.private_seed ?? keySeed("seed", project.id, String(ki)).toString("hex");
          if (!/^[0-9a-f]{64}$/.test(seedHex))
            l.fail(`${pointer}/${ki}/private_seed`, "must be 64 hex digits");
          l.st.checkoutKeys.push(
            checkoutKeyRow(
              project,
              sk.type,
              sk.preferred ?? ki === 0,
              seedHex,
              sk.created_at ?? SEED_TIME,
            ),
          );
        });
      },
      dump: (st, row) =>
        st.checkoutKeys
          .filter((k) => k.projectId === (row as ProjectRow).id)
          .map((k) => ({
            type: k.type === "deploy-key" ? ("deploy-key" as const) : ("user-key" as const),
            preferred: k.preferred,
            private_seed: k.privateSeed,
            created_at: k.created_at,
          })),
    },
  ],
  onRemove: {
    project: (st, id) => removeWhere(st.checkoutKeys, (k) => k.projectId === id),
  },
};
