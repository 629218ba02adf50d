/**
 * Issue 28: what the plan refuses because the service would undo or refuse it, found
 * from the planned changes of one org (pure). Each check returns one message per problem;
 * the planner throws them together (a PlanError: nothing is applied).
 *
 * - A restriction the config declares that names a group this plan deletes: the service
 *   deletes the restriction with the group (our emulator does; the next plan then fails), so
 *   the config would not converge. The message names both places: the restriction's line and
 *   the `groups:` map that leaves the group out (or the group re-created with a new id).
 * - Removing a context's last group restriction while the org setting
 *   `is_context_group_restriction_required` is true: refused like a new context without one
 *   (src/kinds/context.ts `refuse`), since the context could no longer be used.
 */
import { formatLocation, type SourceLocation } from "../core/errors.js";
import { isGroupName } from "../kinds/context-restriction.js";
import { addr } from "../model/address.js";
import type { DesiredOrg } from "../model/desired.js";
import type { LiveOrg } from "../model/live.js";
import type { Change } from "./types.js";

const where = (s: SourceLocation): string => formatLocation(s);

/** Restrictions declared in the config that name a group this plan deletes or re-creates. */
export const restrictionsOnDeletedGroups = (
  org: DesiredOrg,
  live: LiveOrg,
  changes: readonly Change[],
  ignored: (address: string) => boolean,
): string[] => {
  // The live groups this plan removes, by id: a delete, or a replace (a new id).
  const gone = new Map<string, Change>();
  for (const c of changes) {
    if (c.org !== org.slug || c.resource_type !== "group") continue;
    if ((c.action === "delete" || c.action === "replace") && c.id !== undefined) gone.set(c.id, c);
  }
  if (gone.size === 0) return [];
  const liveIdByName = new Map((live.groups ?? []).map((g) => [g.name, g.id]));
  const out: string[] = [];
  for (const [name, context] of org.contexts ?? []) {
    if (ignored(addr.context(name))) continue;
    for (const r of context.restrictions ?? []) {
      if (r.type !== "group" || r.group === "all-members") continue;
      const address = addr.contextRestriction(name, "group", r.group);
      if (ignored(address)) continue;
      const byName = isGroupName(r.group);
      // A declared group is kept, or created or re-created by this plan: a restriction by
      // its name gets the new id at apply. By id, a re-created group's old id is gone.
      if (byName && org.groups?.has(r.group) === true) continue;
      const id = byName ? liveIdByName.get(r.group) : r.group;
      const change = id === undefined ? undefined : gone.get(id);
      if (change === undefined) continue;
      const groupName = change.before?.name;
      const named = `group ${JSON.stringify(typeof groupName === "string" ? groupName : r.group)}`;
      const declared = typeof groupName === "string" ? org.groups?.get(groupName) : undefined;
      out.push(
        change.action === "delete"
          ? `${address} (${where(r.source)}) names ${named}, which this plan deletes (${change.address}: not declared under groups at ${org.groups_source === undefined ? "the org's groups:" : where(org.groups_source)}); the service would delete the restriction with the group. Declare the group under groups to keep it, or remove the restriction`
          : `${address} (${where(r.source)}) names ${named} by its id ${JSON.stringify(r.group)}, which this plan re-creates with a new id (${change.address}${declared === undefined ? "" : ` at ${where(declared.source)}`}); the restriction would name a group that no longer exists. Name the group by its name (- group: ${typeof groupName === "string" ? groupName : "<name>"}) so the restriction follows it`,
      );
    }
  }
  return out;
};

/**
 * Contexts whose last group restriction this plan removes while the org requires one
 * (`is_context_group_restriction_required`, spec: api-v3.md Org settings; the value this
 * config declares wins over the live one, as for a new context).
 */
export const lastGroupRestrictionRemoved = (
  org: DesiredOrg,
  live: LiveOrg,
  changes: readonly Change[],
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
      `${addr.context(lc.name)} (${where(declared.source)}): the org setting is_context_group_restriction_required is true, and this plan removes the context's last group restriction, so nobody could use it; keep a group restriction in its restrictions (e.g. - group: all-members, or a group id)`,
    );
  }
  return out;
};
