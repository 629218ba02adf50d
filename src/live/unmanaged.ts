/**
 * What `drift` lists as information besides the drift itself (issue 4): live items the
 * config does not manage — those in collections the config leaves out under a declared
 * parent (design.md §1 "Ownership": an absent key leaves the collection unmanaged) — and
 * those excluded by `ignore`.
 *
 * Decision: only collections under declared parents are listed (the org's contexts, a
 * declared context's env and restrictions, a declared project's env, webhooks, pipelines and
 * their triggers). Undeclared projects are not listed: Waybill never owns the project list,
 * and listing every project of a large org would drown the drift report. Settings keys that
 * are not declared are not listed either: settings maps are managed key by key by design.
 *
 * Issue 16: this module is the walk only (org → contexts / projects → their collections,
 * a pipeline's triggers). Each kind says its line (`unmanaged`, src/kinds/contract.ts),
 * where its items are in the live tree and when they were read (`livePlace`), how they are
 * listed when they were not (`list`), and its address step (`collection.segment`).
 */
import { ApiError } from "../api/errors.js";
import type { ReadOnlyApi } from "../api/types.js";
import type { ListScope, ResourceKind } from "../kinds/contract.js";
import { v2ProjectSlug } from "../kinds/listing.js";
import { KINDS } from "../kinds/registry.js";
import { isLockContextName } from "../lock/claim.js";
import { holdsNothing } from "../lock/claim-content.js";
import { addr, formatAddress, type ResourceType } from "../model/address.js";
import type { DesiredContext, DesiredOrg, DesiredProject } from "../model/desired.js";
import type { LiveContext, LiveOrg, LiveProject, LiveState } from "../model/live.js";
import { listLegacySchedules } from "./legacy-schedules.js";
import { consistentLists } from "./paged-list.js";
import { makeIgnoreMatcher } from "./resolve.js";
import { probeSynthetic } from "./synthetic.js";
import { isWalkedParent, kindsUnder, type Placed } from "./walk.js";

export { liveTriggerKey } from "../kinds/trigger.js";

export interface UnmanagedItem {
  readonly address: string;
  /** The kind; `legacy_schedule` for a legacy V2 schedule (never a kind Waybill manages). */
  readonly resource_type: ResourceType | "legacy_schedule";
  /**
   * `unmanaged`: its collection is not in the config; `ignored`: an `ignore` glob excludes
   * it; `legacy`: a legacy V2 schedule, which no config can manage (src/live/legacy-schedules.ts);
   * `kept`: in a collection the config manages, not listed, and left alone by `keep_unlisted`;
   * `not_read`: a project's legacy V2 schedules could not be listed (`reason` says why), so
   * whether any still runs is unknown (src/live/legacy-schedules.ts); or an org-level
   * collection the config leaves out could not be listed (403/404), so whether it holds
   * unmanaged items is unknown; `unknown`: an item Waybill cannot name (design.md §5
   * "Reading the real service": a restriction of a type it does not know), never changed.
   */
  readonly why: "unmanaged" | "ignored" | "legacy" | "kept" | "not_read" | "unknown";
  /** With `not_read`: what the service answered; with `unknown`: why it cannot be named. */
  readonly reason?: string;
}

/**
 * Issue 46: every live item the walk saw, managed or not: what drift's coverage figure
 * counts (src/cli/drift-coverage.ts). `managed`: in a collection the config manages (the
 * plan diffs it: matched, updated or deleted).
 */
export type LiveLine =
  | UnmanagedItem
  | { readonly address: string; readonly resource_type: ResourceType; readonly why: "managed" };

type Emit = (address: string, resource_type: ResourceType, inUnmanagedCollection: boolean) => void;
type EmitLegacy = (address: string, notRead?: string) => void;

/** A live item's address: its kind's step (`env["A"]`) under its parent's address. */
const lineAddress = <L>(
  parent: string | undefined,
  kind: ResourceKind<unknown, L>,
  l: L,
): string | undefined => {
  const line = kind.unmanaged;
  if (!line.listed || line.holdsNothing?.(l) === true) return undefined;
  const step = kind.collection.segment.keyed
    ? formatAddress([{ name: kind.collection.segment.name, key: line.key(l) }])
    : kind.collection.segment.name;
  return parent === undefined ? step : `${parent}.${step}`;
};

/**
 * The items of one kind under one declared parent: those the plan's read kept (`stored`),
 * else, when the config leaves the collection out, a listing of their own; a collection
 * the config declares but that was not read (its parent is ignored) has nothing to list.
 */
const itemsOf = async (
  api: ReadOnlyApi,
  {
    kind,
    read,
    declared,
  }: {
    kind: ResourceKind<unknown, unknown>;
    read: readonly unknown[] | undefined;
    declared: boolean;
  },
  scope: ListScope,
): Promise<{ items: readonly unknown[]; read: boolean }> => {
  if (read !== undefined) return { items: read, read: true };
  return { items: declared ? [] : await kind.list(api, scope), read: false };
};

/** One line per item found under a parent; `read` items are listed only when ignored. */
const emitLines = (
  parent: string,
  found: readonly {
    kind: ResourceKind<unknown, unknown>;
    items: readonly unknown[];
    read: boolean;
  }[],
  emit: Emit,
): void => {
  for (const { kind, items, read } of found) {
    for (const l of items) {
      const line = lineAddress(parent, kind, l);
      if (line) emit(line, kind.type, !read);
    }
  }
};

/** The kinds listed under a parent (not the settings), but those the walk goes into itself. */
const leafLines = <U extends "context" | "project">(under: U): Placed<U>[] =>
  kindsUnder(under).filter(
    ({ kind }) =>
      kind.unmanaged.listed && kind.parent === under && kind.collection.childParam === undefined,
  );

/** The live items the config does not manage (every line of `readLiveLines` but the managed). */
export const listUnmanaged = async (
  api: ReadOnlyApi,
  desiredOrgs: readonly DesiredOrg[],
  live: LiveState,
): Promise<UnmanagedItem[]> => (await readLiveLines(api, desiredOrgs, live)).filter(isUnmanaged);

export const isUnmanaged = (l: LiveLine): l is UnmanagedItem => l.why !== "managed";

/**
 * Every live item under the org and its declared parents, each said managed or why not
 * (issue 46: the org-level kinds walked from the registry, as the parents' children are).
 */
export const readLiveLines = async (
  rawApi: ReadOnlyApi,
  desiredOrgs: readonly DesiredOrg[],
  live: LiveState,
): Promise<LiveLine[]> => {
  // Issue 15: every listing here is consistent or fails, as the plan's own reads are.
  const api = consistentLists(rawApi);
  const perOrg = await Promise.all(
    live.orgs.map(async (org) => {
      const decls = desiredOrgs.filter((d) => d.slug === org.slug);
      const isIgnored = makeIgnoreMatcher(decls.flatMap((d) => d.ignore));
      const out: LiveLine[] = [];
      const emit: Emit = (address, resource_type, inUnmanagedCollection) => {
        if (isIgnored(address)) out.push({ address, resource_type, why: "ignored" });
        else if (inUnmanagedCollection) out.push({ address, resource_type, why: "unmanaged" });
        else out.push({ address, resource_type, why: "managed" });
      };
      const emitLegacy: EmitLegacy = (address, notRead) => {
        if (notRead !== undefined)
          out.push({ address, resource_type: "legacy_schedule", why: "not_read", reason: notRead });
        else if (isIgnored(address))
          out.push({ address, resource_type: "legacy_schedule", why: "ignored" });
        else out.push({ address, resource_type: "legacy_schedule", why: "legacy" });
      };
      await Promise.all([
        orgItems(api, org, decls, emit, (address, resource_type, reason) =>
          out.push({ address, resource_type, why: "not_read", reason }),
        ),
        contextItems(api, org, decls, emit),
        ...[...org.projects].map(async ([slug, p]) => {
          if (p.status !== "found") return;
          const project = decls.map((d) => d.projects.get(slug)).find((x) => x !== undefined);
          if (!project) return;
          // A declared project is managed (the config names it); undeclared ones are never
          // listed (see the module's decision).
          emit(addr.project(p.slug), KINDS.project.type, false);
          await projectItems(api, org, p, project, emit, emitLegacy);
        }),
      ]);
      return out;
    }),
  );
  return perOrg.flat();
};

/**
 * Issue 46: the org-level kinds but the walked parents (groups, OTLP exporters, SSO
 * mappings, and any kind added under the org), from the registry: a collection no
 * declaration of the org manages is listed whole (what the plan's read kept, else a
 * listing of its own); a managed one gives its items as managed (or ignored).
 */
const orgItems = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  decls: readonly DesiredOrg[],
  emit: Emit,
  notRead: (address: string, resource_type: ResourceType, reason: string) => void,
): Promise<void> => {
  const kinds = kindsUnder("org").filter(
    ({ kind }) => kind.unmanaged.listed && !isWalkedParent(kind.type),
  );
  await Promise.all(
    kinds.map(async ({ kind, place }) => {
      const managed = decls.some((d) => kind.collection.desiredIn(d) !== undefined);
      let items: readonly unknown[];
      try {
        items = managed
          ? (place.stored(org) ?? [])
          : (place.stored(org) ?? (await kind.list(api, { org_id: org.id })));
      } catch (err) {
        // Read liberally: a collection the config does not manage that this token or org
        // cannot list (403, or 404 where the org has no such feature) is said not read, on
        // its own line, rather than failing the drift; any other failure still fails it.
        if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
          const { name, keyed } = kind.collection.segment;
          const address = keyed ? formatAddress([{ name, key: "*" }]) : name;
          notRead(address, kind.type, `${err.method} ${err.path} answered ${err.status}`);
          return;
        }
        throw err;
      }
      for (const l of items) {
        const address = lineAddress(undefined, kind, l);
        if (address) emit(address, kind.type, !managed);
      }
    }),
  );
};

const contextItems = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  decls: readonly DesiredOrg[],
  emit: Emit,
): Promise<void> => {
  const contexts = KINDS.context;
  const read = contexts.livePlace.stored(org);
  if (read === undefined) {
    const listed = await contexts.list(api, { org_id: org.id });
    // Issue 15: the org lock's claims are Waybill's own, never "unmanaged". Issue 29: only
    // an empty lock-named context is a claim; one holding something is listed.
    const claims = await Promise.all(
      listed.map((c) =>
        isLockContextName(c.name) ? holdsNothing(api, org.id, c.id) : Promise.resolve(false),
      ),
    );
    listed.forEach((c, i) => {
      const address = lineAddress(undefined, contexts, c);
      if (!claims[i] && address) emit(address, contexts.type, true);
    });
    return;
  }
  const declared = new Map(decls.flatMap((d) => [...(d.contexts ?? new Map()).entries()]));
  // A project restriction's key is its slug, when the plan's read resolved it.
  const slugById = new Map(
    [...(org.projectIds ?? new Map<string, string>())].map(([s, id]) => [id, s]),
  );
  await Promise.all(
    read.map(async (c) => {
      const address = lineAddress(undefined, contexts, c);
      if (address) emit(address, contexts.type, false);
      const decl = declared.get(c.name);
      if (decl) await contextChildren(api, org, c, decl, address ?? "", slugById, emit);
    }),
  );
};

const contextChildren = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  c: LiveContext,
  decl: DesiredContext,
  address: string,
  slugById: ReadonlyMap<string, string>,
  emit: Emit,
): Promise<void> => {
  const scope: ListScope = {
    org_id: org.id,
    context_id: c.id,
    projectSlug: (id) => slugById.get(id),
  };
  const found = await Promise.all(
    leafLines("context").map(async ({ kind, place }) => ({
      kind,
      ...(await itemsOf(
        api,
        { kind, read: place.stored(c), declared: place.readFor(decl) },
        scope,
      )),
    })),
  );
  emitLines(address, found, emit);
};

const projectItems = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  p: LiveProject,
  decl: DesiredProject,
  emit: Emit,
  emitLegacy: EmitLegacy,
): Promise<void> => {
  const address = addr.project(p.slug);
  // project_slug: for the kinds on V2 project routes (checkout keys). Env vars' V2 fallback
  // for the last four is not taken (lastFour: false): drift lists names only.
  const scope: ListScope = {
    org_id: org.id,
    project_id: p.id,
    project_slug: p.slug,
    lastFour: false,
  };
  const pipelines = KINDS.pipeline;
  const triggers = KINDS.trigger;
  const [leaves, pl, tr, legacy] = await Promise.all([
    Promise.all(
      leafLines("project").map(async ({ kind, place }) => ({
        kind,
        ...(await itemsOf(
          api,
          { kind, read: place.stored(p), declared: place.readFor(decl) },
          scope,
        )),
      })),
    ),
    pipelines.livePlace.stored(p) ?? pipelines.list(api, scope),
    triggers.livePlace.stored(p) ?? triggers.list(api, scope),
    // The V2 slug: built from the ids on an app-based provider (issue 28).
    listLegacySchedules(api, v2ProjectSlug(p.slug, org.id, p.id)),
  ]);
  emitLines(address, leaves, emit);
  if (legacy.read) {
    for (const name of legacy.names) emitLegacy(addr.legacySchedule(p.slug, name));
  } else {
    // Never silently "none": the line says the list is unknown (`["*"]`: all of them).
    emitLegacy(addr.legacySchedule(p.slug, "*"), legacy.reason);
  }
  // The synthetic OAuth pipeline and its trigger (spec: api-v3.md Pipelines, Triggers) are
  // listed but can never be managed (design.md §1 "Identity"): they are left out. A read
  // plan marked them already; listed here, each is told apart by its probe (src/live/synthetic.ts).
  const pipelinesRead = p.pipelines !== undefined;
  const synthetic = new Set(
    pipelinesRead
      ? pl.filter((x) => x.synthetic).map((x) => x.id)
      : (
          await Promise.all(pl.map(async (x) => ((await probeSynthetic(api, x.id)) ? [x.id] : [])))
        ).flat(),
  );
  const pipelineName = new Map(pl.map((x) => [x.id, x.name]));
  for (const x of pl) {
    if (!synthetic.has(x.id)) emit(addr.pipeline(p.slug, x.name), pipelines.type, !pipelinesRead);
  }
  for (const t of tr) {
    if (t.synthetic || synthetic.has(t.pipeline_id)) continue;
    const pipeline = pipelineName.get(t.pipeline_id) ?? t.pipeline_id;
    // A trigger is unmanaged when its pipeline is, or when its declared pipeline leaves
    // `triggers` out; a trigger of an undeclared pipeline in a managed collection goes with
    // its pipeline's delete.
    const declaredPipeline = decl.pipelines?.get(pipeline);
    const unmanaged = !pipelinesRead || declaredPipeline?.triggers === undefined;
    const planned = pipelinesRead && declaredPipeline === undefined;
    const line = lineAddress(addr.pipeline(p.slug, pipeline), triggers, t);
    if (line) emit(line, triggers.type, unmanaged && !planned);
  }
};
