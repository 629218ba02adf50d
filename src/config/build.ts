/**
 * A document that passed the schema and the rules → the desired model (pure), then the
 * merge of several files (design.md §1: files of the same org merge; the same address
 * declared twice is an error naming both places).
 */

import { formatLocation, type SourceLocation } from "../core/errors.js";
import { isSecret, type MaybeSecret, Secret } from "../core/secret.js";
import { type ConfigBuildContext, limitCode, type ParentName } from "../kinds/contract.js";
import { mergeOrgDeclarations } from "../kinds/org-merge.js";
import type { RawProject } from "../kinds/project.js";
import { childKinds } from "../kinds/registry.js";
import { type AddressSegment, addr, formatAddress } from "../model/address.js";
import type { DesiredConfig, DesiredOrg, DesiredProject } from "../model/desired.js";
import type { PolicySet } from "../model/policy.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { checkIgnoreFieldEntry } from "./ignore-glob.js";
import { buildGuards, buildPolicies, mergePolicies } from "./policies.js";
import { ignoreFieldGlob, type RawDocument, type RawIgnoreField } from "./raw.js";
import { type ResolvedValues, unescapeText } from "./references.js";
import { firstPastLimit } from "./rules.js";
import { hasOrigin, inheritedFrom, type Origin } from "./templates.js";
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
  /** Issue 45: the file's `policies:` and `exceptions:` (they apply to every org). */
  readonly policies?: PolicySet;
}

interface FileCtx {
  readonly file: string;
  readonly positions: PositionIndex;
  readonly values: ResolvedValues;
  readonly declarations: Declaration[];
  /** Issue 19: the paths the file's items inherit from templates (src/config/templates.ts). */
  readonly origins?: ReadonlyMap<string, Origin>;
}

interface Ctx extends FileCtx {
  /** The kinds' view of this file (one per file, not one per item). */
  readonly kinds: ConfigBuildContext;
}

/**
 * Where an item was written. Line and column are looked up on first read: only diagnostics
 * read them, and the first look-up in a file parses it again for its positions
 * (yaml-doc.ts), which a valid config should never pay for.
 */
const at = (ctx: FileCtx, path: DocPath, where: "key" | "value" = "key"): SourceLocation => {
  // Issue 33 (memory): the closures below capture the position index alone, never `ctx`:
  // every declaration keeps its location for the whole run, and through `ctx` it kept the
  // file's resolved values too (a map entry per secret-capable path).
  const positions = ctx.positions;
  let pos: Pos | undefined;
  const find = (): Pos => {
    pos ??= locate(positions, path, where);
    return pos;
  };
  const loc = {
    file: ctx.file,
    get line() {
      return find().line;
    },
    get col() {
      return find().col;
    },
  };
  // Issue 19: an item inherited (in part) from a template says which, looked up on first
  // read too (the template's file positions are indexed only then).
  const origins = ctx.origins;
  const dotted = origins === undefined || origins.size === 0 ? undefined : dottedPath(path);
  if (origins === undefined || dotted === undefined || !hasOrigin(origins, dotted)) return loc;
  let via: string | undefined;
  return Object.defineProperty(loc, "via", {
    enumerable: true,
    get: () => {
      via ??= inheritedFrom(origins, dotted);
      return via;
    },
  }) as SourceLocation;
};

const declare = (ctx: Ctx, address: string, path: DocPath, where: "key" | "value" = "key") => {
  ctx.declarations.push({ address, source: at(ctx, path, where), path: dottedPath(path) });
};

const text = (s: string): string => unescapeText(s);

/** Issue 41: the entries that ignore a field widening access without `acknowledge: true`. */
const ignoreFieldWarnings = (
  ctx: FileCtx,
  entries: readonly RawIgnoreField[] | undefined,
): Pick<DesiredOrg, "ignore_fields_unacknowledged"> => {
  const out: NonNullable<DesiredOrg["ignore_fields_unacknowledged"]>[number][] = [];
  (entries ?? []).forEach((e, i) => {
    if (typeof e !== "string" && e.acknowledge === true) return;
    const glob = text(ignoreFieldGlob(e));
    const check = checkIgnoreFieldEntry(glob);
    if (check.ok && check.security !== undefined) {
      out.push({ glob, field: check.security, source: at(ctx, ["ignore_fields", i], "value") });
    }
  });
  return out.length === 0 ? {} : { ignore_fields_unacknowledged: out };
};

/** A resolved value for a secret-capable path (references.ts always records one). */
const resolved = (ctx: FileCtx, path: DocPath): MaybeSecret => {
  const v = ctx.values.get(pathKey(path));
  if (v === undefined) throw new Error(`internal: no resolved value at ${dottedPath(path)}`);
  return v;
};

/** The kinds' view of the loader (src/kinds/contract.ts ConfigBuildContext). */
const buildContext = (ctx: FileCtx): ConfigBuildContext => ({
  at: (path, where) => at(ctx, path, where),
  value: (path) => resolved(ctx, path),
  secret: (path) => {
    const v = resolved(ctx, path);
    return isSecret(v) ? v : new Secret(v, "literal");
  },
  text,
});

type RawParent = Readonly<Record<string, unknown>>;

/**
 * The collections of the kinds below `parent`, built from the parent's raw object: each
 * kind's items from `raw[yamlKey]`, under the same key, with their own children. The
 * desired model's parents have one field per child kind, named by its `yamlKey`
 * (src/model/desired.ts); test/unit/kind-contract.test.ts checks that every kind's
 * `collection.desiredIn` reads what this writes.
 */
const buildChildren = (
  ctx: Ctx,
  parent: ParentName,
  raw: RawParent,
  base: DocPath,
  segments: readonly AddressSegment[],
): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const kind of childKinds(parent)) {
    const part = kind.config;
    // Projects are built by buildProject (templates, extends, keys split across files).
    if (part.builtByLoader) continue;
    const value = raw[part.yamlKey];
    if (value === undefined) continue;
    const one = (key: string, item: unknown, path: DocPath): unknown => {
      const built = part.build(ctx.kinds, key, item as never, path);
      const own = [
        ...segments,
        kind.collection.segment.keyed
          ? { name: kind.collection.segment.name, key: kind.collection.addressKey(built) }
          : { name: kind.collection.segment.name },
      ];
      if (part.declares !== undefined) {
        declare(ctx, formatAddress(own), path, part.declares);
      }
      const children =
        typeof item === "object" && item !== null && !Array.isArray(item)
          ? buildChildren(ctx, kind.type as ParentName, item as RawParent, path, own)
          : {};
      return Object.keys(children).length === 0 ? built : { ...(built as object), ...children };
    };
    const path = [...base, part.yamlKey];
    switch (part.shape) {
      case "singleton":
        out[part.yamlKey] = one("settings", value, path);
        break;
      case "list":
        out[part.yamlKey] = (value as readonly unknown[]).map((item, i) =>
          one(String(i), item, [...path, i]),
        );
        break;
      case "map":
        out[part.yamlKey] = new Map(
          Object.entries(value as RawParent).map(([key, item]) => [
            key,
            one(key, item, [...path, key]),
          ]),
        );
        break;
    }
  }
  return out;
};

const buildProject = (ctx: Ctx, slug: string, raw: RawProject): DesiredProject => {
  const base = ["projects", slug];
  // Issue 19: a project may be split across the files of a folder where the parts do not
  // overlap: each of its keys (settings, env, webhooks, …) is declared once in the org.
  for (const key of Object.keys(raw)) declare(ctx, `${addr.project(slug)}.${key}`, [...base, key]);
  return {
    slug,
    source: at(ctx, base),
    ...(raw.create === true ? { create: true } : {}),
    ...(raw.delete === true ? { delete: true } : {}),
    ...buildChildren(ctx, "project", raw as RawParent, base, [{ name: "project", key: slug }]),
  } as DesiredProject;
};

/** One file's document (already checked) → its org and the addresses it declares. */
export const buildFile = (
  file: string,
  doc: RawDocument,
  positions: PositionIndex,
  values: ResolvedValues,
  origins?: ReadonlyMap<string, Origin>,
): BuiltFile => {
  const base: FileCtx = {
    file,
    positions,
    values,
    declarations: [],
    ...(origins === undefined ? {} : { origins }),
  };
  const ctx: Ctx = { ...base, kinds: buildContext(base) };
  const org = {
    slug: doc.org,
    source: at(ctx, ["org"]),
    ...buildChildren(ctx, "org", doc as unknown as RawParent, [], []),
    ...(doc.groups === undefined ? {} : { groups_source: at(ctx, ["groups"]) }),
    projects: new Map(
      Object.entries((doc.projects ?? {}) as Readonly<Record<string, RawProject>>).map(
        ([slug, p]) => [slug, buildProject(ctx, slug, p)],
      ),
    ),
    ignore: (doc.ignore ?? []).map(text),
    ...(doc.keep_unlisted === undefined ? {} : { keep_unlisted: doc.keep_unlisted.map(text) }),
    ...(doc.ignore_fields === undefined
      ? {}
      : { ignore_fields: doc.ignore_fields.map((e) => text(ignoreFieldGlob(e))) }),
    ...ignoreFieldWarnings(ctx, doc.ignore_fields),
    ...(doc.moved === undefined
      ? {}
      : {
          moved: doc.moved.map((m, i) => ({
            from: text(m.from),
            to: text(m.to),
            source: at(ctx, ["moved", i]),
            toSource: at(ctx, ["moved", i, "to"], "value"),
            path: dottedPath(["moved", i, "to"]),
          })),
        }),
    ...(doc.delete_unknown === undefined
      ? {}
      : {
          delete_unknown: doc.delete_unknown.map((e, i) => ({
            address: text(e.address),
            id: text(e.id),
            source: at(ctx, ["delete_unknown", i]),
          })),
        }),
    ...(doc.guards === undefined ? {} : { guards: buildGuards(doc.guards, at(ctx, ["guards"])) }),
  } as DesiredOrg;
  // Issue 45: `guards:` once per org, like an address (a second file's is an error).
  if (doc.guards !== undefined) declare(ctx, "guards", ["guards"]);
  const policies =
    doc.policies === undefined && doc.exceptions === undefined
      ? undefined
      : buildPolicies(doc, (path) => at(ctx, path));
  return { org, declarations: ctx.declarations, ...(policies === undefined ? {} : { policies }) };
};

/**
 * Merge files: one DesiredOrg per org slug, in first-seen order.
 *
 * Decision: files of one org merge item by item — contexts (and the org_settings block)
 * must each be declared in one file only, a project's keys (settings, env, webhooks, …) too
 * (issue 19: a project may be split across files where the parts do not overlap); a second
 * declaration is an error at the second place naming the first. `ignore` lists are concatenated. A
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
    for (const d of limitsAcrossFiles(prev, org)) diagnostics.push(d);
    orgs.set(org.slug, mergeOrgDeclarations(prev, org, "first"));
  }
  const policies = mergePolicies(built.flatMap((b) => (b.policies ? [b.policies] : [])));
  for (const d of policies.diagnostics) diagnostics.push(d);
  return {
    config: {
      orgs: [...orgs.values()],
      files,
      ...(policies.set === undefined ? {} : { policies: policies.set }),
    },
    diagnostics,
  };
};

/** A desired collection's items with their keys (a list's index, a map's key), or undefined. */
const desiredEntries = (value: unknown): [string, unknown][] | undefined => {
  if (Array.isArray(value)) return value.map((item, i) => [String(i), item]);
  if (value instanceof Map) return [...value.entries()].map(([k, item]) => [String(k), item]);
  return undefined;
};

/**
 * The per-org limits (a kind's `config.limit`, src/kinds/contract.ts) across the files of
 * one org: `prev` is the org as its earlier files declare it, `org` the next file's. The
 * first item of `org` past the limit is reported, with the kind's message and code.
 *
 * Only the kinds under the org: a parent below it (a project's keys, a context) is declared
 * in one file (a second is `duplicate_address`), so its items are never summed across files.
 */
export const limitsAcrossFiles = (
  prev: DesiredOrg,
  org: DesiredOrg,
  kinds = childKinds("org"),
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  for (const kind of kinds) {
    const { limit, yamlKey } = kind.config;
    if (limit === undefined) continue;
    const before = desiredEntries((prev as unknown as Record<string, unknown>)[yamlKey]);
    const here = desiredEntries((org as unknown as Record<string, unknown>)[yamlKey]);
    if (before === undefined || here === undefined) continue;
    const total = before.length + here.length;
    const index = firstPastLimit(limit.max, total, before.length);
    if (index === undefined) continue;
    const [key, item] = here[index] ?? [];
    const at = (item as { readonly source?: SourceLocation } | undefined)?.source;
    if (at === undefined) continue;
    out.push({
      file: at.file,
      line: at.line,
      col: at.col,
      path: `${yamlKey}.${key}`,
      code: limitCode(yamlKey),
      message: limit.message(total, before.length),
    });
  }
  return out;
};
