/**
 * References between kinds, generic over the registry (issue 31). A kind declares the
 * fields that name items of other kinds (src/kinds/contract.ts `Reference`); this module
 * alone resolves them, so no walker (src/plan, src/live, src/export, src/run) names a kind:
 *
 * - `referenceResolver`: a name to an id at plan time, declared items first (an item this
 *   plan creates or re-creates is `{ pending: address }`, its id known at apply), then live;
 * - `unknownReferenceDiagnostics`: names the org has nowhere, with file:line:col and the
 *   closest name ("did you mean");
 * - `referenceEdges`: the referred item's delete waits for what names it by id;
 * - `namedReferences`: ids back to names in a live org, for drift and export;
 * - `referencesOnDeletedItems`: a reference to an item this plan deletes or re-creates,
 *   where the service deletes the referrer with it (the config would not converge).
 *
 * Every function takes the registry's kinds as a parameter (the real registry by default),
 * so a test can register a kind of its own.
 */
import { formatLocation } from "../core/errors.js";
import { ancestorsOf, type ResourceType } from "../model/address.js";
import type { DesiredOrg } from "../model/desired.js";
import type { LiveOrg } from "../model/live.js";
import type {
  KindRefs,
  LivePlace,
  PlannedChangeView,
  Reference,
  ResourceKind,
  WrittenReference,
} from "./contract.js";
import { ALL_KINDS } from "./registry.js";
import type { JsonObject } from "./values.js";

/** The kinds a function walks: the registry's, or a test's copy with a kind of its own. */
export type Kinds = readonly ResourceKind<unknown, unknown>[];

/** The kind of a type among `kinds`. */
const byTypeOf = new WeakMap<Kinds, Map<string, ResourceKind<unknown, unknown>>>();
export const kindIn = (kinds: Kinds, type: ResourceType): ResourceKind<unknown, unknown> => {
  let byType = byTypeOf.get(kinds);
  if (byType === undefined) {
    byType = new Map(kinds.map((k) => [k.type, k]));
    byTypeOf.set(kinds, byType);
  }
  const kind = byType.get(type);
  if (kind === undefined) throw new Error(`no kind ${type} in the registry`);
  return kind;
};

/** Each kind with its references, for the kinds that have any. */
const referring = (
  kinds: Kinds,
): { kind: ResourceKind<unknown, unknown>; ref: Reference<unknown> }[] =>
  kinds.flatMap((kind) => (kind.references ?? []).map((ref) => ({ kind, ref })));

/** The declared items of kind `to` in an org declaration, by name (its key) → address. */
const declaredNames = (
  kind: ResourceKind<unknown, unknown>,
  org: DesiredOrg,
): Map<string, string> => {
  const out = new Map<string, string>();
  for (const { address, item } of kind.desiredItems(org)) out.set(kind.desiredKey(item), address);
  return out;
};

/** The live items of kind `to` in an org, by name (its key) → id. */
const liveNames = (kind: ResourceKind<unknown, unknown>, live: LiveOrg): Map<string, string> => {
  const out = new Map<string, string>();
  for (const { item } of kind.liveItems(live)) {
    const id = kind.liveId(item);
    if (id !== undefined) out.set(kind.liveKey(item), id);
  }
  return out;
};

/**
 * `KindRefs.refId` for one org's plan. `changes` is the plan's list as it grows: the
 * referred kinds are planned before their referrers (registry order), so the first lookup
 * of a kind sees its creates and re-creates, whose ids are known at apply.
 */
export const referenceResolver = (
  org: DesiredOrg,
  live: LiveOrg,
  changes: readonly PlannedChangeView[],
  kinds: Kinds = ALL_KINDS,
): KindRefs["refId"] => {
  const byKind = new Map<
    ResourceType,
    { declared: Map<string, string>; live: Map<string, string>; planned: Set<string> }
  >();
  return (to, name) => {
    let r = byKind.get(to);
    if (r === undefined) {
      const kind = kindIn(kinds, to);
      r = {
        declared: declaredNames(kind, org),
        live: liveNames(kind, live),
        planned: new Set(
          changes
            .filter(
              (c) =>
                c.org === org.slug &&
                c.resource_type === to &&
                (c.action === "create" || c.action === "replace"),
            )
            .map((c) => c.address),
        ),
      };
      byKind.set(to, r);
    }
    const address = r.declared.get(name);
    if (address !== undefined && r.planned.has(address)) return { pending: address };
    return r.live.get(name) ?? (address !== undefined ? { pending: address } : undefined);
  };
};

/**
 * Whether an org declaration writes a name that refers to an item of kind `to`: the live
 * reader then reads that kind (a name is resolved through its live items), whether or not
 * the config manages it.
 */
export const namesWritten = (
  org: DesiredOrg,
  to: ResourceType,
  kinds: Kinds = ALL_KINDS,
): boolean =>
  referring(kinds).some(
    ({ ref }) => ref.to === to && [...ref.written(org)].some((w) => w.form === "name"),
  );

/**
 * Every reference to an item of kind `to` that one org declaration writes, with the
 * reference it is written for (a walked parent's references: the live reader resolves the
 * project slugs they write with the declared ones, src/run reports those it did not find).
 */
export const referencesWritten = function* (
  org: DesiredOrg,
  to: ResourceType,
  kinds: Kinds = ALL_KINDS,
): Iterable<{ readonly reference: Reference<unknown>; readonly written: WrittenReference }> {
  for (const { ref } of referring(kinds)) {
    if (ref.to !== to) continue;
    for (const written of ref.written(org)) yield { reference: ref, written };
  }
};

/** A reference written by name that the org has nowhere (src/run turns it into a diagnostic). */
export interface UnknownName {
  readonly org: string;
  readonly reference: Reference<unknown>;
  readonly written: WrittenReference;
  /** The referred kind's YAML key (where it would be declared: `groups`). */
  readonly declaredUnder: string;
  /** The names the org has (declared in any of its files, or live): for "did you mean". */
  readonly known: ReadonlySet<string>;
}

/**
 * Each reference written by name that neither a declaration of the org (any of its files)
 * nor the live org has. Pure: the referred kinds were read by the live reader. References
 * under an ignored address are not checked.
 */
export const unknownNames = (
  orgs: readonly DesiredOrg[],
  liveOrgs: readonly LiveOrg[],
  ignoredOf: (org: DesiredOrg) => (address: string) => boolean,
  kinds: Kinds = ALL_KINDS,
): UnknownName[] => {
  const out: UnknownName[] = [];
  const refs = referring(kinds);
  if (refs.length === 0) return out;
  for (const org of orgs) {
    const liveOrg = liveOrgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) continue;
    const ignored = ignoredOf(org);
    const knownOf = new Map<ResourceType, Set<string>>();
    const known = (to: ResourceType): Set<string> => {
      let names = knownOf.get(to);
      if (names === undefined) {
        const kind = kindIn(kinds, to);
        // Several files may declare one org: the names any of them declares count.
        names = new Set<string>();
        for (const o of orgs) {
          if (o.slug === org.slug) for (const n of declaredNames(kind, o).keys()) names.add(n);
        }
        for (const n of liveNames(kind, liveOrg).keys()) names.add(n);
        knownOf.set(to, names);
      }
      return names;
    };
    for (const { ref } of refs) {
      for (const w of ref.written(org)) {
        if (w.form !== "name") continue;
        if (ignored(w.address) || ancestorsOf(w.address).some(ignored)) continue;
        const names = known(ref.to);
        if (names.has(w.value)) continue;
        out.push({
          org: org.slug,
          reference: ref,
          written: w,
          declaredUnder: kindIn(kinds, ref.to).config.yamlKey,
          known: names,
        });
      }
    }
  }
  return out;
};

/** The operation of a change in the order graph (src/plan/order.ts), as this module sees it. */
export interface EdgeNode {
  readonly id: string;
  readonly phase: "create" | "update" | "delete";
  readonly org: string;
  readonly change: PlannedChangeView;
}

/**
 * Destroy edges (as Terraform's): a referred item's delete waits for the deletes of what
 * names it by id, and — when the item is deleted, not re-created — for the updates that
 * stop naming it (an update of a re-created item's referrer waits for its create instead,
 * through `depends_on`). Returns `[before, after]` pairs of operation ids.
 */
export const referenceEdges = (
  nodes: readonly EdgeNode[],
  kinds: Kinds = ALL_KINDS,
): [string, string][] => {
  const refsOf = new Map<ResourceType, readonly Reference<unknown>[]>();
  for (const kind of kinds) {
    const ordering = kind.references?.filter((ref) => ref.ordersDeletes !== false) ?? [];
    if (ordering.length > 0) refsOf.set(kind.type, ordering);
  }
  if (refsOf.size === 0) return [];
  const naming = new Map<string, { id: string; phase: "update" | "delete" }[]>();
  for (const node of nodes) {
    if (node.phase === "create") continue;
    const c = node.change;
    for (const ref of refsOf.get(c.resource_type) ?? []) {
      for (const id of ref.liveIds(c.before ?? {})) {
        const k = `${node.org}\u0000${ref.to}\u0000${id}`;
        const list = naming.get(k);
        const entry = { id: node.id, phase: node.phase };
        if (list === undefined) naming.set(k, [entry]);
        else list.push(entry);
      }
    }
  }
  const out: [string, string][] = [];
  for (const node of nodes) {
    const c = node.change;
    if (node.phase !== "delete" || c.action === "create" || c.id === undefined) continue;
    for (const r of naming.get(`${node.org}\u0000${c.resource_type}\u0000${c.id}`) ?? []) {
      if (r.phase === "delete" || c.action === "delete") out.push([r.id, node.id]);
    }
  }
  return out;
};

/** Apply `f` to a live org's items of one kind, wherever its place keeps them. */
const mapPlace = (
  org: LiveOrg,
  place: LivePlace<unknown>,
  f: (items: readonly unknown[]) => readonly unknown[],
): LiveOrg => {
  switch (place.under) {
    case "org": {
      const items = place.stored(org);
      return items === undefined ? org : { ...org, ...place.store(f(items)) };
    }
    case "context":
      return org.contexts === undefined
        ? org
        : {
            ...org,
            contexts: org.contexts.map((c) => {
              const items = place.stored(c);
              return items === undefined ? c : { ...c, ...place.store(f(items)) };
            }),
          };
    case "project": {
      const projects = new Map(org.projects);
      for (const [key, p] of projects) {
        if (p.status !== "found") continue;
        const items = place.stored(p);
        if (items !== undefined) projects.set(key, { ...p, ...place.store(f(items)) });
      }
      return { ...org, projects };
    }
  }
};

/** A live org's items of one kind, wherever its place keeps them. */
const itemsAt = (org: LiveOrg, place: LivePlace<unknown>): readonly unknown[] => {
  switch (place.under) {
    case "org":
      return place.stored(org) ?? [];
    case "context":
      return (org.contexts ?? []).flatMap((c) => place.stored(c) ?? []);
    case "project":
      return [...org.projects.values()].flatMap((p) =>
        p.status === "found" ? (place.stored(p) ?? []) : [],
      );
  }
};

/**
 * Names of referred items besides those of the live read (`liveNames`), by kind: id → name.
 * The walk's own look-ups (a project slug the config writes, resolved to its id) and the
 * items read by id (src/live/referred-names.ts); they win over the read's names.
 */
export type KnownNames = ReadonlyMap<ResourceType, ReadonlyMap<string, string>>;

/**
 * The ids of items of kind `to` that the live org's references name and that neither the
 * read nor `known` gives a name: those a kind with `nameById` reads one by one.
 */
export const unnamedReferredIds = (
  org: LiveOrg,
  to: ResourceType,
  known: KnownNames = new Map(),
  kinds: Kinds = ALL_KINDS,
): string[] => {
  const named = new Set([...liveNames(kindIn(kinds, to), org).values()]);
  const knownIds = known.get(to);
  const out = new Set<string>();
  for (const { kind, ref } of referring(kinds)) {
    if (ref.to !== to) continue;
    for (const l of itemsAt(org, kind.livePlace as LivePlace<unknown>)) {
      for (const id of ref.liveIds(kind.liveView(l))) {
        if (!named.has(id) && knownIds?.has(id) !== true) out.add(id);
      }
    }
  }
  return [...out];
};

/**
 * A live org with each reference's id given as the referred item's name, where the
 * referred kind was read or `known` names it (drift's addresses and export's config name
 * items, not ids).
 */
export const namedReferences = (
  org: LiveOrg,
  kinds: Kinds = ALL_KINDS,
  known: KnownNames = new Map(),
): LiveOrg => {
  let out = org;
  for (const { kind, ref } of referring(kinds)) {
    const to = kindIn(kinds, ref.to);
    const read = liveNames(to, org);
    const nameById = new Map([...read].map(([name, id]) => [id, name]));
    for (const [id, name] of known.get(ref.to) ?? []) nameById.set(id, name);
    if (nameById.size === 0) continue;
    out = mapPlace(out, kind.livePlace as LivePlace<unknown>, (items) =>
      items.map((l) => ref.named(l, (id) => nameById.get(id), org.id)),
    );
  }
  return out;
};

/**
 * References the config declares to an item this plan deletes or re-creates, where the
 * service deletes the referrer with it (`deletedWithReferred`): one message each. By name,
 * a declared item is kept or created (the reference gets the new id at apply); by id, a
 * re-created item's old id is gone.
 */
export const referencesOnDeletedItems = (
  org: DesiredOrg,
  live: LiveOrg,
  changes: readonly PlannedChangeView[],
  ignored: (address: string) => boolean,
  kinds: Kinds = ALL_KINDS,
): string[] => {
  const out: string[] = [];
  for (const { kind, ref } of referring(kinds)) {
    if (ref.deletedWithReferred !== true) continue;
    const gone = new Map<string, PlannedChangeView>();
    for (const c of changes) {
      if (c.org !== org.slug || c.resource_type !== ref.to) continue;
      if ((c.action === "delete" || c.action === "replace") && c.id !== undefined)
        gone.set(c.id, c);
    }
    if (gone.size === 0) continue;
    const to = kindIn(kinds, ref.to);
    const declared = declaredNames(to, org);
    const liveIdByName = liveNames(to, live);
    const where = to.config.yamlKey;
    const what = kind.collection.segment.name;
    for (const w of ref.written(org)) {
      if (ignored(w.address) || ancestorsOf(w.address).some(ignored)) continue;
      const byName = w.form === "name";
      if (byName && declared.has(w.value)) continue;
      const id = byName ? liveIdByName.get(w.value) : w.value;
      const change = id === undefined ? undefined : gone.get(id);
      if (change === undefined) continue;
      const goneName = nameIn(to, change.before);
      const named = `${ref.to} ${JSON.stringify(goneName ?? w.value)}`;
      const declaredAt = goneName === undefined ? undefined : declaredSource(to, org, goneName);
      out.push(
        change.action === "delete"
          ? `${w.address} (${formatLocation(w.source)}) names ${named}, which this plan deletes (${change.address}: not declared under ${where} at ${sourceOfCollection(org, where)}); the service would delete the ${what} with the ${ref.to}. Declare the ${ref.to} under ${where} to keep it, or remove the ${what}`
          : `${w.address} (${formatLocation(w.source)}) names ${named} by its id ${JSON.stringify(w.value)}, which this plan re-creates with a new id (${change.address}${declaredAt === undefined ? "" : ` at ${declaredAt}`}); the ${what} would name a ${ref.to} that no longer exists. Name the ${ref.to} by its name (${ref.writtenAs(goneName ?? "<name>")}) so the ${what} follows it`,
      );
    }
  }
  return out;
};

/** The name of a referred item in a change's masked view (its `name` attribute). */
const nameIn = (
  _kind: ResourceKind<unknown, unknown>,
  view: JsonObject | null,
): string | undefined => (typeof view?.name === "string" ? view.name : undefined);

/** Where a declared item of the kind, by name, was written. */
const declaredSource = (
  kind: ResourceKind<unknown, unknown>,
  org: DesiredOrg,
  name: string,
): string | undefined => {
  for (const { item } of kind.desiredItems(org)) {
    if (kind.desiredKey(item) !== name) continue;
    const source = (item as { source?: Parameters<typeof formatLocation>[0] }).source;
    return source === undefined ? undefined : formatLocation(source);
  }
  return undefined;
};

/** Where the org's map of a collection was written (`groups:`), or its words. */
const sourceOfCollection = (org: DesiredOrg, yamlKey: string): string => {
  const source = (org as unknown as Record<string, unknown>)[`${yamlKey}_source`];
  return source === undefined
    ? `the org's ${yamlKey}:`
    : formatLocation(source as Parameters<typeof formatLocation>[0]);
};
