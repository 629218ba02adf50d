/**
 * The pure core of `waybill export` (issue 6): a snapshot of the live state → config
 * documents in the config format (design.md §1 "Config format"), the environment variables
 * they need, and warnings. No I/O, no clock: the caller passes what it needs.
 *
 * The output is meant to plan with no changes: every field the planner compares is written
 * as the service holds it, and defaults the planner fills in are left out (design.md §1
 * "Plans": webhook scope `project`, should_verify_tls true, is_enabled true, trigger
 * is_disabled false).
 */

import {
  byString,
  type ConfigContext,
  type ConfigScope,
  type DocMap,
  type DocValue,
  type EnvNameRequest,
  EnvRef,
  type IgnoreEntry,
} from "../kinds/config-doc.js";
import type { ParentName, Within } from "../kinds/contract.js";
import { groupKind, isVcsOrgSlug } from "../kinds/group.js";
import { foundProjects } from "../kinds/listing.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { assignEnvNames, type EnvVarNeed } from "./env-names.js";
import type { ExportSnapshot } from "./snapshot.js";

export type { DocMap, DocValue, IgnoreEntry } from "../kinds/config-doc.js";
export { escapeText, projectShortName } from "../kinds/config-doc.js";

export interface ExportFileDoc {
  /** `org` for the org and its contexts, else the project slug. */
  readonly kind: "org" | "project";
  readonly slug: string;
  /** The document body (org, settings, contexts | projects), placeholders resolved. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly ignore: readonly IgnoreEntry[];
}

export interface ExportResult {
  readonly org: ExportFileDoc;
  readonly projects: readonly ExportFileDoc[];
  /** Sorted by address. */
  readonly envVars: readonly EnvVarNeed[];
  readonly warnings: readonly string[];
}

const isDocMap = (v: DocValue): v is DocMap =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof EnvRef);

/**
 * The generic walk: every kind whose parent is `parent` (in the registry's order, which is
 * the config's member order) writes its collection of the items under `parentId` into
 * `doc` (under `config.yamlKey`, in `config.shape`; `toConfig`); a written item that is itself a parent (a context, a
 * pipeline) gets its children's collections right away, so `ignore` keeps the output order.
 *
 * Decision: every collection of an exported parent that was read is written, `{}` (or `[]`)
 * when the service has none, so the exported config is authoritative from the start (design.md §1
 * "Ownership"): an item added by hand later shows up in plan instead of being silently
 * unmanaged.
 */
const writeChildren = (
  parent: ParentName,
  live: unknown,
  within: Within,
  scope: ConfigScope,
  doc: DocMap,
  ctx: ConfigContext,
  ignore: IgnoreEntry[],
): void => {
  for (const kind of ALL_KINDS) {
    // Projects are written by the export itself (their children are the kinds).
    if (kind.parent !== parent || kind.config.builtByLoader) continue;
    const isParent = ALL_KINDS.some((k) => k.parent === kind.type);
    const map: DocMap = {};
    const list: DocValue[] = [];
    let single: DocValue | undefined;
    const read = kind.collection.liveIn(live as never, within);
    // Issue 41: a collection that was not read (pull reads a context's restrictions only
    // where the config declares them) is not written: `restrictions: []` said "none", and
    // the next plan deleted the all-members restriction the service gives a new context.
    // Left out, the collection is not managed (design.md §1 "Ownership"), which is true.
    if (read === undefined) continue;
    const items = read;
    for (const entry of kind.toConfig(items, scope, ctx)) {
      if ("ignored" in entry) {
        ignore.push(entry.ignored);
        continue;
      }
      if (isParent) {
        if (!isDocMap(entry.doc)) throw new Error(`export: a ${kind.type} document is a map`);
        const inner: ConfigScope = { ...scope, parent: entry.written };
        writeChildren(kind.type as ParentName, entry.item, within, inner, entry.doc, ctx, ignore);
      }
      if (kind.config.shape === "map") map[entry.written] = entry.doc;
      else if (kind.config.shape === "list") list.push(entry.doc);
      else single = entry.doc;
    }
    const form = kind.config.shape;
    // A singleton that was not read (none listed) is left out, not written empty.
    if (form === "singleton" && single === undefined) continue;
    doc[kind.config.yamlKey] = form === "map" ? map : form === "list" ? list : (single ?? {});
  }
};

// ---------------------------------------------------------------------------------------
// Whole export
// ---------------------------------------------------------------------------------------

const resolveRefs = (v: DocValue, names: ReadonlyMap<EnvNameRequest, string>): unknown => {
  if (v instanceof EnvRef) return `\${env:${names.get(v.request)}}`;
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, names));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = resolveRefs(x, names);
    return out;
  }
  return v;
};

/** Build the export of one org and its chosen projects (projects sorted by slug). */
export const buildExport = (
  snapshot: ExportSnapshot,
  options: { readonly inlineUrls?: boolean } = {},
): ExportResult => {
  const requests: EnvNameRequest[] = [];
  const ctx: ConfigContext = {
    inlineUrls: options.inlineUrls === true,
    env: (parts, address, what) => {
      const request = { parts, address, what };
      requests.push(request);
      return new EnvRef(request);
    },
  };
  const orgIgnore: IgnoreEntry[] = [];
  const org: DocMap = { org: snapshot.slug };
  writeChildren("org", snapshot, { org: snapshot }, {}, org, ctx, orgIgnore);
  // A listed project no config key can name (src/export/read.ts projectKeys) is not
  // exported: listed under `ignore` with why, so nothing is lost without a word.
  for (const id of snapshot.unnamedProjects ?? [])
    orgIgnore.push({
      glob: `project["${id}"]`,
      reason:
        "the service lists this project without a slug or a name, so no config key can name it",
    });
  // Issue 28: an org tied to a VCS provider gets its groups from the provider, and the
  // loader refuses `groups:` there (src/config/rules.ts): it is not written.
  if (isVcsOrgSlug(snapshot.slug)) delete org[groupKind.config.yamlKey];
  // Keyed as the snapshot keys them: by slug, or by name where the service gave no slug
  // (src/export/read.ts projectKeys).
  const chosen = [...foundProjects(snapshot)].sort(byString(([key]) => key));
  const projects = chosen.map(([key, p]) => {
    const ignore: IgnoreEntry[] = [];
    const body: DocMap = {};
    const within: Within = { org: snapshot, project: p };
    writeChildren("project", p, within, { project: key }, body, ctx, ignore);
    return { slug: key, body, ignore };
  });

  const { needs: envVars, nameOf: names } = assignEnvNames(requests);

  const warnings = [...orgIgnore, ...projects.flatMap((p) => p.ignore)].map((i) =>
    i.commentOnly === true
      ? `${i.glob} is not exported (${i.reason}); it is written as a comment, and plan lists it as unknown`
      : `${i.glob} is not exported (${i.reason}); it is listed under ignore so plan leaves it alone`,
  );
  return {
    org: {
      kind: "org",
      slug: snapshot.slug,
      body: resolveRefs(org, names) as Record<string, unknown>,
      ignore: orgIgnore,
    },
    projects: projects.map((p) => ({
      kind: "project",
      slug: p.slug,
      body: {
        org: snapshot.slug,
        projects: { [p.slug]: resolveRefs(p.body, names) },
      },
      ignore: p.ignore,
    })),
    envVars,
    warnings,
  };
};
