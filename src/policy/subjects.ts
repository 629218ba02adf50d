/**
 * What policy rules look at (issue 45, design.md §5 "Rules and guards"): one subject per
 * addressed item — a declared item (`on: config`), a planned change (`on: plan`), a live
 * item (`on: live`) — with its fields. Pure: built from the desired model, the plan, or the
 * live state, walking the kind registry, so a new kind is seen without an edit here.
 *
 * Fields: a config subject's are the item as written (a secret reads as "(sensitive)"); a
 * plan subject's are the change's masked `after` (its `before` for a delete), as the JSON
 * plan shows them; a live subject's are the kind's masked live view.
 */
import type { SourceLocation } from "../core/errors.js";
import type { ParentName, ResourceKind, Within } from "../kinds/contract.js";
import { ALL_KINDS, childKinds, kindOf } from "../kinds/registry.js";
import { addr, childAddress, type ResourceType } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveOrg, LiveState } from "../model/live.js";
import type { PolicyAction } from "../model/policy.js";
import type { Change } from "../plan/types.js";

export interface Subject {
  readonly org: string;
  readonly address: string;
  /** The address's segment names, dotted: `context.env`, `project.webhook`. */
  readonly shape: string;
  /** The item: its fields are read by dotted paths. */
  readonly fields: unknown;
  /** `on: plan`: the change's action and the paths of the fields it changes. */
  readonly action?: PolicyAction;
  readonly changed?: readonly string[];
  /** `on: config`: where the item is declared. */
  readonly source?: SourceLocation;
}

/** The shape of a resource type's addresses, from the registry (`project_env_var` → `project.env`). */
const SHAPES: ReadonlyMap<string, string> = (() => {
  const out = new Map<string, string>();
  const shapeOf = (kind: ResourceKind<unknown, unknown>): string => {
    const had = out.get(kind.type);
    if (had !== undefined) return had;
    const parent = kind.parent as string;
    const base =
      parent === "org"
        ? ""
        : parent === "project"
          ? "project"
          : shapeOf(kindOf(parent as ResourceType));
    const shape =
      base === "" ? kind.collection.segment.name : `${base}.${kind.collection.segment.name}`;
    out.set(kind.type, shape);
    return shape;
  };
  for (const kind of ALL_KINDS) shapeOf(kind);
  return out;
})();

export const shapeOfType = (type: ResourceType): string => SHAPES.get(type) ?? type;

/**
 * The parent address of an address whose shape is known: the address without its last
 * segment. A key is JSON-quoted, so `.name[` with a bare `"` after it never occurs inside
 * one (a quote in a key is escaped), and the last such run is the last segment.
 */
export const parentOf = (address: string, shape: string): string => {
  const dot = shape.lastIndexOf(".");
  if (dot < 0) return "";
  const last = shape.slice(dot + 1);
  const keyed = address.lastIndexOf(`.${last}["`);
  if (keyed >= 0) return address.slice(0, keyed);
  return address.endsWith(`.${last}`) ? address.slice(0, -(last.length + 1)) : "";
};

/** Every declared item of the config (projects included), with where it is declared. */
export const configSubjects = (desired: DesiredConfig): Subject[] => {
  const out: Subject[] = [];
  for (const org of desired.orgs) {
    for (const [key, p] of org.projects) {
      out.push({
        org: org.slug,
        address: addr.project(key),
        shape: "project",
        fields: p,
        source: p.source,
      });
    }
    for (const kind of ALL_KINDS) {
      // Projects are above (the kind's own list holds only those created or deleted).
      if (kind.config.builtByLoader) continue;
      const shape = shapeOfType(kind.type);
      for (const { address, item } of kind.desiredItems(org)) {
        const source = (item as { readonly source?: SourceLocation } | null)?.source;
        out.push({
          org: org.slug,
          address,
          shape,
          fields: item,
          ...(source === undefined ? {} : { source }),
        });
      }
    }
  }
  return out;
};

/** Every planned change as a subject. */
export const planSubjects = (changes: readonly Change[]): Subject[] =>
  changes.map((c) => ({
    org: c.org,
    address: c.address,
    shape: shapeOfType(c.resource_type),
    fields: c.after ?? c.before,
    action: c.action,
    changed: c.fields.map((f) => f.path),
  }));

/** Every live item read, as the kinds view it (masked). */
export const liveSubjects = (live: LiveState): Subject[] => {
  const out: Subject[] = [];
  for (const org of live.orgs) {
    walkLive(org, "org", org, "", { org }, out);
    for (const [key, p] of org.projects) {
      if (p.status !== "found") continue;
      const address = addr.project(key);
      out.push({ org: org.slug, address, shape: "project", fields: { slug: p.slug, id: p.id } });
      walkLive(org, "project", p, address, { org, project: p }, out);
    }
  }
  return out;
};

const walkLive = (
  org: LiveOrg,
  parent: ParentName | ResourceType,
  parentLive: unknown,
  parentAddress: string,
  within: Within,
  out: Subject[],
): void => {
  for (const kind of childKinds(parent)) {
    if (kind.config.builtByLoader) continue;
    const items = kind.collection.liveIn(parentLive as never, within);
    if (items === undefined) continue;
    const { name, keyed } = kind.collection.segment;
    const shape = shapeOfType(kind.type);
    for (const l of items) {
      const address = keyed
        ? childAddress(parentAddress, { name, key: kind.liveAddressKey(l) })
        : childAddress(parentAddress, { name });
      out.push({ org: org.slug, address, shape, fields: kind.liveView(l) });
      walkLive(org, kind.type, l, address, within, out);
    }
  }
};

/**
 * Where the config declares an item, looked up on first use: only a violation about a
 * change needs it, and a valid plan should not pay for indexing 40,000 items.
 */
export const desiredLocator = (
  desired: DesiredConfig,
): ((org: string, address: string) => SourceLocation | undefined) => {
  let index: Map<string, SourceLocation> | undefined;
  return (org, address) => {
    if (index === undefined) {
      index = new Map();
      for (const s of configSubjects(desired)) {
        if (s.source !== undefined) index.set(`${s.org}\u0000${s.address}`, s.source);
      }
    }
    return index.get(`${org}\u0000${address}`);
  };
};
