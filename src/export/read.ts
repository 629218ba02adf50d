/**
 * The I/O side of export: read everything of the org and of the chosen projects with the
 * read-only client. Every list is read in full or the export fails (the client's `listV3`
 * never returns a partial list), so the exported config never omits an item that exists.
 */
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
  V3One,
  V3Resource,
  WebhookAttributes,
} from "../core/wire.js";
import { restrictionKeyValue } from "../kinds/context-restriction.js";
import { toLiveTrigger } from "../kinds/trigger.js";
import type { LiveWebhook } from "../kinds/webhook.js";
import { OrgNotVisibleError } from "../live/errors.js";
import { consistentLists } from "../live/paged-list.js";
import { isNotVisible } from "../live/resolve.js";
import { probeSynthetic } from "../live/synthetic.js";
import { isLockContextName } from "../lock/claim.js";
import type { LivePipeline } from "../model/live.js";
import { ExportError } from "./errors.js";
import type { ExportSnapshot, SnapshotContext, SnapshotProject } from "./snapshot.js";

/** Which projects to export. */
export type ProjectSelection =
  | { readonly kind: "none" }
  | { readonly kind: "all" }
  | { readonly kind: "slugs"; readonly slugs: readonly string[] };

const requireId = (r: V3Resource<unknown>, what: string): string => {
  if (!r.id) throw new LiveReadError(`the service listed a ${what} without an id`);
  return r.id;
};

const attributesOf = <A>(body: V3One<A> | undefined, what: string): A => {
  const a = body?.data?.attributes;
  if (a === undefined || a === null || typeof a !== "object") {
    throw new LiveReadError(`${what} answered without data.attributes`);
  }
  return a;
};

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
  const [settings, listedProjects, listedContexts] = await Promise.all([
    api
      .get<V3One<OrgSettingsAttributes>>("v3", `/orgs/${orgId}/settings`)
      .then((b) => attributesOf(b, `GET /api/v3/orgs/${orgId}/settings`)),
    api.listV3<ProjectAttributes>("/projects", { "filter[org_id]": orgId }),
    api.listV3<ContextAttributes>("/contexts", { "filter[org_id]": orgId }),
  ]);
  const projectIdBySlug = new Map<string, string>();
  for (const p of listedProjects) projectIdBySlug.set(p.attributes.slug, requireId(p, "project"));

  const chosen = chooseProjects(orgSlug, selection, projectIdBySlug);
  const [contexts, projects] = await Promise.all([
    // Issue 15: the org lock's claims are contexts, never part of the org's configuration.
    Promise.all(
      listedContexts
        .filter((c) => !isLockContextName(c.attributes.name))
        .map((c) => readContext(api, c, orgId, projectIdBySlug)),
    ),
    Promise.all(chosen.map(([slug, id]) => readProject(api, slug, id))),
  ]);
  return { org: { id: orgId, slug: orgSlug }, settings, contexts, projects };
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
  c: V3Resource<ContextAttributes>,
  orgId: string,
  projectIdBySlug: ReadonlyMap<string, string>,
): Promise<SnapshotContext> => {
  const id = requireId(c, "context");
  const [env, restrictions] = await Promise.all([
    api.listV3<ContextEnvVarAttributes>(`/contexts/${id}/env-vars`),
    // spec: api-v3.md Context restrictions: the list holds all three types.
    api.listV3<ContextRestrictionAttributes>("/context-restrictions", {
      "filter[context_id]": id,
    }),
  ]);
  const slugById = new Map<string, string>();
  for (const [slug, pid] of projectIdBySlug) slugById.set(pid, slug);
  // A project restriction may name a project the org listing did not show (another org's,
  // or not visible): look each such id up once; one that stays unknown is written as its id.
  const unknown = [
    ...new Set(
      restrictions
        .filter(
          (r) =>
            r.attributes.restriction_type === "project" &&
            !slugById.has(r.attributes.match_pattern),
        )
        .map((r) => r.attributes.match_pattern),
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
    id,
    name: c.attributes.name,
    env: env.map((e) => e.attributes.name),
    restrictions: restrictions.map((r) => ({
      id: requireId(r, "context restriction"),
      type: r.attributes.restriction_type,
      match_pattern: r.attributes.match_pattern,
      value: restrictionKeyValue(
        r.attributes.restriction_type,
        r.attributes.match_pattern,
        orgId,
        (id) => slugById.get(id),
      ),
    })),
  };
};

const readProject = async (
  api: ReadOnlyApi,
  slug: string,
  id: string,
): Promise<SnapshotProject> => {
  const [settings, env, webhooks, pipelines, triggers] = await Promise.all([
    api
      .get<V3One<ProjectSettingsAttributes>>("v3", `/projects/${id}/settings`)
      .then((b) => attributesOf(b, `GET /api/v3/projects/${id}/settings`)),
    // Only the names are needed: values are never exported.
    api.listV3<ProjectEnvVarAttributes>(`/projects/${id}/environment-variables`),
    api.listV3<WebhookAttributes>("/webhooks", { "filter[project_id]": id }),
    api.listV3<PipelineAttributes>("/pipelines", { "filter[project_id]": id }),
    api.listV3<TriggerAttributes>("/triggers", { "filter[project_id]": id }),
  ]);
  // spec: api-v3.md Pipelines: the list includes the synthetic OAuth pipeline, which is
  // not fetchable by id without filter[project_id]: one probe per pipeline tells it apart.
  const live: LivePipeline[] = await Promise.all(
    pipelines.map(async (p) => {
      const pid = requireId(p, "pipeline");
      return { ...p.attributes, id: pid, synthetic: await probeSynthetic(api, pid) };
    }),
  );
  const synthetic = new Set(live.filter((p) => p.synthetic).map((p) => p.id));
  return {
    id,
    slug,
    settings,
    env: env.map((e) => e.attributes.name),
    webhooks: webhooks.map((w): LiveWebhook => ({ ...w.attributes, id: requireId(w, "webhook") })),
    pipelines: live,
    triggers: triggers.map((t) => {
      const lt = toLiveTrigger(t);
      return synthetic.has(lt.pipeline_id) ? { ...lt, synthetic: true } : lt;
    }),
  };
};
