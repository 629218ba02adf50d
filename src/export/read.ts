/**
 * The I/O side of export: read everything of the org and of the chosen projects with the
 * read-only client. Every list is read in full or the export fails (the client's `listV3`
 * never returns a partial list), so the exported config never omits an item that exists.
 */
import type { ReadOnlyApi } from "../api/types.js";
import type { OrgAttributes, ProjectAttributes, V3One } from "../core/wire.js";
import { restrictionKeyValue } from "../kinds/context-restriction.js";
import { requireId } from "../kinds/listing.js";
import { KINDS } from "../kinds/registry.js";
import { OrgNotVisibleError } from "../live/errors.js";
import { consistentLists } from "../live/paged-list.js";
import { isNotVisible } from "../live/resolve.js";
import { probeSynthetic } from "../live/synthetic.js";
import { isLockContextName } from "../lock/claim.js";
import type { LiveContext, LiveOrg, LiveProject, LiveRestriction } from "../model/live.js";
import { ExportError } from "./errors.js";
import type { ExportSnapshot } from "./snapshot.js";

/** Which projects to export. */
export type ProjectSelection =
  | { readonly kind: "none" }
  | { readonly kind: "all" }
  | { readonly kind: "slugs"; readonly slugs: readonly string[] };

/**
 * A `--project` value: a full slug (`gh/acme/api`) or, as a shorthand, the part after the
 * org (`api`). Decision: the shorthand is accepted because the org is already given.
 */
export const fullProjectSlug = (orgSlug: string, value: string): string =>
  value.includes("/") ? value : `${orgSlug}/${value}`;

export const readExportSnapshot = async (
  rawApi: ReadOnlyApi,
  orgSlug: string,
  selection: ProjectSelection,
): Promise<ExportSnapshot> => {
  // Issue 15: an export written from a listing that shifted would miss or repeat items.
  const api = consistentLists(rawApi);
  // spec: api-v3.md Orgs: filter[slug] resolves one org; no match is an empty collection.
  const orgs = await api.listV3<OrgAttributes>("/orgs", { "filter[slug]": orgSlug });
  // As the live reader does (src/live/read-live-state.ts): the exact slug, else the one org
  // the filter found.
  const org =
    orgs.find((o) => o.attributes.slug === orgSlug) ?? (orgs.length === 1 ? orgs[0] : undefined);
  if (!org?.id) {
    throw new OrgNotVisibleError(
      orgSlug,
      `GET /api/v3/orgs?filter[slug]=${orgSlug} returned no org; check the slug (provider/name, e.g. gh/acme) and that the token can see it`,
    );
  }
  const orgId = org.id;

  // spec: api-v3.md Projects: filter[org_id] alone lists the org's projects (50 a page).
  // Needed for --all-projects, for --project, and to write project restrictions as slugs.
  // Everything else is read through the kinds' own listings (src/kinds/contract.ts `list`).
  const orgScope = { org_id: orgId };
  const [settings, listedProjects, listedContexts] = await Promise.all([
    KINDS.org_settings.list(api, orgScope),
    api.listV3<ProjectAttributes>("/projects", { "filter[org_id]": orgId }),
    KINDS.context.list(api, orgScope),
  ]);
  const projectIdBySlug = new Map<string, string>();
  for (const p of listedProjects) projectIdBySlug.set(p.attributes.slug, requireId(p, "project"));

  const chosen = chooseProjects(orgSlug, selection, projectIdBySlug);
  // Issue 15: the org lock's claims are contexts, never part of the org's configuration.
  const contexts = listedContexts.filter((c) => !isLockContextName(c.name));
  const [contextReads, projectReads] = await Promise.all([
    Promise.all(contexts.map((c) => readContext(api, c, orgId, projectIdBySlug))),
    Promise.all(chosen.map(([slug, id]) => readProject(api, slug, id))),
  ]);
  const live: LiveOrg = {
    status: "found",
    id: orgId,
    slug: orgSlug,
    ...(settings[0] === undefined ? {} : { settings: settings[0] }),
    contexts: contextReads,
    projects: new Map(projectReads.map((p) => [p.slug, p])),
  };
  return live;
};

const chooseProjects = (
  orgSlug: string,
  selection: ProjectSelection,
  idBySlug: ReadonlyMap<string, string>,
): [string, string][] => {
  switch (selection.kind) {
    case "none":
      return [];
    case "all":
      return [...idBySlug.entries()];
    case "slugs": {
      const missing: string[] = [];
      const out: [string, string][] = [];
      for (const value of selection.slugs) {
        const slug = fullProjectSlug(orgSlug, value);
        const id = idBySlug.get(slug);
        if (id === undefined) missing.push(slug);
        else if (!out.some(([s]) => s === slug)) out.push([slug, id]);
      }
      if (missing.length > 0) {
        throw new ExportError(
          `no project ${missing.join(", ")} in org ${orgSlug}; the org has ${idBySlug.size} project${idBySlug.size === 1 ? "" : "s"}${idBySlug.size > 0 ? `: ${[...idBySlug.keys()].sort().slice(0, 10).join(", ")}${idBySlug.size > 10 ? ", …" : ""}` : ""}`,
        );
      }
      return out;
    }
  }
};

const readContext = async (
  api: ReadOnlyApi,
  c: LiveContext,
  orgId: string,
  projectIdBySlug: ReadonlyMap<string, string>,
): Promise<LiveContext> => {
  const slugById = new Map<string, string>();
  for (const [slug, pid] of projectIdBySlug) slugById.set(pid, slug);
  const scope = { org_id: orgId, context_id: c.id, projectSlug: (id: string) => slugById.get(id) };
  const [env, restrictions] = await Promise.all([
    KINDS.context_env_var.list(api, scope),
    // spec: api-v3.md Context restrictions: the list holds all three types.
    KINDS.context_restriction.list(api, scope),
  ]);
  // A project restriction may name a project the org listing did not show (another org's,
  // or not visible): look each such id up once; one that stays unknown is written as its id.
  const unknown = [
    ...new Set(
      restrictions
        .filter((r) => r.restriction_type === "project" && !slugById.has(r.match_pattern))
        .map((r) => r.match_pattern),
    ),
  ];
  await Promise.all(
    unknown.map(async (pid) => {
      try {
        const p = await api.get<V3One<ProjectAttributes>>("v3", `/projects/${pid}`);
        const slug = p?.data?.attributes?.slug;
        if (slug !== undefined) slugById.set(pid, slug);
      } catch (err) {
        if (!isNotVisible(err)) throw err;
      }
    }),
  );
  return {
    ...c,
    env,
    restrictions: restrictions.map(
      (r): LiveRestriction => ({
        ...r,
        key_value: restrictionKeyValue(r.restriction_type, r.match_pattern, orgId, (id) =>
          slugById.get(id),
        ),
      }),
    ),
  };
};

const readProject = async (api: ReadOnlyApi, slug: string, id: string): Promise<LiveProject> => {
  const scope = { project_id: id };
  // No project_slug in the scope: only the names are needed (values are never exported),
  // so the project env vars' last four are not looked up in V2.
  const [settings, env, webhooks, pipelines, triggers] = await Promise.all([
    KINDS.project_settings.list(api, scope),
    KINDS.project_env_var.list(api, scope),
    KINDS.webhook.list(api, scope),
    KINDS.pipeline.list(api, scope),
    // One listing for the project's triggers (not one per pipeline).
    KINDS.trigger.list(api, scope),
  ]);
  // spec: api-v3.md Pipelines: the list includes the synthetic OAuth pipeline, which is
  // not fetchable by id without filter[project_id]: one probe per pipeline tells it apart.
  const live = await Promise.all(
    pipelines.map(async (p) => ({ ...p, synthetic: await probeSynthetic(api, p.id) })),
  );
  const synthetic = new Set(live.filter((p) => p.synthetic).map((p) => p.id));
  return {
    status: "found",
    id,
    slug,
    ...(settings[0] === undefined ? {} : { settings: settings[0] }),
    env,
    webhooks,
    pipelines: live,
    triggers: triggers.map((t) => (synthetic.has(t.pipeline_id) ? { ...t, synthetic: true } : t)),
  };
};
