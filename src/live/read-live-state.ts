/**
 * Read the live state of what the config declares (design.md §1 "Ownership", issue 4):
 * only the collections the YAML declares are read, every page or an error (the client's
 * `listV3` never returns a partial list), all reads in parallel by dependency level (the
 * client has its own concurrency limiter), and no read is repeated.
 *
 * Dependency levels, per org:
 *   1. the org slug → id;
 *   2. org settings, the org's contexts, project slugs → ids (all at once);
 *   3. per context: env vars, restrictions; per found project: settings, env vars,
 *      webhooks, pipelines + triggers (each chain starts as soon as its parent is known —
 *      as soon as the page of the org listing that names it arrives, src/live/paged-list.ts);
 *   4. project ids that references name (a restriction's) and that no referenced slug
 *      resolved → `GET /projects/{id}` (src/live/referred-names.ts), once the org is read.
 *
 * Issue 16: the reader is the walk only (org → contexts / projects → their collections, the
 * levels above, a project's "not visible", the slug resolution). What is read under each
 * parent, when, how, and where it goes in the live tree is each kind's (`list`, `livePlace`
 * in src/kinds/contract.ts), so a kind added to the registry is read without a change here.
 */

import { stoppableReads } from "../api/fail-fast.js";
import type { ReadOnlyApi } from "../api/types.js";
import { LiveReadError } from "../core/errors.js";
import type { OrgAttributes, ProjectAttributes, V3Resource } from "../core/wire.js";
import type { ListScope } from "../kinds/contract.js";
import { listedProjectSlug } from "../kinds/listing.js";
import { isProjectName } from "../kinds/project.js";
import { namedReferences, namesWritten, referencesWritten } from "../kinds/references.js";
import { KINDS } from "../kinds/registry.js";
import { isLockContextName } from "../lock/claim.js";
import { holdsNothing } from "../lock/claim-content.js";
import { addr, type ResourceType } from "../model/address.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredOrg,
  DesiredProject,
} from "../model/desired.js";
import type { LiveContext, LiveOrg, LiveProject, LiveState, NotVisible } from "../model/live.js";
import { ConcurrentChangeError, OrgNotVisibleError } from "./errors.js";
import { consistentLists } from "./paged-list.js";
import { type ProgressCallback, withProgress } from "./progress.js";
import { type ReadWindow, readWindow } from "./read-window.js";
import { lookUpReferredNames } from "./referred-names.js";
import {
  chooseProjectLookup,
  httpStatusOf,
  isNotVisible,
  makeIgnoreMatcher,
  notVisibleReason,
} from "./resolve.js";
import { markProjectSynthetic, probeSynthetic, undeclaredPipelines } from "./synthetic.js";
import { isWalkedParent, kindsUnder, mergeParts } from "./walk.js";

export interface ReadLiveOptions {
  /** Called as reads start and end: "Reading live state… done/total". */
  readonly onProgress?: ProgressCallback;
  /**
   * Called with each declared project as soon as its own reads are done, with the object the
   * live state will hold (issue 22: the planner plans it while the rest is read). Its errors
   * are ignored: it is an optimisation, never a step of the read.
   */
  readonly onProject?: (
    org: string,
    orgId: string,
    key: string,
    project: LiveProject | NotVisible,
  ) => void;
  /**
   * A scoped read (src/live/scoped-read.ts): whether a live parent found by a listing (a
   * context) is read beyond that listing. Absent: every one the config manages is.
   */
  readonly readsUnder?: (org: string, address: string) => boolean;
  /**
   * Pipeline ids already probed (src/live/synthetic.ts) → synthetic or not: an id's answer
   * never changes, so apply's re-read under the lock reuses the first read's. Filled in.
   */
  readonly probed?: Map<string, boolean>;
}

/** What one org's declarations need read (several files may declare the same org). */
interface OrgNeeds {
  readonly slug: string;
  /** The org-level collections some declaration has read (`livePlace.readFor`). */
  readonly orgReads: ReadonlySet<ResourceType>;
  readonly contextsByName: ReadonlyMap<string, DesiredContext>;
  readonly contextsById: ReadonlyMap<string, DesiredContext>;
  readonly projects: ReadonlyMap<string, DesiredProject>;
  /** Declared project slugs plus slugs named by project restrictions. */
  readonly referencedSlugs: readonly string[];
  readonly isIgnored: (address: string) => boolean;
  /** A listed parent this is false for is not read further (a scoped read). */
  readonly readsUnder: (address: string) => boolean;
  /** Whether a pipeline is the synthetic OAuth one (memoised by `ReadLiveOptions.probed`). */
  readonly probe: (api: ReadOnlyApi, pipelineId: string) => Promise<boolean>;
}

/**
 * Decision: several `org:` entries with the same slug (a folder config split over files) are
 * read once; their declarations are merged (a collection declared in any file is read).
 */
const orgNeeds = (
  orgs: readonly DesiredOrg[],
  { readsUnder, probed }: ReadLiveOptions,
): OrgNeeds[] => {
  const probe = async (api: ReadOnlyApi, pipelineId: string): Promise<boolean> => {
    const known = probed?.get(pipelineId);
    if (known !== undefined) return known;
    const answer = await probeSynthetic(api, pipelineId);
    probed?.set(pipelineId, answer);
    return answer;
  };
  const bySlug = new Map<string, DesiredOrg[]>();
  for (const org of orgs) {
    const decls = bySlug.get(org.slug);
    if (decls === undefined) bySlug.set(org.slug, [org]);
    else decls.push(org);
  }
  return [...bySlug.entries()].map(([slug, decls]) => {
    const contextsByName = new Map<string, DesiredContext>();
    const contextsById = new Map<string, DesiredContext>();
    const projects = new Map<string, DesiredProject>();
    const referenced = new Set<string>();
    for (const org of decls) {
      for (const ctx of org.contexts?.values() ?? []) {
        contextsByName.set(ctx.name, ctx);
        if (ctx.id !== undefined) contextsById.set(ctx.id, ctx);
      }
      // Project slugs the config's references write (a restriction's `project:`) are
      // resolved with the declared ones; an id is taken as it is.
      for (const { written } of referencesWritten(org, KINDS.project.type)) {
        if (written.form !== "id") referenced.add(written.value);
      }
      const ignored = makeIgnoreMatcher(org.ignore);
      for (const [projectSlug, project] of org.projects) {
        // A declared project that `ignore` excludes is not planned (src/plan), so nothing of
        // it is read.
        if (ignored(addr.project(projectSlug))) continue;
        projects.set(projectSlug, project);
        referenced.add(projectSlug);
      }
    }
    return {
      slug,
      orgReads: new Set(
        kindsUnder("org")
          // A kind is also read when a reference names one of its items by name
          // (src/kinds/references.ts): the name is resolved through its live items.
          .filter(({ kind, place }) =>
            decls.some((o) => place.readFor(o) || namesWritten(o, kind.type)),
          )
          .map(({ kind }) => kind.type),
      ),
      contextsByName,
      contextsById,
      projects,
      referencedSlugs: [...referenced],
      isIgnored: makeIgnoreMatcher(decls.flatMap((o) => o.ignore)),
      readsUnder: readsUnder === undefined ? () => true : (address) => readsUnder(slug, address),
      probe,
    };
  });
};

export const readLiveState = async (
  api: ReadOnlyApi,
  desired: DesiredConfig,
  options: ReadLiveOptions = {},
): Promise<LiveState> => {
  // Issue 7: once the read has failed, stop the reads still in flight (an endless listing
  // would otherwise run to its page bound after the error that decided the command).
  const reads = stoppableReads(api);
  const tracked = consistentLists(withProgress(reads.api, options.onProgress));
  try {
    const orgs = await Promise.all(
      orgNeeds(desired.orgs, options).map((needs) => readOrg(tracked, needs, options.onProject)),
    );
    return { orgs };
  } catch (err) {
    reads.stop();
    throw err;
  }
};

const resolveOrg = async (api: ReadOnlyApi, slug: string): Promise<V3Resource<OrgAttributes>> => {
  // spec: api-v3.md Orgs: "with filter[slug] one org is resolved (no match gives an empty
  // collection, not 404)".
  const found = await api.listV3<OrgAttributes>("/orgs", { "filter[slug]": slug });
  const org =
    found.find((o) => o.attributes.slug === slug) ?? (found.length === 1 ? found[0] : undefined);
  if (!org?.id) {
    throw new OrgNotVisibleError(slug, `GET /api/v3/orgs?filter[slug]=${slug} returned no org`);
  }
  return org;
};

const readOrg = async (
  api: ReadOnlyApi,
  needs: OrgNeeds,
  onProject?: ReadLiveOptions["onProject"],
): Promise<LiveOrg> => {
  const org = await resolveOrg(api, needs.slug);
  const orgId = org.id as string;
  const scope: ListScope = { org_id: orgId };
  // Projects and contexts share one window: at most 64 parents read at once (read-window.ts).
  const window = readWindow();

  const orgPartsP = Promise.all(
    kindsUnder("org")
      .filter(({ kind }) => needs.orgReads.has(kind.type) && !isWalkedParent(kind.type))
      .map(async ({ kind, place }) => place.store(await kind.list(api, scope))),
  );
  // Each slug's promise settles on its own, so a project's reads start as soon as its own
  // id is known, not when the slowest slug is.
  const resolving = resolveProjectSlugs(api, needs.slug, orgId, needs.referencedSlugs);
  const projectIdsP = Promise.all(
    [...resolving].map(async ([slug, r]) => [slug, await r] as const),
  ).then((entries) => {
    const ids = new Map<string, string>();
    for (const [slug, r] of entries) if (r.status === "found") ids.set(slug, r.id);
    return ids;
  });
  const contextsP = needs.orgReads.has(KINDS.context.type)
    ? readContexts(api, orgId, needs, window)
    : Promise.resolve(undefined);
  const readDeclaredProject = async (
    slug: string,
    project: DesiredProject,
  ): Promise<[string, LiveProject | NotVisible]> => {
    const r = await (resolving.get(slug) ?? Promise.resolve(undefined));
    if (r === undefined || r.status === "not_visible") {
      return [slug, r ?? { status: "not_visible", reason: `project ${slug} not resolved` }];
    }
    // A project keyed by name (issue 18) is read and planned under its key; the V2
    // routes take its slug.
    const readAt = (at: { id: string; slug?: string }) =>
      window(() => readProject(api, orgId, at.id, at.slug ?? slug, project, needs, slug));
    const read = await readAt(r);
    if (!(read.status === "not_visible" && read.gone === true)) return [slug, read];
    // Issue 42: a collection of the project answered 404: deleted (or moved) since it was
    // looked up? Look it up once more, read it again and plan from what is there; the same
    // id answering 404 again is a project this token cannot see (issue 4), not a change.
    const again = await lookUpAgain(api, needs.slug, orgId, slug);
    if (again.status !== "found") return [slug, again];
    const reread = await readAt(again);
    if (reread.status === "not_visible" && reread.gone === true) {
      if (again.id === r.id) return [slug, withoutGone(reread)];
      throw new ConcurrentChangeError(
        `project ${slug} changed while it was read, twice in a row: its id was ${r.id}, then ${again.id}, and its collections answered 404 each time`,
      );
    }
    return [slug, reread];
  };
  const projectsP = Promise.all(
    [...needs.projects.entries()].map(
      async ([slug, project]): Promise<[string, LiveProject | NotVisible]> => {
        const entry = await readDeclaredProject(slug, project);
        try {
          onProject?.(needs.slug, orgId, slug, entry[1]);
        } catch {
          // An optimisation only (planning ahead): the read goes on.
        }
        return entry;
      },
    ),
  );
  const [orgParts, projectIds, contextRead, projects] = await Promise.all([
    orgPartsP,
    projectIdsP,
    contextsP,
    projectsP,
  ]);

  const read: LiveOrg = {
    status: "found",
    id: orgId,
    slug: needs.slug,
    ...(mergeParts(orgParts) as Partial<LiveOrg>),
    ...(contextRead !== undefined
      ? { contexts: contextRead.contexts, lockNames: contextRead.lockNames }
      : {}),
    projects: new Map(projects),
    projectIds,
  };
  // Issue 17: references by id are given the referred item's name where it was read: a
  // project's slug from the walk's look-ups (the slugs the config writes), else read by
  // its id (src/live/referred-names.ts: one `GET /projects/{id}` per id nobody named).
  const slugById = new Map<string, string>();
  for (const [slug, id] of projectIds) slugById.set(id, slug);
  const known = await lookUpReferredNames(api, read, new Map([[KINDS.project.type, slugById]]));
  return namedReferences(read, undefined, known);
};

// ---------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------

type Resolved =
  | { readonly status: "found"; readonly id: string; readonly slug?: string }
  | NotVisible;

/**
 * Resolve project slugs to ids, by slug look-ups or one org listing (see resolve.ts): one
 * promise per slug (slug look-ups settle one by one; a listing settles them all at once).
 */
const resolveProjectSlugs = (
  api: ReadOnlyApi,
  orgSlug: string,
  orgId: string,
  slugs: readonly string[],
): Map<string, Promise<Resolved>> => {
  if (chooseProjectLookup(slugs.length) === "by_slug") {
    return new Map(
      slugs.map((slug) => [
        slug,
        isProjectName(slug) ? resolveOneName(api, orgSlug, orgId, slug) : resolveOneSlug(api, slug),
      ]),
    );
  }
  // spec: api-v3.md Projects: filter[org_id] alone; page[limit] max 50. Each slug settles as
  // soon as the page that lists it arrives, so its project's reads overlap the next pages
  // (issue 8); slugs no page listed settle as not visible after the last page.
  const what = `GET /api/v3/projects?filter[org_id]=${orgId}`;
  const pending = new Map<
    string,
    { resolve: (r: Resolved) => void; reject: (err: unknown) => void }
  >();
  const promises = new Map(
    slugs.map((slug) => [
      slug,
      new Promise<Resolved>((resolve, reject) => pending.set(slug, { resolve, reject })),
    ]),
  );
  api
    .listV3<ProjectAttributes>(
      "/projects",
      { "filter[org_id]": orgId },
      {
        onPage: (items) => {
          for (const p of items) {
            if (!p.id) continue;
            // docs/spec-notes.md "Reading the real service": a project listed without a
            // slug goes by the one built from the org (src/kinds/listing.ts).
            const slug = listedProjectSlug(p.attributes, orgSlug, orgId, p.id);
            // Issue 18: a key without `/` is the project's name.
            for (const key of [slug, p.attributes.name]) {
              const waiting = key === undefined ? undefined : pending.get(key);
              // Decision: a slug listed twice (the org changed between pages) keeps the id
              // of its first listing: its reads have already started with that id.
              if (key !== undefined && waiting) {
                pending.delete(key);
                waiting.resolve({ status: "found", id: p.id, ...(slug ? { slug } : {}) });
              }
            }
          }
        },
      },
    )
    .then(
      (listed) => {
        for (const [slug, waiting] of pending) {
          waiting.resolve({
            status: "not_visible",
            absent: true,
            reason: `${what} lists no project ${slug} (${listed.length} listed)`,
          });
        }
      },
      (err: unknown) => {
        for (const waiting of pending.values()) waiting.reject(err);
      },
    );
  return promises;
};

const resolveOneSlug = async (api: ReadOnlyApi, slug: string): Promise<Resolved> => {
  const what = `GET /api/v3/projects?filter[slug]=${slug}`;
  try {
    // spec: api-v3.md Projects, rule 2: filter[slug] must be the only filter;
    // rule 6: a slug matching no project is an empty collection.
    const found = await api.listV3<ProjectAttributes>("/projects", { "filter[slug]": slug });
    const p =
      found.find((x) => x.attributes.slug === slug) ?? (found.length === 1 ? found[0] : undefined);
    if (!p?.id) {
      return { status: "not_visible", absent: true, reason: `${what} returned no project` };
    }
    return { status: "found", id: p.id, slug: p.attributes.slug };
  } catch (err) {
    if (isNotVisible(err)) return { status: "not_visible", reason: notVisibleReason(what, err) };
    throw err;
  }
};

/**
 * Issue 18: a project key without `/` is its name in the org (standalone orgs, whose slugs
 * hold ids unknown before creation). spec: api-v3.md Projects: `filter[name]` is a
 * case-insensitive search combined with `filter[org_id]`; Waybill keeps the exact matches.
 * Two projects of one name are an error (which one the config means is unknown).
 */
const resolveOneName = async (
  api: ReadOnlyApi,
  orgSlug: string,
  orgId: string,
  name: string,
): Promise<Resolved> => {
  const what = `GET /api/v3/projects?filter[org_id]=${orgId}&filter[name]=${name}`;
  try {
    const found = (
      await api.listV3<ProjectAttributes>("/projects", {
        "filter[org_id]": orgId,
        "filter[name]": name,
      })
    ).filter((p) => p.attributes.name === name);
    if (found.length > 1) {
      throw new LiveReadError(
        `${what} lists ${found.length} projects named ${JSON.stringify(name)}; name the project by its slug instead`,
      );
    }
    const p = found[0];
    if (!p?.id)
      return { status: "not_visible", absent: true, reason: `${what} lists no such project` };
    // Its V2 routes take the slug built from the org when the service gives none (issue 40:
    // never one built from the config's key).
    const slug = listedProjectSlug(p.attributes, orgSlug, orgId, p.id);
    return { status: "found", id: p.id, ...(slug === undefined ? {} : { slug }) };
  } catch (err) {
    if (isNotVisible(err)) return { status: "not_visible", reason: notVisibleReason(what, err) };
    throw err;
  }
};

/**
 * Read one declared project's declared collections, each by its kind (`livePlace.readFor`
 * says which). A 403/404 on any of them makes the project "not visible" (issue 4: reported,
 * never planned as a create over something that may exist); any other failure rejects the
 * whole read.
 */
const readProject = async (
  api: ReadOnlyApi,
  orgId: string,
  id: string,
  slug: string,
  desired: DesiredProject,
  needs: Pick<OrgNeeds, "isIgnored" | "probe">,
  key: string = slug,
): Promise<LiveProject | GoneOrHidden> => {
  // The slug too: the V2 routes take it (project env vars' last four).
  const scope: ListScope = { org_id: orgId, project_id: id, project_slug: slug };
  const parts = await Promise.all(
    kindsUnder("project")
      .filter(({ place }) => place.readFor(desired))
      .map(async ({ kind, place }) => {
        try {
          return place.store(await kind.list(api, scope));
        } catch (err) {
          if (!isNotVisible(err)) throw err;
          // The API error names the method, route and status; this names the collection.
          const what = `the ${kind.type} listing of project ${slug}`;
          const hidden: GoneOrHidden = {
            status: "not_visible",
            reason: notVisibleReason(what, err),
            collection: kind.type,
            ...(isGone(err) ? { gone: true } : {}),
          };
          return hidden;
        }
      }),
  );
  const read: Exclude<(typeof parts)[number], NotVisible>[] = [];
  for (const part of parts) {
    if (isNotVisibleEntry(part)) return part;
    read.push(part);
  }
  const project: LiveProject = { status: "found", id, slug, ...mergeParts(read) };
  // Issue 22: the pipelines a plan would delete are probed now, while other projects are
  // still being read (src/live/synthetic.ts undeclaredPipelines); `ignore`d ones never are.
  const toProbe = undeclaredPipelines(project, desired).filter((pid) => {
    const name = project.pipelines?.find((p) => p.id === pid)?.name ?? "";
    return !needs.isIgnored(addr.pipeline(key, name));
  });
  if (toProbe.length === 0) return project;
  const probed = await Promise.all(
    toProbe.map(async (pid) => ((await needs.probe(api, pid)) ? [pid] : [])),
  );
  return markProjectSynthetic(project, new Set(probed.flat()));
};

/** Not visible; `gone` when a collection answered 404 (deleted since the look-up?). */
type GoneOrHidden = NotVisible & { readonly gone?: true };

const withoutGone = ({ gone: _, ...hidden }: GoneOrHidden): NotVisible => hidden;

/** Issue 42: one project slug (or name) looked up again, alone. */
const lookUpAgain = (
  api: ReadOnlyApi,
  orgSlug: string,
  orgId: string,
  slug: string,
): Promise<Resolved> =>
  isProjectName(slug) ? resolveOneName(api, orgSlug, orgId, slug) : resolveOneSlug(api, slug);

const isNotVisibleEntry = (v: unknown): v is NotVisible =>
  typeof v === "object" && v !== null && (v as { status?: unknown }).status === "not_visible";

// ---------------------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------------------

/**
 * Which live context a declaration manages: the pinned one when the declaration has an
 * `id:`, else every live context of that exact name (the planner reports an ambiguity).
 */
const declarationFor = (ctx: LiveContext, needs: OrgNeeds): DesiredContext | undefined => {
  const pinned = needs.contextsById.get(ctx.id);
  if (pinned) return pinned;
  const byName = needs.contextsByName.get(ctx.name);
  if (byName && (byName.id === undefined || byName.id === ctx.id)) return byName;
  return undefined;
};

/** A context read, or gone between its listing and its collections' reads (a 404). */
type ContextRead = LiveContext | { readonly vanished: LiveContext };

const isVanished = (r: ContextRead): r is { readonly vanished: LiveContext } => "vanished" in r;

/**
 * Issue 42: a 404 on a listed parent's collection means the parent was deleted after the
 * listing named it (another run, or a person, writes while we read): spec: api-v3.md Errors
 * rule 5. Only a 404 (a 403 is a refusal, not a change).
 */
const isGone = (err: unknown): boolean => httpStatusOf(err) === 404;

const readContexts = async (
  api: ReadOnlyApi,
  orgId: string,
  needs: OrgNeeds,
  window: ReadWindow,
): Promise<{ contexts: LiveContext[]; lockNames: string[] }> => {
  // Reads that succeeded are kept across the re-list: a context listed again is not read
  // twice. A claim's verdict is kept the same way.
  const reads = new Map<string, Promise<ContextRead>>();
  const claims = new Map<string, Promise<ClaimVerdict>>();
  const first = await listAndReadContexts(api, orgId, needs, window, reads, claims);
  if (first.vanished.length === 0) return first.result;
  // Issue 42: a context listed a moment ago is gone: the collection changed while it was
  // read. Decision: list it once more and plan from what is there (a vanished context that
  // is no longer listed is simply not there; one still listed is read again).
  for (const v of first.vanished) reads.delete(v.id);
  const second = await listAndReadContexts(api, orgId, needs, window, reads, claims);
  if (second.vanished.length === 0) return second.result;
  throw new ConcurrentChangeError(
    `the contexts of org ${needs.slug} changed while they were read, twice in a row: ${second.vanished
      .map((c) => `context ${c.name} (${c.id}) was listed, then its collections answered 404`)
      .join("; ")}`,
  );
};

/**
 * What a lock-named context is: a claim (empty), data (holds something), or gone (its content
 * answered 404: a claim released since the listing; never needed for the plan).
 */
type ClaimVerdict = "claim" | "data" | "gone";

const listAndReadContexts = async (
  api: ReadOnlyApi,
  orgId: string,
  needs: OrgNeeds,
  window: ReadWindow,
  byId: Map<string, Promise<ContextRead>>,
  claims: Map<string, Promise<ClaimVerdict>>,
): Promise<{
  result: { contexts: LiveContext[]; lockNames: string[] };
  vanished: LiveContext[];
}> => {
  // The context kind's listing matches no name (spec: api-v3.md Contexts: filter[name] is a
  // substring search): exact names are matched here, on the full list (design.md §1
  // "Identity"). Each context's reads start as soon as its page arrives (issue 8).
  // Issue 15: the listing's reads start as its items first arrive; the contexts returned are
  // those of the confirmed listing (src/live/paged-list.ts), each read once.
  const start = (c: LiveContext): Promise<ContextRead> => {
    let read = byId.get(c.id);
    if (read === undefined) {
      read = window(() =>
        readContext(api, orgId, c, needs).catch((err: unknown): ContextRead => {
          if (isGone(err)) return { vanished: c };
          throw err;
        }),
      );
      // Awaited below; if a later page fails first, this keeps an early read's failure from
      // being an unhandled rejection (the listing's error is the one reported).
      read.catch(() => undefined);
      byId.set(c.id, read);
    }
    return read;
  };
  // Issue 15: the org lock's claims (src/lock/claim.ts) are contexts too, but never the
  // config's: not read, not planned, never deleted by an authoritative `contexts:`. Issue
  // 29: only an empty context in the exact format is a claim; a lock-named context holding
  // env vars or restrictions is the config's business like any other (plan and drift show
  // it), so its content is read first. Issue 42: claims come and go while other runs apply;
  // one whose content answers 404 was released since the listing: it is not there.
  const verdict = (c: LiveContext): Promise<ClaimVerdict> => {
    if (!isLockContextName(c.name)) return Promise.resolve("data");
    let known = claims.get(c.id);
    if (known === undefined) {
      known = holdsNothing(api, orgId, c.id).then(
        (empty): ClaimVerdict => (empty ? "claim" : "data"),
        (err: unknown): ClaimVerdict => {
          if (isGone(err)) return "gone";
          throw err;
        },
      );
      known.catch(() => undefined);
      claims.set(c.id, known);
    }
    return known;
  };
  const startUnlessClaim = (c: LiveContext): void => {
    verdict(c).then(
      (v) => {
        if (v === "data") start(c);
      },
      () => undefined,
    );
  };
  const listed = await KINDS.context.list(
    api,
    { org_id: orgId },
    { onPage: (items) => items.forEach(startUnlessClaim) },
  );
  const judged = await Promise.all(listed.map(async (c) => ({ c, v: await verdict(c) })));
  const read = await Promise.all(judged.filter((j) => j.v === "data").map((j) => start(j.c)));
  return {
    result: {
      contexts: read.filter((r): r is LiveContext => !isVanished(r)),
      lockNames: judged.filter((j) => j.v === "claim").map((j) => j.c.name),
    },
    vanished: read.filter(isVanished).map((r) => r.vanished),
  };
};

/** One context's collections, each by its kind (`livePlace.readFor` says which). */
const readContext = async (
  api: ReadOnlyApi,
  orgId: string,
  c: LiveContext,
  needs: OrgNeeds,
): Promise<LiveContext> => {
  const decl = declarationFor(c, needs);
  // A context that `ignore` excludes is not planned: nothing of it is read; nor is one a
  // scoped read leaves out (src/live/scoped-read.ts).
  const at = addr.context(c.name);
  if (needs.isIgnored(at) || !needs.readsUnder(at)) return { id: c.id, name: c.name };
  // Restrictions are listed without project slugs (not known yet at this level): their
  // keys are given the slugs once the org is read (namedReferences).
  const scope: ListScope = { org_id: orgId, context_id: c.id };
  const parts = await Promise.all(
    kindsUnder("context")
      .filter(({ place }) => place.readFor(decl))
      .map(async ({ kind, place }) => place.store(await kind.list(api, scope))),
  );
  return { id: c.id, name: c.name, ...mergeParts(parts) };
};
