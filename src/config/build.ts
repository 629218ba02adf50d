/**
 * A document that passed the schema and the rules → the desired model (pure), then the
 * merge of several files (design.md §1: files of the same org merge; the same address
 * declared twice is an error naming both places).
 */

import { formatLocation, type SourceLocation } from "../core/errors.js";
import { isSecret, type MaybeSecret, Secret } from "../core/secret.js";
import { addr, type RestrictionType } from "../model/address.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredEnvVar,
  DesiredOrg,
  DesiredPipeline,
  DesiredProject,
  DesiredRestriction,
  DesiredTrigger,
  DesiredWebhook,
  OrgSettingName,
  VcsRepo,
  WebhookEvent,
} from "../model/desired.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import type {
  RawContext,
  RawDocument,
  RawPipeline,
  RawProject,
  RawTrigger,
  RawVcsRepo,
  RawWebhook,
} from "./raw.js";
import { type ResolvedValues, unescapeText } from "./references.js";
import {
  type DocPath,
  dottedPath,
  locate,
  type Pos,
  type PositionIndex,
  pathKey,
} from "./yaml-doc.js";

/** An address that must be declared once, and where it was. */
export interface Declaration {
  readonly address: string;
  readonly source: SourceLocation;
  readonly path: string;
}

export interface BuiltFile {
  readonly org: DesiredOrg;
  readonly declarations: readonly Declaration[];
}

interface Ctx {
  readonly file: string;
  readonly positions: PositionIndex;
  readonly values: ResolvedValues;
  readonly declarations: Declaration[];
}

/**
 * Where an item was written. Line and column are looked up on first read: only diagnostics
 * read them, and the look-up runs the full YAML parser when the fast one read the file
 * (yaml-doc.ts), which a valid config should never pay for.
 */
const at = (ctx: Ctx, path: DocPath, where: "key" | "value" = "key"): SourceLocation => {
  let pos: Pos | undefined;
  const find = (): Pos => {
    pos ??= locate(ctx.positions, path, where);
    return pos;
  };
  return {
    file: ctx.file,
    get line() {
      return find().line;
    },
    get col() {
      return find().col;
    },
  };
};

const declare = (ctx: Ctx, address: string, path: DocPath, where: "key" | "value" = "key") => {
  ctx.declarations.push({ address, source: at(ctx, path, where), path: dottedPath(path) });
};

const text = (s: string): string => unescapeText(s);
const opt = <T, R>(v: T | undefined, f: (v: T) => R): R | undefined =>
  v === undefined ? undefined : f(v);

/** A resolved value for a secret-capable path (references.ts always records one). */
const resolved = (ctx: Ctx, path: DocPath): MaybeSecret => {
  const v = ctx.values.get(pathKey(path));
  if (v === undefined) throw new Error(`internal: no resolved value at ${dottedPath(path)}`);
  return v;
};
const secret = (ctx: Ctx, path: DocPath): Secret => {
  const v = resolved(ctx, path);
  return isSecret(v) ? v : new Secret(v, "literal");
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in lower case; anything else (a slug, `all-members`) as it is. */
export const lowerUuid = (v: string): string => (UUID_RE.test(v) ? v.toLowerCase() : v);

const vcs = (r: RawVcsRepo): VcsRepo => ({
  provider: text(r.provider),
  repo_id: text(r.repo_id),
  repo_full_name: text(r.repo_full_name),
});

const envMap = (ctx: Ctx, env: Record<string, string>, base: DocPath): Map<string, DesiredEnvVar> =>
  new Map(
    Object.keys(env).map((name) => {
      const path = [...base, name];
      return [name, { name, value: secret(ctx, path), source: at(ctx, path) }];
    }),
  );

const buildContext = (ctx: Ctx, name: string, raw: RawContext): DesiredContext => {
  const base = ["contexts", name];
  declare(ctx, addr.context(name), base);
  const restrictions = opt(raw.restrictions, (list) =>
    list.map((r, i): DesiredRestriction => {
      const path = [...base, "restrictions", i];
      const source = at(ctx, path, "value");
      const [type, value] = (
        r.project !== undefined
          ? ["project", r.project]
          : r.expression !== undefined
            ? ["expression", r.expression]
            : ["group", r.group ?? ""]
      ) as [RestrictionType, string];
      // Ids are UUIDs (spec: api-v3.md Envelopes rule 1), which the service writes in lower
      // case; an id written in upper case is the same id, so it is lowered here, once, and
      // every comparison after (restriction keys, duplicates, pins) meets one spelling.
      const v = type === "expression" ? text(value) : lowerUuid(text(value));
      declare(ctx, addr.contextRestriction(name, type, v), path, "value");
      if (type === "project") return { type, project: v, source };
      if (type === "expression") return { type, expression: v, source };
      return { type, group: v, source };
    }),
  );
  return {
    name,
    source: at(ctx, base),
    ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
    ...(raw.env !== undefined && { env: envMap(ctx, raw.env, [...base, "env"]) }),
    ...(restrictions !== undefined && { restrictions }),
  };
};

const buildWebhook = (ctx: Ctx, base: DocPath, name: string, raw: RawWebhook): DesiredWebhook => ({
  name,
  source: at(ctx, base),
  ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
  url: resolved(ctx, [...base, "url"]),
  events: raw.events as WebhookEvent[],
  ...(raw.scope !== undefined && { scope: raw.scope }),
  ...(raw.should_verify_tls !== undefined && { should_verify_tls: raw.should_verify_tls }),
  ...(raw.is_enabled !== undefined && { is_enabled: raw.is_enabled }),
  ...(raw.signing_secret !== undefined && {
    signing_secret: secret(ctx, [...base, "signing_secret"]),
  }),
});

const buildTrigger = (ctx: Ctx, base: DocPath, key: string, raw: RawTrigger): DesiredTrigger => {
  const e = raw.event;
  const webhook = e.webhook;
  return {
    key,
    source: at(ctx, base),
    ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
    ...(raw.is_disabled !== undefined && { is_disabled: raw.is_disabled }),
    ...(raw.config !== undefined && {
      config: raw.config.ref === undefined ? {} : { ref: text(raw.config.ref) },
    }),
    ...(raw.checkout !== undefined && {
      checkout: raw.checkout.ref === undefined ? {} : { ref: text(raw.checkout.ref) },
    }),
    event: {
      type: e.type,
      ...(e.vcs !== undefined && { vcs: vcs(e.vcs) }),
      ...(webhook !== undefined && {
        webhook: {
          ...(webhook.source !== undefined && { source: text(webhook.source) }),
          ...(webhook.secret !== undefined && {
            secret: secret(ctx, [...base, "event", "webhook", "secret"]),
          }),
        },
      }),
      ...(e.schedule !== undefined && {
        schedule: {
          // Decision: whitespace is normalised ("0  2 * * *" is "0 2 * * *") so spacing is
          // never a change in a plan.
          cron_expression: e.schedule.cron_expression.trim().split(/\s+/).join(" "),
          ...(e.schedule.attribution_actor !== undefined && {
            attribution_actor: e.schedule.attribution_actor,
          }),
        },
      }),
      ...(e.filter !== undefined && {
        filter: {
          ...(e.filter.preset !== undefined && { preset: e.filter.preset }),
          ...(e.filter.rules !== undefined && {
            rules: e.filter.rules.map((r) => ({
              ...(r.event_type !== undefined && { event_type: text(r.event_type) }),
              rule: text(r.rule),
              ...(r.event_ref !== undefined && { event_ref: text(r.event_ref) }),
            })),
          }),
        },
      }),
    },
    ...(raw.parameters !== undefined && {
      parameters: Object.fromEntries(
        Object.entries(raw.parameters).map(([k, v]) => [k, typeof v === "string" ? text(v) : v]),
      ),
    }),
  };
};

const buildPipeline = (
  ctx: Ctx,
  base: DocPath,
  name: string,
  raw: RawPipeline,
): DesiredPipeline => {
  const c = raw.config;
  return {
    name,
    source: at(ctx, base),
    ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
    ...(raw.description !== undefined && { description: text(raw.description) }),
    config: {
      type: c.type,
      file_path: text(c.file_path),
      ...(c.file_type !== undefined && { file_type: text(c.file_type) }),
      ...(c.vcs !== undefined && { vcs: vcs(c.vcs) }),
      ...(c.hosted !== undefined && { hosted: { provider: text(c.hosted.provider) } }),
    },
    ...(raw.checkout !== undefined && { checkout: { vcs: vcs(raw.checkout.vcs) } }),
    ...(raw.triggers !== undefined && {
      triggers: new Map(
        Object.entries(raw.triggers).map(([key, t]) => [
          key,
          buildTrigger(ctx, [...base, "triggers", key], key, t),
        ]),
      ),
    }),
  };
};

const buildProject = (ctx: Ctx, slug: string, raw: RawProject): DesiredProject => {
  const base = ["projects", slug];
  declare(ctx, addr.project(slug), base);
  const settings = raw.settings;
  return {
    slug,
    source: at(ctx, base),
    ...(settings !== undefined && {
      settings: {
        ...Object.fromEntries(
          Object.entries(settings).map(([k, v]) => [k, Array.isArray(v) ? v.map(text) : v]),
        ),
        source: at(ctx, [...base, "settings"]),
      },
    }),
    ...(raw.env !== undefined && { env: envMap(ctx, raw.env, [...base, "env"]) }),
    ...(raw.webhooks !== undefined && {
      webhooks: new Map(
        Object.entries(raw.webhooks).map(([name, w]) => [
          name,
          buildWebhook(ctx, [...base, "webhooks", name], name, w),
        ]),
      ),
    }),
    ...(raw.pipelines !== undefined && {
      pipelines: new Map(
        Object.entries(raw.pipelines).map(([name, p]) => [
          name,
          buildPipeline(ctx, [...base, "pipelines", name], name, p),
        ]),
      ),
    }),
  };
};

/** One file's document (already checked) → its org and the addresses it declares. */
export const buildFile = (
  file: string,
  doc: RawDocument,
  positions: PositionIndex,
  values: ResolvedValues,
): BuiltFile => {
  const ctx: Ctx = { file, positions, values, declarations: [] };
  if (doc.settings !== undefined) declare(ctx, addr.orgSettings(), ["settings"]);
  const org: DesiredOrg = {
    slug: doc.org,
    source: at(ctx, ["org"]),
    ...(doc.settings !== undefined && {
      settings: {
        ...(doc.settings as Partial<Record<OrgSettingName, boolean>>),
        source: at(ctx, ["settings"]),
      },
    }),
    ...(doc.contexts !== undefined && {
      contexts: new Map(
        Object.entries(doc.contexts).map(([name, c]) => [name, buildContext(ctx, name, c)]),
      ),
    }),
    projects: new Map(
      Object.entries(doc.projects ?? {}).map(([slug, p]) => [slug, buildProject(ctx, slug, p)]),
    ),
    ignore: (doc.ignore ?? []).map(text),
  };
  return { org, declarations: ctx.declarations };
};

const mergeMaps = <V>(
  a: ReadonlyMap<string, V> | undefined,
  b: ReadonlyMap<string, V> | undefined,
): ReadonlyMap<string, V> | undefined => {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out = new Map(a);
  for (const [k, v] of b) if (!out.has(k)) out.set(k, v);
  return out;
};

/**
 * Merge files: one DesiredOrg per org slug, in first-seen order.
 *
 * Decision: files of one org merge item by item — contexts and projects (and the
 * org_settings block) must each be declared in one file only; a second declaration is an
 * error at the second place naming the first. `ignore` lists are concatenated. A
 * collection (`contexts`) is authoritative when any file of the org declares it.
 */
export const mergeFiles = (
  built: readonly BuiltFile[],
  files: readonly string[],
): { readonly config: DesiredConfig; readonly diagnostics: ConfigDiagnostic[] } => {
  const diagnostics: ConfigDiagnostic[] = [];
  const seen = new Map<string, Declaration>();
  for (const b of built) {
    for (const d of b.declarations) {
      const key = `${b.org.slug}\u0000${d.address}`;
      const first = seen.get(key);
      if (first) {
        diagnostics.push({
          ...d.source,
          path: d.path,
          code: "duplicate_address",
          message: `${d.address} is declared twice: here and at ${formatLocation(first.source)}; declare it once`,
        });
      } else seen.set(key, d);
    }
  }
  const orgs = new Map<string, DesiredOrg>();
  for (const { org } of built) {
    const prev = orgs.get(org.slug);
    if (!prev) {
      orgs.set(org.slug, org);
      continue;
    }
    const settings = prev.settings ?? org.settings;
    const contexts = mergeMaps(prev.contexts, org.contexts);
    orgs.set(org.slug, {
      slug: prev.slug,
      source: prev.source,
      ...(settings !== undefined && { settings }),
      ...(contexts !== undefined && { contexts }),
      projects: mergeMaps(prev.projects, org.projects) ?? new Map(),
      ignore: [...prev.ignore, ...org.ignore],
    });
  }
  return { config: { orgs: [...orgs.values()], files }, diagnostics };
};
