/**
 * Plan-time config errors (issue 17): a restriction that names a group by a name that is
 * neither declared under the org's `groups:` nor a group of the org. Reported like
 * validation errors, every one at once, with FILE:LINE:COL and the closest name ("did you
 * mean"), before anything is planned or written. Pure: the org's groups were read by the
 * live reader (the group kind is read whenever a restriction names a group).
 */
import type { ConfigDiagnostic } from "../config/diagnostic.js";
import { sortDiagnostics } from "../config/diagnostic.js";
import { closest } from "../config/suggest.js";
import { isGroupName } from "../kinds/context-restriction.js";
import { makeIgnoreMatcher } from "../live/resolve.js";
import { addr } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import { UnknownReferenceError } from "./unknown-projects.js";

/** One diagnostic per restriction whose group name the org does not have. */
export const unknownGroupDiagnostics = (
  desired: DesiredConfig,
  live: LiveState,
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  // Several files may declare one org: the names any of them declares count.
  const declaredByOrg = new Map<string, Set<string>>();
  for (const org of desired.orgs) {
    const names = declaredByOrg.get(org.slug) ?? new Set<string>();
    for (const name of org.groups?.keys() ?? []) names.add(name);
    declaredByOrg.set(org.slug, names);
  }
  for (const org of desired.orgs) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) continue;
    const known = new Set([
      ...(declaredByOrg.get(org.slug) ?? []),
      ...(liveOrg.groups ?? []).map((g) => g.name),
    ]);
    const ignored = makeIgnoreMatcher(org.ignore);
    const unknown = (name: string): string => {
      const guess = closest(
        name,
        [...known].filter((k) => k !== name),
      );
      return `no group ${JSON.stringify(name)} in org ${org.slug} (not declared under groups, and the org has none of that name)${
        guess === undefined
          ? "; declare it under groups, or use the group's id"
          : `; did you mean ${JSON.stringify(guess)}?`
      }`;
    };
    if (!ignored(addr.ssoGroupMappings())) {
      for (const [i, m] of (org.sso_group_mappings?.mappings ?? []).entries()) {
        if (!isGroupName(m.group) || known.has(m.group)) continue;
        out.push({
          file: m.source.file,
          line: m.source.line,
          col: m.source.col,
          path: `sso_group_mappings.${i}.group`,
          code: "unknown_group",
          message: unknown(m.group),
        });
      }
    }
    for (const [name, c] of org.contexts ?? []) {
      if (ignored(addr.context(name))) continue;
      for (const [i, r] of (c.restrictions ?? []).entries()) {
        if (r.type !== "group" || !isGroupName(r.group) || known.has(r.group)) continue;
        if (ignored(addr.contextRestriction(name, "group", r.group))) continue;
        out.push({
          file: r.source.file,
          line: r.source.line,
          col: r.source.col,
          path: `contexts.${name}.restrictions.${i}.group`,
          code: "unknown_group",
          message: unknown(r.group),
        });
      }
    }
  }
  return out;
};

/** The config names groups the org does not have. Exit 1; nothing was planned. */
export class UnknownGroupError extends UnknownReferenceError {
  readonly code = "unknown_group";

  constructor(diagnostics: readonly ConfigDiagnostic[]) {
    super("group", "the org", diagnostics);
  }
}

/** Throw UnknownGroupError when a restriction names a group the org does not have. */
export const checkGroupReferences = (desired: DesiredConfig, live: LiveState): void => {
  const found = unknownGroupDiagnostics(desired, live);
  if (found.length > 0) throw new UnknownGroupError(sortDiagnostics(found, desired.files));
};
