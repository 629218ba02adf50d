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
 *   4. project ids met in restrictions that no referenced slug resolved → `GET /projects/{id}`.
 */
import { stoppableReads } from "../api/fail-fast.js";
import type { ReadOnlyApi } from "../api/types.js";
import { LiveReadError } from "../core/errors.js";
import type {
  ContextAttributes,
  ContextEnvVarAttributes,
  ContextRestrictionAttributes,
  OrgAttributes,
  OrgSettingsAttributes,
  PipelineAttributes,
  ProjectAttributes,
  ProjectEnvVarAttributes,
  ProjectSettingsAttributes,
  TriggerAttributes,
  V2ProjectEnvVar,
  V3One,
  V3Resource,
  WebhookAttributes,
} from "../core/wire.js";
import { restrictionKeyValue } from "../kinds/context-restriction.js";
import { lastFourFromMasked } from "../kinds/project-env-var.js";
import { toLiveTrigger } from "../kinds/trigger.js";
import { isLockContextName } from "../lock/claim.js";
import { addr } from "../model/address.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredOrg,
  DesiredProject,
} from "../model/desired.js";
import type {
  LiveContext,
  LiveEnvVar,
  LiveOrg,
  LivePipeline,
  LiveProject,
  LiveRestriction,
  LiveState,
  LiveTrigger,
  NotVisible,
} from "../model/live.js";
import { OrgNotVisibleError } from "./errors.js";
import { consistentLists } from "./paged-list.js";
import { type ProgressCallback, withProgress } from "./progress.js";
import {
  chooseProjectLookup,
  isNotVisible,
  isUuid,
  makeIgnoreMatcher,
  notVisibleReason,
} from "./resolve.js";

export interface ReadLiveOptions {
  /** Called as reads start and end: "Reading live state… done/total". */
  readonly onProgress?: ProgressCallback;
}

/** What one org's declarations need read (several files may declare the same org). */
interface OrgNeeds {
  readonly slug: string;
  readonly settings: boolean;
  /** `contexts` declared somewhere: the org's contexts are read, every page. */
  readonly contexts: boolean;
  readonly contextsByName: ReadonlyMap<string, DesiredContext>;
  readonly contextsById: ReadonlyMap<string, DesiredContext>;
  readonly projects: ReadonlyMap<string, DesiredProject>;
  /** Declared project slugs plus slugs named by project restrictions. */
  readonly referencedSlugs: readonly string[];
  readonly isIgnored: (address: string) => boolean;
}

/**
 * Decision: several `org:` entries with the same slug (a folder config split over files) are
 * read once; their declarations are merged (a collection declared in any file is read).
 */
const orgNeeds = (orgs: readonly DesiredOrg[]): OrgNeeds[] => {
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
        for (const r of ctx.restrictions ?? []) {
          if (r.type === "project" && !isUuid(r.project)) referenced.add(r.project);
        }
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
      // Also read with contexts: the org setting is_context_group_restriction_required
      // decides whether a new context may be planned without a group restriction (src/plan).
      settings: decls.some((o) => o.settings !== undefined || o.contexts !== undefined),
      contexts: decls.some((o) => o.contexts !== undefined),
      contextsByName,
      contextsById,
      projects,
      referencedSlugs: [...referenced],
      isIgnored: makeIgnoreMatcher(decls.flatMap((o) => o.ignore)),
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
    const orgs = await Promise.all(orgNeeds(desired.orgs).map((needs) => readOrg(tracked, needs)));
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

const readOrg = async (api: ReadOnlyApi, needs: OrgNeeds): Promise<LiveOrg> => {
  const org = await resolveOrg(api, needs.slug);
  const orgId = org.id as string;

  const settingsP = needs.settings ? readOrgSettings(api, orgId) : Promise.resolve(undefined);
  // Each slug's promise settles on its own, so a project's reads start as soon as its own
  // id is known, not when the slowest slug is.
  const resolving = resolveProjectSlugs(api, orgId, needs.referencedSlugs);
  const projectIdsP = Promise.all(
    [...resolving].map(async ([slug, r]) => [slug, await r] as const),
  ).then((entries) => {
    const ids = new Map<string, string>();
    for (const [slug, r] of entries) if (r.status === "found") ids.set(slug, r.id);
    return ids;
  });
  // Restriction keys need the referenced slugs' ids, not the projects' own reads.
  const contextsP = needs.contexts
    ? Promise.all([readContexts(api, orgId, needs), projectIdsP]).then(async ([raw, ids]) => ({
        contexts: await resolveRestrictionKeys(api, orgId, raw.contexts, ids),
        lockNames: raw.lockNames,
      }))
    : Promise.resolve(undefined);
  const projectsP = Promise.all(
    [...needs.projects.entries()].map(
      async ([slug, project]): Promise<[string, LiveProject | NotVisible]> => {
        const r = await (resolving.get(slug) ?? Promise.resolve(undefined));
        if (r === undefined || r.status === "not_visible") {
          return [slug, r ?? { status: "not_visible", reason: `project ${slug} not resolved` }];
        }
        return [slug, await readProject(api, r.id, slug, project)];
      },
    ),
  );

  const [settings, projectIds, contextRead, projects] = await Promise.all([
    settingsP,
    projectIdsP,
    contextsP,
    projectsP,
  ]);

  return {
    status: "found",
    id: orgId,
    slug: needs.slug,
    ...(settings !== undefined ? { settings } : {}),
    ...(contextRead !== undefined
      ? { contexts: contextRead.contexts, lockNames: contextRead.lockNames }
      : {}),
    projects: new Map(projects),
    projectIds,
  };
};

const readOrgSettings = async (api: ReadOnlyApi, orgId: string): Promise<OrgSettingsAttributes> => {
  // spec: api-v3.md Orgs: GET /orgs/:id/settings is a singleton (no id).
  const body = await api.get<V3One<OrgSettingsAttributes>>("v3", `/orgs/${orgId}/settings`);
  return singletonAttributes(body, `GET /api/v3/orgs/${orgId}/settings`);
};

const singletonAttributes = <A>(body: V3One<A> | undefined, what: string): A => {
  const attributes = body?.data?.attributes;
  if (attributes === undefined || attributes === null || typeof attributes !== "object") {
    throw new LiveReadError(`${what} answered without data.attributes`);
  }
  return attributes;
};

// ---------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------

type Resolved = { readonly status: "found"; readonly id: string } | NotVisible;

/**
 * Resolve project slugs to ids, by slug look-ups or one org listing (see resolve.ts): one
 * promise per slug (slug look-ups settle one by one; a listing settles them all at once).
 */
const resolveProjectSlugs = (
  api: ReadOnlyApi,
  orgId: string,
  slugs: readonly string[],
): Map<string, Promise<Resolved>> => {
  if (chooseProjectLookup(slugs.length) === "by_slug") {
    return new Map(slugs.map((slug) => [slug, resolveOneSlug(api, slug)]));
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
            const waiting = pending.get(p.attributes.slug);
            // Decision: a slug listed twice (the org changed between pages) keeps the id of
            // its first listing: its reads have already started with that id.
            if (p.id && waiting) {
              pending.delete(p.attributes.slug);
              waiting.resolve({ status: "found", id: p.id });
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
    if (!p?.id) return { status: "not_visible", reason: `${what} returned no project` };
    return { status: "found", id: p.id };
  } catch (err) {
    if (isNotVisible(err)) return { status: "not_visible", reason: notVisibleReason(what, err) };
    throw err;
  }
};

/**
 * Read one declared project's declared collections. A 403/404 on any of them makes the
 * project "not visible" (issue 4: reported, never planned as a create over something that
 * may exist); any other failure rejects the whole read.
 */
const readProject = async (
  api: ReadOnlyApi,
  id: string,
  slug: string,
  desired: DesiredProject,
): Promise<LiveProject | NotVisible> => {
  const guard = async <T>(what: string, run: () => Promise<T>): Promise<T | NotVisible> => {
    try {
      return await run();
    } catch (err) {
      if (isNotVisible(err)) return { status: "not_visible", reason: notVisibleReason(what, err) };
      throw err;
    }
  };
  const skip = Promise.resolve(undefined);
  const [settings, env, webhooks, pipelines, triggers] = await Promise.all([
    desired.settings === undefined
      ? skip
      : guard(`GET /api/v3/projects/${id}/settings`, async () =>
          singletonAttributes(
            await api.get<V3One<ProjectSettingsAttributes>>("v3", `/projects/${id}/settings`),
            `GET /api/v3/projects/${id}/settings`,
          ),
        ),
    desired.env === undefined
      ? skip
      : guard(`GET /api/v3/projects/${id}/environment-variables`, () =>
          readProjectEnv(api, id, slug),
        ),
    desired.webhooks === undefined
      ? skip
      : guard(`GET /api/v3/webhooks?filter[project_id]=${id}`, async () =>
          (await api.listV3<WebhookAttributes>("/webhooks", { "filter[project_id]": id })).map(
            (w) => ({ ...w.attributes, id: requireId(w, "webhook") }),
          ),
        ),
    desired.pipelines === undefined
      ? skip
      : guard(`GET /api/v3/pipelines?filter[project_id]=${id}`, async () =>
          (await api.listV3<PipelineAttributes>("/pipelines", { "filter[project_id]": id })).map(
            (p): LivePipeline => ({
              ...p.attributes,
              id: requireId(p, "pipeline"),
              synthetic: false,
            }),
          ),
        ),
    desired.pipelines === undefined
      ? skip
      : guard(`GET /api/v3/triggers?filter[project_id]=${id}`, async () =>
          (await api.listV3<TriggerAttributes>("/triggers", { "filter[project_id]": id })).map(
            toLiveTrigger,
          ),
        ),
  ]);
  for (const r of [settings, env, webhooks, pipelines, triggers]) {
    if (isNotVisibleEntry(r)) return r;
  }
  return {
    status: "found",
    id,
    slug,
    ...(settings !== undefined ? { settings: settings as ProjectSettingsAttributes } : {}),
    ...(env !== undefined ? { env: env as LiveEnvVar[] } : {}),
    ...(webhooks !== undefined ? { webhooks: webhooks as LiveProject["webhooks"] } : {}),
    ...(pipelines !== undefined ? { pipelines: pipelines as LivePipeline[] } : {}),
    ...(triggers !== undefined ? { triggers: triggers as LiveTrigger[] } : {}),
  };
};

const isNotVisibleEntry = (v: unknown): v is NotVisible =>
  typeof v === "object" && v !== null && (v as { status?: unknown }).status === "not_visible";

const requireId = (r: V3Resource<unknown>, kind: string): string => {
  if (!r.id) throw new LiveReadError(`the service listed a ${kind} without an id`);
  return r.id;
};

/**
 * spec: api-v3.md "Project environment variable": V3 does not name the value field. When the
 * V3 items carry no `truncated_value`, the last four characters come from V2's masked value
 * (spec: api-v2-v1.md: `GET /project/{project-slug}/envvar`, `xxxx` plus the last four).
 */
const readProjectEnv = async (
  api: ReadOnlyApi,
  id: string,
  slug: string,
): Promise<LiveEnvVar[]> => {
  const items = await api.listV3<ProjectEnvVarAttributes>(`/projects/${id}/environment-variables`);
  const vars = items.map((i) => i.attributes);
  if (vars.every((v) => v.truncated_value !== undefined)) {
    return vars.map((v) => ({ name: v.name, truncated_value: v.truncated_value }));
  }
  const v2 = await api.listV2<V2ProjectEnvVar>(`/project/${v2Slug(slug)}/envvar`);
  const lastFour = new Map(v2.map((v) => [v.name, lastFourFromMasked(v.value)]));
  return vars.map((v) => {
    const tv = v.truncated_value ?? lastFour.get(v.name);
    return tv === undefined ? { name: v.name } : { name: v.name, truncated_value: tv };
  });
};

/** spec: api-v2-v1.md: the project slug `<vcs>/<org>/<repo>` goes in the path, `/` kept. */
const v2Slug = (slug: string): string => slug.split("/").map(encodeURIComponent).join("/");

// ---------------------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------------------

interface RawContext {
  readonly id: string;
  readonly name: string;
  readonly env?: readonly LiveEnvVar[];
  readonly restrictions?: readonly V3Resource<ContextRestrictionAttributes>[];
}

/**
 * Which live context a declaration manages: the pinned one when the declaration has an
 * `id:`, else every live context of that exact name (the planner reports an ambiguity).
 */
const declarationFor = (
  ctx: { id: string; name: string },
  needs: OrgNeeds,
): DesiredContext | undefined => {
  const pinned = needs.contextsById.get(ctx.id);
  if (pinned) return pinned;
  const byName = needs.contextsByName.get(ctx.name);
  if (byName && (byName.id === undefined || byName.id === ctx.id)) return byName;
  return undefined;
};

const readContexts = async (
  api: ReadOnlyApi,
  orgId: string,
  needs: OrgNeeds,
): Promise<{ contexts: RawContext[]; lockNames: string[] }> => {
  // spec: api-v3.md Contexts: filter[org_id] required; filter[name] is a substring search,
  // so exact names are matched here, on the full list (design.md §1 "Identity"). Each
  // context's reads start as soon as its page arrives (issue 8).
  // Issue 15: the listing's reads start as its items first arrive; the contexts returned are
  // those of the confirmed listing (src/live/paged-list.ts), each read once.
  const byId = new Map<string, Promise<RawContext>>();
  const start = (c: V3Resource<ContextAttributes>): Promise<RawContext> => {
    const id = requireId(c, "context");
    let read = byId.get(id);
    if (read === undefined) {
      read = readContext(api, c, needs);
      // Awaited below; if a later page fails first, this keeps an early read's failure from
      // being an unhandled rejection (the listing's error is the one reported).
      read.catch(() => undefined);
      byId.set(id, read);
    }
    return read;
  };
  // Issue 15: the org lock's claims (src/lock/claim.ts) are contexts too, but never the
  // config's: not read, not planned, never deleted by an authoritative `contexts:`.
  const ours = (c: V3Resource<ContextAttributes>): boolean => !isLockContextName(c.attributes.name);
  const listed = await api.listV3<ContextAttributes>(
    "/contexts",
    { "filter[org_id]": orgId },
    { onPage: (items) => items.filter(ours).forEach(start) },
  );
  return {
    contexts: await Promise.all(listed.filter(ours).map(start)),
    lockNames: listed.filter((c) => !ours(c)).map((c) => c.attributes.name),
  };
};

const readContext = async (
  api: ReadOnlyApi,
  c: V3Resource<ContextAttributes>,
  needs: OrgNeeds,
): Promise<RawContext> => {
  const id = requireId(c, "context");
  const name = c.attributes.name;
  const decl = declarationFor({ id, name }, needs);
  const ignored = needs.isIgnored(addr.context(name));
  // A context the config does not declare is deleted: the plan must say how many
  // secrets that destroys (design.md §1 "Ownership"), so its env is read too — unless
  // `ignore` excludes it, when nothing about it is planned.
  const readEnv = !ignored && (decl ? decl.env !== undefined : true);
  const readRestrictions = !ignored && decl?.restrictions !== undefined;
  const [env, restrictions] = await Promise.all([
    readEnv
      ? api
          .listV3<ContextEnvVarAttributes>(`/contexts/${id}/env-vars`)
          .then((items) =>
            items.map((i) =>
              i.attributes.truncated_value === undefined
                ? { name: i.attributes.name }
                : { name: i.attributes.name, truncated_value: i.attributes.truncated_value },
            ),
          )
      : undefined,
    readRestrictions
      ? api.listV3<ContextRestrictionAttributes>("/context-restrictions", {
          "filter[context_id]": id,
        })
      : undefined,
  ]);
  return {
    id,
    name,
    ...(env !== undefined ? { env } : {}),
    ...(restrictions !== undefined ? { restrictions } : {}),
  };
};

/**
 * Restriction key values (src/model/live.ts LiveRestriction.key_value): a project id becomes
 * its slug — from the slugs the config references first, else one `GET /projects/{id}` per
 * unknown id (in parallel, each id once); an unresolvable id stays the id.
 */
const resolveRestrictionKeys = async (
  api: ReadOnlyApi,
  orgId: string,
  contexts: readonly RawContext[],
  projectIds: ReadonlyMap<string, string>,
): Promise<LiveContext[]> => {
  const slugById = new Map<string, string>();
  for (const [slug, id] of projectIds) slugById.set(id, slug);
  const unknown = new Set<string>();
  for (const c of contexts) {
    for (const r of c.restrictions ?? []) {
      const a = r.attributes;
      if (a.restriction_type === "project" && !slugById.has(a.match_pattern))
        unknown.add(a.match_pattern);
    }
  }
  const looked = await Promise.all(
    [...unknown].map(async (id): Promise<[string, string | undefined]> => {
      try {
        const p = await api.get<V3One<ProjectAttributes>>("v3", `/projects/${id}`);
        return [id, p?.data?.attributes?.slug];
      } catch (err) {
        if (isNotVisible(err)) return [id, undefined];
        throw err;
      }
    }),
  );
  for (const [id, slug] of looked) if (slug !== undefined) slugById.set(id, slug);

  return contexts.map((c) => ({
    id: c.id,
    name: c.name,
    ...(c.env !== undefined ? { env: c.env } : {}),
    ...(c.restrictions !== undefined
      ? {
          restrictions: c.restrictions.map(
            (r): LiveRestriction => ({
              id: requireId(r, "context restriction"),
              restriction_type: r.attributes.restriction_type,
              match_pattern: r.attributes.match_pattern,
              key_value: restrictionKeyValue(
                r.attributes.restriction_type,
                r.attributes.match_pattern,
                orgId,
                (id) => slugById.get(id),
              ),
            }),
          ),
        }
      : {}),
  }));
};
