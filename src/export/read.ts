/**
 * The I/O side of export: read everything of the org and of the chosen projects with the
 * read-only client. Every list is read in full or the export fails (the client's `listV3`
 * never returns a partial list), so the exported config never omits an item that exists.
 */
import type { ReadOnlyApi } from "../api/types.js";
import type { OrgAttributes, ProjectAttributes, V3Resource } from "../core/wire.js";
import type { ListScope } from "../kinds/contract.js";
import { isVcsOrgSlug, listedProjectSlug, requireId } from "../kinds/listing.js";
import { namedReferences } from "../kinds/references.js";
import { KINDS } from "../kinds/registry.js";
import { OrgNotVisibleError } from "../live/errors.js";
import { consistentLists } from "../live/paged-list.js";
import { lookUpReferredNames } from "../live/referred-names.js";
import { markSynthetic, probeSynthetic } from "../live/synthetic.js";
import { isWalkedParent, kindsUnder, mergeParts } from "../live/walk.js";
import { isLockContextName } from "../lock/claim.js";
import { holdsNothing } from "../lock/claim-content.js";
import type { LiveContext, LiveOrg, LiveProject } from "../model/live.js";
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
  // Everything else is read through the kinds of the registry, by where their items sit
  // in the live tree (src/kinds/contract.ts `livePlace`), as the live reader does: a new
  // kind is exported without an edit here.
  const orgScope: ListScope = { org_id: orgId };
  const [orgParts, listedProjects, listedContexts] = await Promise.all([
    Promise.all(
      kindsUnder("org")
        .filter(({ kind }) => !isWalkedParent(kind.type))
        .map(async ({ kind, place }) => place.store(await kind.list(api, orgScope))),
    ),
    api.listV3<ProjectAttributes>("/projects", { "filter[org_id]": orgId }),
    KINDS.context.list(api, orgScope),
  ]);
  const unnamedProjects: string[] = [];
  const listed = projectKeys(listedProjects, orgSlug, orgId, unnamedProjects);
  const projectIdBySlug = new Map<string, string>();
  for (const [key, p] of listed) projectIdBySlug.set(key, p.id);

  const chosen = chooseProjects(orgSlug, selection, projectIdBySlug);
  // Issue 15: the org lock's claims are contexts, never part of the org's configuration.
  // Issue 29: only an empty lock-named context is a claim; one holding something is exported.
  const contexts = (
    await Promise.all(
      listedContexts.map(async (c) =>
        isLockContextName(c.name) && (await holdsNothing(api, orgId, c.id)) ? undefined : c,
      ),
    )
  ).filter((c) => c !== undefined);
  const [contextReads, projectReads] = await Promise.all([
    Promise.all(contexts.map((c) => readContext(api, c, orgId))),
    Promise.all(
      chosen.map(async ([key, id]) => {
        const v2 = listed.get(key)?.slug ?? key;
        return [key, await readProject(api, orgId, v2, id)] as const;
      }),
    ),
  ]);
  const unnamed: LiveOrg = {
    status: "found",
    id: orgId,
    slug: orgSlug,
    ...(mergeParts(orgParts) as Partial<LiveOrg>),
    contexts: contextReads,
    projects: new Map(projectReads),
  };
  // Issue 17: references by id are written by the referred item's name where it was read:
  // a project's slug from the org's listing, else read by its id (a project the listing
  // does not show: src/live/referred-names.ts).
  const slugById = new Map<string, string>();
  for (const [slug, id] of projectIdBySlug) slugById.set(id, slug);
  const known = await lookUpReferredNames(api, unnamed, new Map([[KINDS.project.type, slugById]]));
  const read: LiveOrg = namedReferences(unnamed, undefined, known);
  // spec: api-v3.md Pipelines: the list includes the synthetic OAuth pipeline, which is
  // not fetchable by id without filter[project_id]: one probe per pipeline tells it apart
  // (export writes every pipeline, so every one is probed).
  const pipelineIds = projectReads.flatMap(([, p]) => (p.pipelines ?? []).map((x) => x.id));
  const probed = await Promise.all(
    pipelineIds.map(async (id) => ((await probeSynthetic(api, id)) ? [id] : [])),
  );
  const [marked] = markSynthetic({ orgs: [read] }, new Set(probed.flat())).orgs;
  const snapshot: LiveOrg = marked ?? read;
  return unnamedProjects.length === 0 ? snapshot : { ...snapshot, unnamedProjects };
};

/**
 * The org's listed projects by the key a config writes for each: its slug, or (a project
 * the service lists without `attributes.slug`: docs/spec-notes.md "Reading the real
 * service") its name where the org is not on an OAuth VCS provider, as a config may key
 * a project (a key without `/`, issue 18); with
 * the slug its V2 routes take (src/kinds/listing.ts listedProjectSlug). Decision: a second project of one name is keyed by its built slug,
 * so neither is lost; a project whose slug cannot be built (no slug, and no name in an org of
 * an OAuth VCS provider: the plugin records such an item, `{ id, references }`) is not keyed
 * at all: its V2 routes have no slug to take, so it is not read, and `unnamed` lists it.
 */
const projectKeys = (
  listed: readonly V3Resource<ProjectAttributes>[],
  orgSlug: string,
  orgId: string,
  unnamed: string[],
): Map<string, { readonly id: string; readonly slug: string }> => {
  const out = new Map<string, { readonly id: string; readonly slug: string }>();
  for (const p of listed) {
    const id = requireId(p, "project");
    const slug = listedProjectSlug(p.attributes, orgSlug, orgId, id);
    if (slug === undefined) {
      unnamed.push(id);
      continue;
    }
    const name = p.attributes.name;
    // In an org of an OAuth VCS provider the built slug is the repo's (`gh/acme/api`), what a
    // user writes: it is the key there.
    const byName =
      (p.attributes.slug === undefined || p.attributes.slug === "") &&
      !isVcsOrgSlug(orgSlug) &&
      typeof name === "string" &&
      /^[A-Za-z0-9_.-]+$/.test(name) &&
      !out.has(name);
    out.set(byName ? name : slug, { id, slug });
  }
  return out;
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
        // A project keyed by name (no slug from the service) is chosen by its name.
        const slug = idBySlug.has(value) ? value : fullProjectSlug(orgSlug, value);
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

/** Every collection of one context, each by its kind. */
const readContext = async (
  api: ReadOnlyApi,
  c: LiveContext,
  orgId: string,
): Promise<LiveContext> => {
  const scope: ListScope = { org_id: orgId, context_id: c.id };
  const parts = await Promise.all(
    kindsUnder("context").map(async ({ kind, place }) => place.store(await kind.list(api, scope))),
  );
  return { ...c, ...mergeParts(parts) };
};

/** Every collection of one project, each by its kind. */
const readProject = async (
  api: ReadOnlyApi,
  orgId: string,
  slug: string,
  id: string,
): Promise<LiveProject> => {
  // The slug for the V2 routes; no secret's last four: values are never exported.
  const scope: ListScope = { org_id: orgId, project_id: id, project_slug: slug, lastFour: false };
  const parts = await Promise.all(
    kindsUnder("project").map(async ({ kind, place }) => place.store(await kind.list(api, scope))),
  );
  return { status: "found", id, slug, ...mergeParts(parts) };
};
