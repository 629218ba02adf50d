/**
 * Projects themselves (issue 18; spec: api-v2-v1.md Endpoints (V2), api-v3.md Projects):
 * - `POST /organization/{org-slug-or-id}/project` `{ name }` creates one (V2; the legacy
 *   create-by-provider route is deprecated, api-v2-v1.md Versioning);
 * - `DELETE /project/{project-slug}` deletes one (V2);
 * - `GET /projects?filter[org_id]=&filter[name]=` finds one by name ("case-insensitive name
 *   search": Waybill keeps the exact matches).
 *
 * A project is never created or deleted by its presence or absence in the config: only
 * `create: true` (create it when the look-up finds none) and `delete: true` (apply needs
 * `--allow-project-delete`). The planner's project walk (src/plan/projects.ts `planProject`)
 * plans these two changes and the project's children; the generic collection walk, the live
 * reader and export leave the kind alone (`collection.desiredIn` is never set, `readFor` is
 * false, `config.builtByLoader`), since a project is the parent every project kind hangs off.
 */
import { LiveReadError } from "../core/errors.js";
import type { ProjectAttributes, V3One } from "../core/wire.js";
import { addr } from "../model/address.js";
import type { DesiredProject } from "../model/desired.js";
import type { LiveProject } from "../model/live.js";
import { call } from "./calls.js";
import { newComparison } from "./compare.js";
import { cannotRename } from "./contract.js";
import { defineWalkedParent } from "./define.js";
import { foundProjects, listedProjectSlug, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { toJson } from "./values.js";

/**
 * A project as written under `projects:` (and `templates.projects`), its own keys: its
 * `settings`, `env`, `webhooks`, `pipelines` and `checkout_keys` are its children's (the
 * kinds under `project`, whose `config.yamlKey` src/config/raw.ts adds).
 */
export interface RawProject {
  /** Issue 18: create the project when it does not exist; delete it. */
  create?: boolean;
  delete?: boolean;
  /** Issue 19: template names, merged in order, then this project's own keys. */
  extends?: string[];
}

/** The schema's `project` object, its own keys, checked against RawProject. */
export const PROJECT_KEYS = {
  project: keysOf<RawProject>()(["create", "delete", "extends"], []),
};

/** The name a new project is created with: a name key itself, or a slug's last segment. */
export const projectName = (key: string): string => key.split("/").pop() ?? key;

/** Whether a `projects:` key is a project *name* (no `/`), not a slug (issue 18). */
export const isProjectName = (key: string): boolean => !key.includes("/");

const readCreated = (body: unknown): Readonly<Record<string, string>> => {
  const slug = (body as { slug?: unknown } | null)?.slug;
  return typeof slug === "string" ? { slug } : {};
};

export const projectKind = defineWalkedParent<DesiredProject, LiveProject>({
  type: "project",
  parent: "org",
  replaceOrder: "never",
  replaceOrderWhy: "a project is created or deleted only when the config says so, never replaced",
  desiredKey: (d) => d.slug,
  liveKey: (l) => l.slug,
  liveId: (l) => l.id,
  desiredView: (d) => ({ name: projectName(d.slug) }),
  liveView: (l) => ({ slug: l.slug, ...(l.name === undefined ? {} : { name: l.name }) }),
  compare: () => newComparison(),
  createCalls: () => [
    call("create", "POST", "/organization/{org_id}/project", {
      api: "v2",
      body: "flat",
      body_fields: ["name"],
      note: "not idempotent: an uncertain create is re-listed by name before any retry",
    }),
  ],
  deleteCalls: () => [
    call("delete", "DELETE", "/project/{project_slug}", {
      api: "v2",
      note: "deletes the project with everything in it",
    }),
  ],
  // spec: api-v3.md Projects: filter[org_id] with filter[name] (a search: exact matches kept).
  // Used by apply's re-list after an uncertain create (the scope names the project), and,
  // without a name, after a delete answered 404 (every project of the org: is it still there?).
  list: async (api, scope, options) => {
    const name = scope.name;
    const found = await api.listV3<ProjectAttributes>(
      "/projects",
      {
        "filter[org_id]": scopeId(scope, "org_id"),
        ...(name === undefined ? {} : { "filter[name]": name }),
      },
      options?.signal ? { signal: options.signal } : {},
    );
    return found
      .filter(
        (p) =>
          name === undefined ||
          (p.attributes.name ?? projectName(p.attributes.slug ?? "")) === name,
      )
      .map((p): LiveProject => {
        if (typeof p.id !== "string") throw new LiveReadError("a listed project has no id");
        // docs/spec-notes.md "Reading the real service": a project may come without a slug.
        const slug =
          (scope.org_slug === undefined
            ? p.attributes.slug
            : listedProjectSlug(p.attributes, scope.org_slug, scopeId(scope, "org_id"), p.id)) ??
          p.attributes.name ??
          p.id;
        return {
          status: "found",
          id: p.id,
          slug,
          ...(p.attributes.name === undefined ? {} : { name: p.attributes.name }),
        };
      });
  },
  // A restriction may name any project of the org by id (src/kinds/context-restriction.ts);
  // the walk reads only the declared ones, so another is read by its id, for its slug.
  nameById: async (api, id) =>
    (await api.get<V3One<ProjectAttributes>>("v3", `/projects/${id}`))?.data?.attributes?.slug,
  unmanagedWhy: "projects are declared one by one: leaving one out never deletes it",
  adopt: {
    by: "relist",
    matches: (d, _after, l) => (l.name ?? projectName(l.slug)) === projectName(d.slug),
  },
  createdValues: { fromResponse: readCreated, fromLive: (l) => ({ slug: l.slug }) },
  announce: {
    fromResponse: (body) => {
      const b = body as { id?: unknown; slug?: unknown } | null;
      return typeof b?.id === "string" && typeof b.slug === "string"
        ? { status: "found", id: b.id, slug: b.slug }
        : undefined;
    },
    note: (l) => `project ${l.slug} (id ${l.id})`,
  },
  fingerprint: (l) => toJson({ id: l.id, slug: l.slug }),
  desiredItems: function* (org) {
    for (const [key, p] of org.projects) {
      if (p.create === true || p.delete === true) yield { address: addr.project(key), item: p };
    }
  },
  liveItems: function* (org) {
    for (const [slug, p] of foundProjects(org)) yield { key: `project:${p.id}|${slug}`, item: p };
  },
  rename: cannotRename("a project cannot be renamed through the API"),
  collection: {
    name: "projects",
    segment: { name: "project", keyed: true },
    addressKey: (d) => d.slug,
    onParentDelete: "cascades",
  },
  config: {
    yamlKey: "projects",
    shape: "map",
    schemaDef: "project",
    schemaKeys: PROJECT_KEYS,
  },
});
