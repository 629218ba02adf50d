/**
 * Plan-time config errors (issue 20): a declared project, or a reference to a project by
 * slug (a kind's `references` to the walk's parent: a restriction's `project:`), whose slug
 * the service does not have. These are mistakes in the config — usually a typo — so
 * they are reported like validation errors, every one at once, with FILE:LINE:COL and the
 * closest slug of the org ("did you mean"), instead of one bare "absent or not visible" for
 * the first. Only slugs are checked: a restriction may name a project by id (design.md §1),
 * and an id is taken as it is.
 *
 * The search for candidates is pure (`findUnknownProjects`, `unknownProjectDiagnostics`);
 * `checkProjectReferences` is the I/O step: one listing of the org's projects, made only
 * when something is already wrong, so a correct config never pays for it.
 */
import type { ReadOnlyApi } from "../api/types.js";
import type { ConfigDiagnostic } from "../config/diagnostic.js";
import { formatDiagnostic, sortDiagnostics } from "../config/diagnostic.js";
import { closest } from "../config/suggest.js";
import { type SourceLocation, WaybillError } from "../core/errors.js";
import type { ProjectAttributes } from "../core/wire.js";
import { listedProjectSlug } from "../kinds/listing.js";
import { type Kinds, referencesWritten } from "../kinds/references.js";
import { ALL_KINDS, KINDS } from "../kinds/registry.js";
import { makeIgnoreMatcher } from "../live/resolve.js";
import { addr, ancestorsOf } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";

export interface UnknownProjectRef {
  readonly org: string;
  readonly orgId: string;
  readonly slug: string;
  readonly source: SourceLocation;
  /** Dotted path in the document, as validate prints it. */
  readonly path: string;
}

/**
 * Declared projects, and references to a project by slug (a restriction's), whose slug did
 * not resolve to an id. A
 * declared project that resolved but could not be read (403 on a collection) is not one of
 * them: its slug exists, and the planner reports it as not visible.
 */
export const findUnknownProjects = (
  desired: DesiredConfig,
  live: LiveState,
  kinds: Kinds = ALL_KINDS,
): UnknownProjectRef[] => {
  const refs: UnknownProjectRef[] = [];
  for (const org of desired.orgs) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) continue;
    const known = (slug: string) =>
      liveOrg.projectIds?.has(slug) === true || liveOrg.projects.get(slug)?.status === "found";
    const ignored = makeIgnoreMatcher(org.ignore);
    for (const [slug, p] of org.projects) {
      // Issue 18: a project the config creates (or deletes) may well be absent.
      if (ignored(addr.project(slug)) || known(slug) || p.create === true || p.delete === true) {
        continue;
      }
      refs.push({
        org: org.slug,
        orgId: liveOrg.id,
        slug,
        source: p.source,
        path: `projects.${slug}`,
      });
    }
    // The references the kinds declare to a project (a restriction's `project:`), by slug;
    // one under an ignored address is not checked.
    for (const { written: w } of referencesWritten(org, KINDS.project.type, kinds)) {
      if (w.form === "id" || known(w.value)) continue;
      if (ignored(w.address) || ancestorsOf(w.address).some(ignored)) continue;
      refs.push({
        org: org.slug,
        orgId: liveOrg.id,
        slug: w.value,
        source: w.source,
        path: w.path,
      });
    }
  }
  return refs;
};

/** One diagnostic per reference, with the closest existing slug of its org when there is one. */
export const unknownProjectDiagnostics = (
  refs: readonly UnknownProjectRef[],
  slugsByOrg: ReadonlyMap<string, readonly string[]>,
): ConfigDiagnostic[] =>
  refs.map((ref) => {
    const candidates = (slugsByOrg.get(ref.org) ?? []).filter((s) => s !== ref.slug);
    const guess = closest(ref.slug, candidates);
    return {
      file: ref.source.file,
      line: ref.source.line,
      col: ref.source.col,
      path: ref.path,
      code: "unknown_project",
      message: `no project ${JSON.stringify(ref.slug)} in org ${ref.org} (absent or not visible to this token)${
        guess === undefined
          ? "; check the slug (provider/org/name) and the token's access"
          : `; did you mean ${JSON.stringify(guess)}?`
      }`,
    };
  });

/**
 * The config names things the service does not have (plan time, reported like validation
 * errors). Exit 1; nothing was planned.
 */
export abstract class UnknownReferenceError extends WaybillError {
  readonly diagnostics: readonly ConfigDiagnostic[];

  constructor(what: string, owner: string, diagnostics: readonly ConfigDiagnostic[]) {
    const n = diagnostics.length;
    super(
      `the config names ${n === 1 ? `a ${what}` : `${n} ${what}s`} ${owner} does not have; nothing was planned:\n${diagnostics.map(formatDiagnostic).join("\n")}`,
    );
    this.diagnostics = diagnostics;
  }
}

/** The config names projects the service does not have. */
export class UnknownProjectError extends UnknownReferenceError {
  readonly code = "unknown_project";

  constructor(diagnostics: readonly ConfigDiagnostic[]) {
    super("project", "the service", diagnostics);
  }
}

/**
 * Throw UnknownProjectError when the config names a project slug that did not resolve.
 * Decision: the org's project list for the suggestions is read only then; when that read
 * fails too, the errors are still reported, without suggestions (the listing is a help,
 * not a requirement).
 */
export const checkProjectReferences = async (
  api: ReadOnlyApi,
  desired: DesiredConfig,
  live: LiveState,
): Promise<void> => {
  const refs = findUnknownProjects(desired, live);
  if (refs.length === 0) return;
  const slugsByOrg = new Map<string, readonly string[]>();
  for (const [org, orgId] of new Map(refs.map((r) => [r.org, r.orgId]))) {
    try {
      // spec: api-v3.md Projects: filter[org_id] lists the org's projects.
      const projects = await api.listV3<ProjectAttributes>("/projects", {
        "filter[org_id]": orgId,
      });
      slugsByOrg.set(
        org,
        projects.flatMap((p) => {
          // A project listed without a slug: the one built from the org (issue 40).
          const key =
            p.id === undefined ? undefined : listedProjectSlug(p.attributes, org, orgId, p.id);
          return key === undefined ? [] : [key];
        }),
      );
    } catch {
      slugsByOrg.set(org, []);
    }
  }
  throw new UnknownProjectError(
    sortDiagnostics(unknownProjectDiagnostics(refs, slugsByOrg), desired.files),
  );
};
