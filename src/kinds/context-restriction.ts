/**
 * Context restrictions (spec: api-v3.md "Context restriction", Context restrictions).
 * Create and delete only: the API has no update. Identity is type + value (the project
 * slug, the expression, the group id, or `all-members` for the org-wide group whose
 * match_pattern is the org id), and a restriction has no other field, so "a changed
 * restriction" is a different address: the plan shows the old one deleted and the new one
 * created.
 *
 * Decision: restrictions are never shown as `replace`: with type+value as the key, a
 * changed restriction is a new key. The ordering still gives the safe order of a replace:
 * within one context, restriction creates run before restriction deletes
 * (src/plan/order.ts), so a context is never left with fewer restrictions (wider access)
 * than either the old or the new config allows.
 */

import { formatLocation } from "../core/errors.js";
import { isUuid } from "../core/uuid.js";
import {
  type ContextRestrictionAttributes,
  isRestrictionType,
  type RestrictionTypeWire,
  type V3Resource,
} from "../core/wire.js";
import { addr, type RestrictionType, restrictionKey } from "../model/address.js";
import type { DesiredOrg, DesiredRestriction } from "../model/desired.js";
import type { LiveOrg, LiveRestriction } from "../model/live.js";
import { call } from "./calls.js";
import { newComparison } from "./compare.js";
import { type ConfigEntry, escapeText, groupBy, idsOf, scopeName } from "./config-doc.js";
import type {
  KindRefs,
  ListScope,
  PlannedChangeView,
  ResourceKind,
  WrittenReference,
} from "./contract.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { pageOptions, requireId, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { lowerUuid } from "./vcs.js";

const UUID = /^[0-9a-f-]{36}$/i;

/**
 * A restriction as written (exactly one key: the schema says so).
 * Decision: `project:` is a project slug (three segments, as under `projects`) or a UUID;
 * `group:` is a UUID, `all-members`, or (issue 17) a group name, resolved through the org's
 * groups: a declared group first (created by the same apply when it is not live), then a
 * live one.
 */
export interface RawRestriction {
  project?: string;
  expression?: string;
  group?: string;
}

/** The schema's `restriction` object, checked against RawRestriction (src/kinds/raw-keys.ts). */
export const RESTRICTION_KEYS = {
  restriction: keysOf<RawRestriction>()(["project", "expression", "group"], []),
};

/**
 * The key a config would write for a live restriction (src/model/live.ts LiveRestriction):
 * spec: api-v3.md "Context restriction": `match_pattern` is a project id, an expression, or a
 * group id, and "a restriction for every member of the owning org is a group restriction
 * whose match_pattern is the org id" (written `all-members` in a config).
 */
export const restrictionKeyValue = (
  type: RestrictionTypeWire,
  matchPattern: string,
  orgId: string | undefined,
  slugOf: (projectId: string) => string | undefined,
  groupNameOf: (groupId: string) => string | undefined = () => undefined,
): string => {
  switch (type) {
    case "project":
      // Decision: a project id that cannot be resolved to a slug (deleted, or not visible to
      // this token) stays the id, so the planner can still match a config that pins it.
      return slugOf(matchPattern) ?? matchPattern;
    case "group": {
      if (matchPattern === orgId) return "all-members";
      // Issue 17: a group's name when the org's groups were read and the name says one group
      // (not `all-members`, not an id); otherwise its id.
      const name = groupNameOf(matchPattern);
      return name !== undefined && isGroupName(name) ? name : matchPattern;
    }
    case "expression":
      return matchPattern;
  }
};

const toLiveRestriction =
  (scope: ListScope) =>
  (r: V3Resource<ContextRestrictionAttributes>): LiveRestriction => {
    const id = requireId(r, "context restriction");
    const { restriction_type: type, match_pattern: pattern } = r.attributes as {
      restriction_type?: unknown;
      match_pattern?: unknown;
    };
    // docs/spec-notes.md "Reading the real service": a type Waybill does not know (or an
    // item without type or pattern) is read as it is, keyed by its pattern or its id, and
    // is `unknown` to the planner (`unknownRestriction`): never matched, never deleted.
    if (!isRestrictionType(type) || typeof pattern !== "string") {
      return {
        id,
        restriction_type: String(type ?? "") as RestrictionTypeWire,
        match_pattern: typeof pattern === "string" ? pattern : "",
        key_value: typeof pattern === "string" && pattern !== "" ? pattern : id,
      };
    }
    return {
      id,
      restriction_type: type,
      match_pattern: pattern,
      key_value: restrictionKeyValue(
        type,
        pattern,
        scope.org_id,
        scope.projectSlug ?? (() => undefined),
      ),
    };
  };

/**
 * Why a live restriction cannot be named (design.md §5 "Reading the real service"), or
 * undefined: its type is not one of the spec's, or it has no pattern.
 */
export const unknownRestriction = (l: LiveRestriction): string | undefined => {
  if (!isRestrictionType(l.restriction_type)) {
    return `a restriction of type ${JSON.stringify(l.restriction_type)}, which Waybill does not know (the service may add types): listed, never updated or deleted`;
  }
  if (l.match_pattern === "")
    return "a restriction without a pattern: listed, never updated or deleted";
  return undefined;
};

/** The value a config writes for a restriction: slug, expression, group id or `all-members`. */
export const desiredRestrictionValue = (d: DesiredRestriction): string => {
  switch (d.type) {
    case "project":
      return d.project;
    case "expression":
      return d.expression;
    case "group":
      return d.group;
  }
};

/** Whether a restriction's `group:` value is a group *name* (issue 17): not `all-members`, not an id. */
export const isGroupName = (value: string): boolean =>
  value !== "all-members" && !UUID.test(value) && value !== "";

/**
 * The `match_pattern` to send: a project id, the expression, a group id, or the org id for
 * `all-members` (spec: "A restriction for every member of the owning org is a group
 * restriction whose match_pattern is the org id"). Undefined when a project is unknown, and
 * for a group this plan creates (its id is known at apply: `refParams`).
 */
export const matchPattern = (d: DesiredRestriction, env: KindRefs): string | undefined => {
  switch (d.type) {
    case "project":
      return env.projectId(d.project);
    case "expression":
      return d.expression;
    case "group": {
      if (d.group === "all-members" || d.group === env.orgId) return env.orgId;
      if (!isGroupName(d.group)) return d.group;
      const id = env.refId("group", d.group);
      return typeof id === "string" ? id : undefined;
    }
  }
};

/** The order export writes a context's restrictions in: by type, then by value. */
const RESTRICTION_ORDER: Readonly<Record<RestrictionType, number>> = {
  project: 0,
  expression: 1,
  group: 2,
};

const PROJECT_SLUG = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * A context's live restrictions as the config writes them: `{<type>: <value>}` (a project
 * slug, or its id when it could not be resolved; the expression; a group id or
 * `all-members`), sorted by type then value. Several live restrictions with one key, or a
 * value the schema does not allow, go under `ignore`.
 */
const restrictionEntries = (
  items: readonly LiveRestriction[],
  context: string,
): ConfigEntry<LiveRestriction>[] => {
  const out: ConfigEntry<LiveRestriction>[] = [];
  const byKey = groupBy(items, (r) => restrictionKey(r.restriction_type, r.key_value));
  const order = (t: string): number =>
    isRestrictionType(t) ? RESTRICTION_ORDER[t] : Object.keys(RESTRICTION_ORDER).length;
  const sorted = [...byKey.values()].sort(([a], [z]) =>
    a!.restriction_type === z!.restriction_type
      ? a!.key_value < z!.key_value
        ? -1
        : a!.key_value > z!.key_value
          ? 1
          : 0
      : order(a!.restriction_type) - order(z!.restriction_type) ||
        (a!.restriction_type < z!.restriction_type ? -1 : 1),
  );
  for (const list of sorted) {
    const r = list[0]!;
    const type = r.restriction_type;
    const value = r.key_value;
    const glob = addr.contextRestriction(context, type, value);
    const ignore = (reason: string) => out.push({ ignored: { glob, reason } });
    const unknown = unknownRestriction(r);
    if (unknown !== undefined) {
      // design.md §5: exported as a comment, not as config (plan lists it as unknown), with
      // its live id: what a `delete_unknown` entry names beside the address.
      out.push({ ignored: { glob, reason: `${unknown} (id ${idsOf(list)})`, commentOnly: true } });
    } else if (list.length > 1) {
      ignore(`${list.length} live restrictions share this key (ids ${idsOf(list)})`);
    } else if (type === "project" && !PROJECT_SLUG.test(value) && !UUID.test(value)) {
      ignore("the project is neither a slug nor an id");
    } else if (type === "group" && isGroupName(value) && value.trim() !== value) {
      ignore("the group's name has leading or trailing spaces");
    } else if (value === "") {
      ignore("the pattern is empty");
    } else {
      out.push({
        written: restrictionKey(type, value),
        item: r,
        doc: { [type]: escapeText(value) },
      });
    }
  }
  return out;
};

export const contextRestrictionKind: ResourceKind<DesiredRestriction, LiveRestriction, "context"> =
  defineKind<DesiredRestriction, LiveRestriction, "context">({
    identity: {
      type: "context_restriction",
      parent: "context",
      // Identity is what the service stores (type + match_pattern), so a project written as a
      // slug or as an id, and `all-members` or the org id, match the same live restriction.
      // A project that cannot be resolved keeps its slug: it matches nothing, and the create
      // fails the plan as "absent or not visible".
      desiredKey: (d, refs) =>
        refs === undefined
          ? restrictionKey(d.type, desiredRestrictionValue(d))
          : restrictionKey(d.type, matchPattern(d, refs) ?? `?${desiredRestrictionValue(d)}`),
      liveKey: (l) => restrictionKey(l.restriction_type, l.match_pattern),
      // An unmatched live restriction is addressed (and listed by drift) in the config's
      // words: a project's slug, `all-members`, a group's name.
      liveAddressKey: (l) => restrictionKey(l.restriction_type, l.key_value),
      liveId: (l) => l.id,
      // A restriction has no name: it is identified by its type and value.
      rename: cannotRename(
        "a context restriction has no name: it is identified by its type and value",
      ),
    },
    diff: {
      replaceOrder: "never",
      replaceOrderWhy:
        "type and value are the identity: a changed restriction is a create plus a delete, creates first",
      desiredView: (d, env) => ({
        restriction_type: d.type,
        match_pattern: matchPattern(d, env) ?? null,
        value: desiredRestrictionValue(d),
      }),
      liveView: (l) => ({
        restriction_type: l.restriction_type,
        match_pattern: l.match_pattern,
        value: l.key_value,
      }),
      compare: () => newComparison(),
    },
    wire: {
      unknown: unknownRestriction,
      createCalls: (d) => [
        d.type === "group" && isGroupName(d.group)
          ? // Issue 17: a group by name: its id is a param, known at apply when this plan
            // creates the group (`refParams`).
            call("create", "POST", "/context-restrictions", {
              body: "envelope",
              body_fields: ["restriction_type", "references.context"],
              param_fields: { match_pattern: "group_id" },
            })
          : call("create", "POST", "/context-restrictions", {
              body: "envelope",
              body_fields: ["restriction_type", "match_pattern", "references.context"],
            }),
      ],
      refParams: (d, env): Readonly<Record<string, string | { readonly pending: string }>> => {
        if (d.type !== "group" || !isGroupName(d.group)) return {};
        const id = env.refId("group", d.group);
        return id === undefined ? {} : { group_id: id };
      },
      // spec: Context restrictions: DELETE needs filter[context_id] (ids unique only within a context).
      deleteCalls: () => [
        call("delete", "DELETE", "/context-restrictions/{id}", {
          query: { "filter[context_id]": "{context_id}" },
        }),
      ],
      // Read only where a context declares `restrictions:` (defineFlatKind's livePlace): a deleted
      // context takes its restrictions with it, and the plan says nothing about them.
      // spec: api-v3.md Context restrictions: listed with filter[context_id] (required).
      list: async (api, scope, options) => {
        const toLive = toLiveRestriction(scope);
        return (
          await api.listV3<ContextRestrictionAttributes>(
            "/context-restrictions",
            { "filter[context_id]": scopeId(scope, "context_id") },
            pageOptions(options, toLive),
          )
        ).map(toLive);
      },
    },
    place: {
      // Otherwise a context's list's place: under `restrictions`, removed with the context,
      // addressed `context["<name>"].restriction["<type>:<value>"]` in the config's words.
      collection: {
        segment: { name: "restriction", keyed: true },
        addressKey: (d) => restrictionKey(d.type, desiredRestrictionValue(d)),
        createsBeforeDeletes: true,
        refuse: (item, parents) => {
          if (item.action !== "create" || item.after?.match_pattern !== null) return undefined;
          if (item.desired.type === "group") {
            // A group this plan creates has its id at apply; any other name is unknown (the
            // CLI reports those with file:line:col before planning, src/kinds/references.ts).
            return parents.desired.groups?.has(item.desired.group) === true
              ? undefined
              : `the group ${JSON.stringify(item.desired.group)} is neither declared under groups nor a group of the org, so the restriction cannot be created`;
          }
          return `the project ${String(item.after.value)} is absent or not visible, so the restriction cannot be created`;
        },
      },
    },
    config: {
      yamlKey: "restrictions",
      summary: { key: "restrictions", one: "restriction" },
      // A list (declared at its value): a restriction has no key of its own.
      shape: "list",
      schemaDef: "restriction",
      schemaKeys: RESTRICTION_KEYS,
      build: (ctx, _index, r: RawRestriction, path): DesiredRestriction => {
        const source = ctx.at(path, "value");
        const [type, value] = (
          r.project !== undefined
            ? ["project", r.project]
            : r.expression !== undefined
              ? ["expression", r.expression]
              : ["group", r.group ?? ""]
        ) as [RestrictionType, string];
        // A project or group id is a UUID: lowered (src/kinds/vcs.ts lowerUuid).
        const v = type === "expression" ? ctx.text(value) : lowerUuid(ctx.text(value));
        if (type === "project") return { type, project: v, source };
        if (type === "expression") return { type, expression: v, source };
        return { type, group: v, source };
      },
      // A list (config.shape): a restriction has no key of its own, only `{<type>: <value>}`.
      export: (items, scope) => restrictionEntries(items, scopeName(scope, "parent")),
    },
    // Issue 17: `group:` names a group by name or id (`all-members` is the org, not a group).
    // The service deletes a restriction with its group (our emulator does).
    references: [
      {
        field: "group",
        to: "group",
        by: ["name", "id"],
        writtenAs: (name) => `- group: ${name}`,
        written: groupReferences,
        liveIds: (before) =>
          before.restriction_type === "group" && typeof before.match_pattern === "string"
            ? [before.match_pattern]
            : [],
        named: (r, nameOf, orgId) =>
          r.restriction_type === "group"
            ? {
                ...r,
                key_value: restrictionKeyValue(
                  "group",
                  r.match_pattern,
                  orgId,
                  () => undefined,
                  nameOf,
                ),
              }
            : r,
        deletedWithReferred: true,
      },
      // `project:` names a project by slug or id (design.md §1: "project slug (or id)"). The
      // project is the walk's parent (src/live/read-live-state.ts resolves the slugs written
      // here with the declared ones; src/run/unknown-projects.ts reports unknown ones), and a
      // live restriction's id is given as the project's slug where it is known.
      {
        field: "project",
        to: "project",
        by: ["slug", "id"],
        writtenAs: (slug) => `- project: ${slug}`,
        written: projectReferences,
        liveIds: (before) =>
          before.restriction_type === "project" && typeof before.match_pattern === "string"
            ? [before.match_pattern]
            : [],
        named: (r, nameOf) =>
          r.restriction_type === "project"
            ? {
                ...r,
                key_value: restrictionKeyValue("project", r.match_pattern, undefined, nameOf),
              }
            : r,
        // Decision: no destroy edge (a project's delete does not wait for the restrictions
        // naming it): spec api-v3.md "Context restriction" says nothing of what deleting a
        // project does to them, and apply ordered them so before references were data.
        ordersDeletes: false,
      },
    ],
    hooks: {
      // The created restriction is the one with the planned type and match_pattern (the
      // service's own words: a project id, the org id for all members).
      adopt: {
        by: "relist",
        matches: (_d, after, l) =>
          l.restriction_type === after.restriction_type && l.match_pattern === after.match_pattern,
        // Decision: a restriction the context already has (400, e.g. the default group
        // restriction of a new context that the config also declares) is adopted.
        adoptOnRefusal: true,
      },
      refusePlan: (org, live, changes) => lastGroupRestrictionRemoved(org, live, changes),
    },
  });

/** The group references the contexts of one org declaration write (not `all-members`). */
function* groupReferences(org: DesiredOrg): Iterable<WrittenReference> {
  for (const [name, c] of org.contexts ?? []) {
    for (const [i, r] of (c.restrictions ?? []).entries()) {
      if (r.type !== "group" || r.group === "all-members") continue;
      yield {
        address: addr.contextRestriction(name, "group", r.group),
        value: r.group,
        form: isGroupName(r.group) ? "name" : "id",
        source: r.source,
        path: `contexts.${name}.restrictions.${i}.group`,
      };
    }
  }
}

/** The project references the contexts of one org declaration write, by slug or by id. */
function* projectReferences(org: DesiredOrg): Iterable<WrittenReference> {
  for (const [name, c] of org.contexts ?? []) {
    for (const [i, r] of (c.restrictions ?? []).entries()) {
      if (r.type !== "project") continue;
      yield {
        address: addr.contextRestriction(name, "project", r.project),
        value: r.project,
        form: isUuid(r.project) ? "id" : "slug",
        source: r.source,
        path: `contexts.${name}.restrictions.${i}.project`,
      };
    }
  }
}

/**
 * Issue 28: contexts whose last group restriction this plan removes while the org requires
 * one (`is_context_group_restriction_required`, spec: api-v3.md Org settings; the value this
 * config declares wins over the live one, as for a new context): refused like a new context
 * without one (src/kinds/context.ts `refuse`), since the context could no longer be used.
 */
export const lastGroupRestrictionRemoved = (
  org: DesiredOrg,
  live: LiveOrg,
  changes: readonly PlannedChangeView[],
): string[] => {
  const required =
    org.settings?.is_context_group_restriction_required ??
    live.settings?.is_context_group_restriction_required ??
    false;
  if (!required || org.contexts === undefined) return [];
  const mine = changes.filter((c) => c.org === org.slug);
  const deletedContexts = new Set(
    mine.flatMap((c) => (c.resource_type === "context" && c.action === "delete" ? [c.id] : [])),
  );
  const isGroup = (v: { readonly restriction_type?: unknown } | null): boolean =>
    v?.restriction_type === "group";
  const out: string[] = [];
  for (const lc of live.contexts ?? []) {
    const declared = org.contexts.get(lc.name);
    if (declared?.restrictions === undefined || deletedContexts.has(lc.id)) continue;
    const before = (lc.restrictions ?? []).filter((r) => r.restriction_type === "group").length;
    if (before === 0) continue; // nothing is removed that was there
    const ofThis = mine.filter(
      (c) => c.resource_type === "context_restriction" && c.params.context_id === lc.id,
    );
    const removed = ofThis.filter((c) => c.action === "delete" && isGroup(c.before)).length;
    const added = ofThis.filter((c) => c.action === "create" && isGroup(c.after)).length;
    if (before - removed + added > 0) continue;
    out.push(
      `${addr.context(lc.name)} (${formatLocation(declared.source)}): the org setting is_context_group_restriction_required is true, and this plan removes the context's last group restriction, so nobody could use it; keep a group restriction in its restrictions (e.g. - group: all-members, or a group id)`,
    );
  }
  return out;
};
