/**
 * Scoped plans (design.md §5 "Scoped plans and the reviewed plan", `--changed-since REF`):
 * which addresses' desired state differs between two expanded configs (templates, `extends`,
 * folders and `moved` are already applied by the loader on each side), whether such a change
 * can be planned alone, and the config narrowed to what planning it needs. Pure: the cli
 * reads the config at REF with git, src/live reads only what the narrowed config declares.
 *
 * A scope is a set of addresses per org. The plan keeps the changes at those addresses and
 * below them, plus what they depend on (as `--target` does); the reader reads the parents
 * they hang off (the org, a project, the contexts listing) and only the collections that
 * hold them.
 */
import { createHash } from "node:crypto";
import type { Secret } from "../core/secret.js";
import { ALL_KINDS, childKinds, kindOf } from "../kinds/registry.js";
import {
  type AddressSegment,
  addr,
  childAddress,
  formatAddress,
  parseAddress,
} from "../model/address.js";
import { canonicalConfig } from "../model/config-canonical.js";
import type { DesiredConfig, DesiredOrg, DesiredProject } from "../model/desired.js";
import { mergeOrgs } from "./state.js";

/** One address of one org. */
export interface ScopedAddress {
  readonly org: string;
  readonly address: string;
}

/**
 * A partial plan's scope (JSON `scope`): the ref it was planned against, the addresses in
 * scope (changed, added or removed since it) and how many addresses the two configs hold.
 */
export interface PlanScope {
  readonly since: string;
  readonly addresses: readonly ScopedAddress[];
  readonly total: number;
}

/** A scope, or why a full plan is made instead. */
export type ScopeDecision =
  | { readonly kind: "scoped"; readonly scope: PlanScope }
  | { readonly kind: "full"; readonly reason: string };

/**
 * Decision (the spec is silent on "too broad"): a change that reaches more than half of the
 * org's declared projects or contexts, and more than this many, is planned in full: a
 * partial read would read nearly as much, and a full plan also checks the drift.
 */
export const BROAD_CHANGE_MIN = 20;

/** What one org declares, flattened: each address's own canonical form, and its collections. */
interface OrgIndex {
  /** Address → canonical JSON of the item without its children's collections. */
  readonly items: Map<string, string>;
  /** `parent address \0 collection` for every collection the config manages (declares). */
  readonly managed: Set<string>;
  /** Org-level settings that change what every collection means (ignore, keep_unlisted…). */
  readonly orgLevel: Map<string, string>;
  readonly moved: Set<string>;
  /** `delete_unknown` entries, `[address, id]` as JSON. */
  readonly deleteUnknown: Set<string>;
  readonly counts: Counts;
}

type Item = Readonly<Record<string, unknown>>;

/**
 * A secret as the comparison sees it: where it comes from, and for a value written in the
 * file itself a hash of it (kept in memory, never output), since editing that value is a
 * change of the config. Decision: a value from `${env:}` or `${file:}` is compared by where it
 * comes from only: the config at REF resolves with today's environment, so a rotated value
 * is not a change of the config (a full plan, or `--force-secrets`, re-sets it).
 */
const secretForm = (s: Secret): unknown =>
  s.origin === "literal" && s.isResolved
    ? { secret: s.origin, sha256: createHash("sha256").update(s.reveal()).digest("hex") }
    : { secret: s.origin };

const canonicalText = (v: unknown): string => JSON.stringify(canonicalConfig(v, secretForm));

/** The item without the collections of the kinds under it (each has its own address). */
const ownText = (item: unknown, childKeys: readonly string[]): string => {
  if (item === null || typeof item !== "object" || childKeys.length === 0) {
    return canonicalText(item);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item as Item)) if (!childKeys.includes(k)) out[k] = v;
  return canonicalText(out);
};

const childKeysOf = (parent: string): string[] => childKinds(parent).map((k) => k.config.yamlKey);

/**
 * The org's own lists that change what every collection means: a change to one is not
 * scoped (which items `ignore` or `keep_unlisted` now cover is a question of the live
 * state). `moved` is compared entry by entry instead.
 */
const ORG_LEVEL_KEYS = ["ignore", "keep_unlisted", "ignore_fields", "guards"] as const;

const indexOrg = (org: DesiredOrg): OrgIndex => {
  const items = new Map<string, string>();
  const managed = new Set<string>();
  const walk = (parentType: string, parent: unknown, parentAddress: string): void => {
    for (const kind of childKinds(parentType)) {
      // Projects are walked below (the loader builds them; the kind lists only some).
      if (kind.config.builtByLoader) continue;
      const found = kind.collection.desiredIn(parent as never);
      if (found === undefined) continue;
      managed.add(`${parentAddress}\u0000${kind.collection.name}`);
      const { name, keyed } = kind.collection.segment;
      const childKeys = childKeysOf(kind.type);
      for (const d of found) {
        const address = keyed
          ? childAddress(parentAddress, { name, key: kind.collection.addressKey(d) })
          : childAddress(parentAddress, { name });
        items.set(address, `${items.get(address) ?? ""}${ownText(d, childKeys)}`);
        walk(kind.type, d, address);
      }
    }
  };
  walk("org", org, "");
  const projectKeys = childKeysOf("project");
  for (const [key, p] of org.projects) {
    const address = addr.project(key);
    items.set(address, ownText(p, projectKeys));
    walk("project", p, address);
  }
  const orgLevel = new Map<string, string>();
  const record = org as unknown as Item;
  for (const k of ORG_LEVEL_KEYS) {
    const v = record[k];
    const sorted = Array.isArray(v)
      ? (v as unknown[]).map((x) => JSON.stringify(canonicalConfig(x))).sort()
      : canonicalConfig(v);
    orgLevel.set(k, JSON.stringify(sorted ?? null));
  }
  const moved = new Set(
    (org.moved ?? []).map((m) => JSON.stringify([normal(m.from), normal(m.to)])),
  );
  const deleteUnknown = new Set(
    (org.delete_unknown ?? []).map((e) => JSON.stringify([normal(e.address), e.id])),
  );
  return {
    items,
    managed,
    orgLevel,
    moved,
    deleteUnknown,
    counts: {
      addresses: items.size,
      projects: org.projects.size,
      contexts: org.contexts?.size ?? 0,
    },
  };
};

const normal = (address: string): string => {
  const segments = parseAddress(address);
  return segments === undefined ? address : formatAddress(segments);
};

const bySlug = (config: DesiredConfig): Map<string, OrgIndex> =>
  new Map(mergeOrgs(config.orgs).map((o) => [o.slug, indexOrg(o)]));

/** The top step of an address (`project["x"]` of `project["x"].webhook["y"]`). */
const topOf = (address: string): AddressSegment | undefined => parseAddress(address)?.[0];

/**
 * What changed between the config at `since` (`before`) and now (`after`), as a scope, or
 * why it cannot be scoped. Both configs are the loader's (expanded and merged).
 *
 * `whole`: the whole config now, when `before` and `after` are the same part of it at each
 * side (the files that differ, and those that hold templates: src/cli/changed-since.ts):
 * what is declared in the other files is the same on both sides, so it is no change, but it
 * counts in the total and in how broad a change is.
 */
export const scopeOfChange = (
  before: DesiredConfig,
  after: DesiredConfig,
  since: string,
  whole?: DesiredConfig,
): ScopeDecision => {
  const was = bySlug(before);
  const now = bySlug(after);
  const all = whole === undefined ? undefined : declaredCounts(whole);
  const wasOrgs = [...was.keys()].sort();
  const nowOrgs = [...now.keys()].sort();
  if (wasOrgs.join("\n") !== nowOrgs.join("\n")) {
    return {
      kind: "full",
      reason: `the list of orgs changed since ${since} (${wasOrgs.join(", ") || "none"} → ${nowOrgs.join(", ") || "none"})`,
    };
  }
  if (
    JSON.stringify(canonicalConfig(before.policies ?? null)) !==
    JSON.stringify(canonicalConfig(after.policies ?? null))
  ) {
    return { kind: "full", reason: `policies or exceptions changed since ${since}` };
  }
  const addresses: ScopedAddress[] = [];
  let total = 0;
  for (const slug of nowOrgs) {
    const a = was.get(slug) as OrgIndex;
    const b = now.get(slug) as OrgIndex;
    for (const k of ORG_LEVEL_KEYS) {
      if (a.orgLevel.get(k) !== b.orgLevel.get(k)) {
        return {
          kind: "full",
          reason: `org ${slug}: \`${k}\` changed since ${since}, which can change what every collection holds`,
        };
      }
    }
    // A collection that became managed or unmanaged under a parent both sides declare: its
    // live items start (or stop) being deleted when unlisted, which only a full read shows.
    for (const [x, y, became] of [
      [a, b, "managed"],
      [b, a, "unmanaged"],
    ] as const) {
      for (const m of y.managed) {
        if (x.managed.has(m)) continue;
        const [parent, collection] = m.split("\u0000") as [string, string];
        if (parent !== "" && !(x.items.has(parent) && y.items.has(parent))) continue;
        return {
          kind: "full",
          reason: `org ${slug}: \`${collection}\` of ${parent === "" ? "the org" : parent} became ${became} since ${since}`,
        };
      }
    }
    const changed = new Set<string>();
    for (const [address, text] of b.items) if (a.items.get(address) !== text) changed.add(address);
    for (const address of a.items.keys()) if (!b.items.has(address)) changed.add(address);
    // `moved` entries added or removed: both ends are in scope (a rename is planned at `to`).
    for (const m of symmetricDifference(a.moved, b.moved)) {
      for (const end of JSON.parse(m) as string[]) changed.add(end);
    }
    // `delete_unknown` entries added or removed: the item they name is in scope, with the
    // item holding it (its collection is read, so the delete is planned as in a full plan).
    for (const e of symmetricDifference(a.deleteUnknown, b.deleteUnknown)) {
      const [address] = JSON.parse(e) as [string, string];
      for (const a of withHolder(address)) changed.add(a);
    }
    const declared = mergeOrgs((whole ?? after).orgs).find((o) => o.slug === slug);
    if (declared !== undefined) for (const r of referrersOf(declared, changed)) changed.add(r);
    const counts = all?.get(slug);
    // With the whole config's counts (the parts compared are its changed files): what it
    // declares, plus what the ref declared that is gone.
    total +=
      counts === undefined
        ? new Set([...a.items.keys(), ...b.items.keys()]).size
        : counts.addresses + [...a.items.keys()].filter((x) => !b.items.has(x)).length;
    const broad = broadness(changed, counts ?? b.counts);
    if (broad !== undefined) {
      return { kind: "full", reason: `org ${slug}: the change since ${since} reaches ${broad}` };
    }
    for (const address of [...changed].sort()) addresses.push({ org: slug, address });
  }
  // Orgs declared only in the files that did not change: counted, never changed.
  for (const [slug, counts] of all ?? []) if (!now.has(slug)) total += counts.addresses;
  return { kind: "scoped", scope: { since, addresses, total } };
};

/**
 * The items that name a changed item through a reference, with the item holding them: in
 * scope too. A referred item's change can change its referrers without a word of theirs
 * changing: a group's description change re-creates it with a new id, so the restrictions
 * that name it (which the service deletes with the group) must be re-created and the SSO
 * mappings re-sent with the new id; a deleted group's referrers are refused. A full plan
 * does all of that; a partial plan that left them out read nothing of them and planned none
 * of it (the restriction was gone after the apply, widening who may use the context). A
 * reference by name or slug follows the changed item of that key; one by id cannot be told
 * apart without the live state, so every by-id referrer of a kind with a changed item is in.
 */
const referrersOf = (org: DesiredOrg, changed: ReadonlySet<string>): string[] => {
  // The keys of the changed items, by the name of their last address step.
  const keys = new Map<string, Set<string>>();
  for (const address of changed) {
    const last = parseAddress(address)?.at(-1);
    if (last?.key === undefined) continue;
    const set = keys.get(last.name) ?? new Set<string>();
    set.add(last.key);
    keys.set(last.name, set);
  }
  const out: string[] = [];
  for (const kind of ALL_KINDS) {
    for (const ref of kind.references ?? []) {
      const names = keys.get(kindOf(ref.to).collection.segment.name);
      if (names === undefined) continue;
      for (const w of ref.written(org)) {
        if (w.form !== "id" && !names.has(w.value)) continue;
        // The collection the referrer is in is read and planned whole (an item re-created
        // under another key, the stale one deleted), through the item that holds it.
        out.push(...withHolder(w.address));
      }
    }
  }
  return out;
};

/** An address, and the item that holds it when it has one (its collection is read whole). */
const withHolder = (address: string): string[] => {
  const steps = parseAddress(address);
  return steps !== undefined && steps.length > 1
    ? [address, formatAddress(steps.slice(0, -1))]
    : [address];
};

const symmetricDifference = (a: ReadonlySet<string>, b: ReadonlySet<string>): string[] => [
  ...[...a].filter((x) => !b.has(x)),
  ...[...b].filter((x) => !a.has(x)),
];

/** How many addresses, projects and contexts an org declares. */
interface Counts {
  readonly addresses: number;
  readonly projects: number;
  readonly contexts: number;
}

/**
 * Each org's counts, without the addresses' texts (a 40,000-item config is walked in a few
 * tens of milliseconds this way; building every address string took ~0.4 s).
 */
const declaredCounts = (config: DesiredConfig): Map<string, Counts> => {
  const count = (parentType: string, parent: unknown): number => {
    let n = 0;
    for (const kind of childKinds(parentType)) {
      if (kind.config.builtByLoader) continue;
      const found = kind.collection.desiredIn(parent as never);
      if (found === undefined) continue;
      n += found.length;
      if (childKinds(kind.type).length > 0) for (const d of found) n += count(kind.type, d);
    }
    return n;
  };
  return new Map(
    mergeOrgs(config.orgs).map((org) => {
      let addresses = count("org", org) + org.projects.size;
      for (const p of org.projects.values()) addresses += count("project", p);
      return [
        org.slug,
        { addresses, projects: org.projects.size, contexts: org.contexts?.size ?? 0 },
      ];
    }),
  );
};

/** "N of M projects" when a change reaches most of them (BROAD_CHANGE_MIN). */
const broadness = (changed: ReadonlySet<string>, now: Counts): string | undefined => {
  const parents = new Map<string, Set<string>>();
  for (const address of changed) {
    const top = topOf(address);
    if (top?.key === undefined) continue;
    const seen = parents.get(top.name) ?? new Set<string>();
    seen.add(top.key);
    parents.set(top.name, seen);
  }
  for (const [name, declared] of [
    ["project", now.projects],
    ["context", now.contexts],
  ] as const) {
    const n = parents.get(name)?.size ?? 0;
    if (n > BROAD_CHANGE_MIN && n * 2 > declared) {
      return `${n.toLocaleString("en-US")} of ${declared.toLocaleString("en-US")} ${name}s (a template or \`extends\` they share?): a partial plan would read nearly all of them`;
    }
  }
  return undefined;
};

/** Tests of one org's scope: an address inside it, on the way to it, a collection on the way. */
export interface ScopeIndex {
  /** The address or an ancestor is in scope: a change there is kept. */
  readonly covers: (org: string, address: string) => boolean;
  /** The address is in scope, inside it, or on the way to an address in scope. */
  readonly touches: (org: string, address: string) => boolean;
  /** Some address in scope (or on the way to one) is in `parent`'s collection `segment`. */
  readonly collectionTouched: (org: string, parent: string, segment: string) => boolean;
}

const k2 = (a: string, b: string): string => `${a}\u0000${b}`;

export const scopeIndex = (addresses: readonly ScopedAddress[]): ScopeIndex => {
  const exact = new Set<string>();
  const onTheWay = new Set<string>();
  const collections = new Set<string>();
  for (const { org, address } of addresses) {
    exact.add(k2(org, address));
    const segments = parseAddress(address) ?? [];
    for (let n = 0; n < segments.length; n++) {
      const parent = formatAddress(segments.slice(0, n));
      collections.add(`${k2(org, parent)}\u0000${(segments[n] as AddressSegment).name}`);
      if (n > 0) onTheWay.add(k2(org, parent));
    }
  }
  const covers = (org: string, address: string): boolean => {
    if (exact.has(k2(org, address))) return true;
    const segments = parseAddress(address) ?? [];
    for (let n = 1; n < segments.length; n++) {
      if (exact.has(k2(org, formatAddress(segments.slice(0, n))))) return true;
    }
    return false;
  };
  return {
    covers,
    touches: (org, address) => onTheWay.has(k2(org, address)) || covers(org, address),
    collectionTouched: (org, parent, segment) =>
      collections.has(`${k2(org, parent)}\u0000${segment}`) || covers(org, parent),
  };
};

/**
 * The config narrowed to a scope: the org-level collections that hold an address in scope
 * (contexts: only the contexts in scope), the projects in scope with only their collections
 * that hold one. What it leaves out is neither read nor planned; the org's own lists
 * (`ignore`, `keep_unlisted`, `moved`…) are kept whole. Decision: a narrowed `contexts:` is
 * still authoritative, so the planner would delete the contexts left out of it: the plan
 * keeps only the changes the scope covers (and the reader reads nothing of a context out of
 * scope), so those deletes are never planned into the result.
 */
export const narrowDesired = (desired: DesiredConfig, scope: ScopeIndex): DesiredConfig => ({
  ...desired,
  orgs: desired.orgs.map((org) => narrowOrg(org, scope)),
});

const narrowOrg = (org: DesiredOrg, scope: ScopeIndex): DesiredOrg => {
  const out: Record<string, unknown> = { ...(org as unknown as Item) };
  for (const kind of childKinds("org")) {
    if (kind.config.builtByLoader) continue;
    const key = kind.config.yamlKey;
    if (out[key] === undefined) continue;
    if (!scope.collectionTouched(org.slug, "", kind.collection.segment.name)) {
      delete out[key];
      continue;
    }
    // The contexts (a parent whose children are read one by one): only those in scope.
    if (
      kind.collection.segment.keyed &&
      out[key] instanceof Map &&
      childKinds(kind.type).length > 0
    ) {
      const map = out[key] as ReadonlyMap<string, unknown>;
      const name = kind.collection.segment.name;
      out[key] = new Map(
        [...map].filter(([, d]) =>
          scope.touches(org.slug, childAddress("", { name, key: kind.collection.addressKey(d) })),
        ),
      );
    }
  }
  const projects = new Map<string, DesiredProject>();
  for (const [key, p] of org.projects) {
    const address = addr.project(key);
    if (!scope.touches(org.slug, address)) continue;
    projects.set(
      key,
      scope.covers(org.slug, address) ? p : narrowProject(org.slug, p, address, scope),
    );
  }
  out.projects = projects;
  return out as unknown as DesiredOrg;
};

const narrowProject = (
  org: string,
  p: DesiredProject,
  address: string,
  scope: ScopeIndex,
): DesiredProject => {
  const out: Record<string, unknown> = { ...(p as unknown as Item) };
  for (const kind of childKinds("project")) {
    if (!scope.collectionTouched(org, address, kind.collection.segment.name)) {
      delete out[kind.config.yamlKey];
    }
  }
  return out as unknown as DesiredProject;
};
