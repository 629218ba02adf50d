/**
 * Issue 46: a `moved` entry renames a live item to an item the config declares (issue 19,
 * src/plan/moves.ts matches the live `from` item with the declared `to` item). A `to` the
 * config does not declare renamed nothing: the plan went on to delete the live item as
 * undeclared, or to leave it, and the typo went unnoticed. It is refused at load time, at
 * the `to` value, with the fix and the nearest declared sibling when one is close.
 *
 * Checked on the merged config (the `to` may be declared in another file of the folder),
 * and only when every file loaded cleanly: a file with problems is not built, so its items
 * would look undeclared.
 */
import { ALL_KINDS } from "../kinds/registry.js";
import { type AddressSegment, formatAddress, parseAddress } from "../model/address.js";
import type { DesiredConfig, DesiredOrg } from "../model/desired.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { closest } from "./suggest.js";

/** Every item address the org declares (projects' own items are in their kinds' lists). */
const declaredAddresses = (org: DesiredOrg): Set<string> => {
  const out = new Set<string>();
  for (const kind of ALL_KINDS) {
    for (const { address } of kind.desiredItems(org)) out.add(address);
  }
  return out;
};

/** The address without its last segment's key, for comparing siblings. */
const collectionOf = (segments: readonly AddressSegment[]): string =>
  formatAddress([...segments.slice(0, -1), { name: segments[segments.length - 1]?.name ?? "" }]);

/** The declared item of the same collection whose key is a likely typo of `to`'s. */
const nearestSibling = (to: string, declared: ReadonlySet<string>): string | undefined => {
  const target = parseAddress(to);
  const key = target?.[target.length - 1]?.key;
  if (target === undefined || key === undefined) return undefined;
  const collection = collectionOf(target);
  const siblings = new Map<string, string>();
  for (const address of declared) {
    const segments = parseAddress(address);
    const k = segments?.[segments.length - 1]?.key;
    if (segments !== undefined && k !== undefined && collectionOf(segments) === collection)
      siblings.set(k, address);
  }
  const near = closest(key, [...siblings.keys()]);
  return near === undefined ? undefined : siblings.get(near);
};

export const movedTargetDiagnostics = (config: DesiredConfig): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  for (const org of config.orgs) {
    const moved = org.moved ?? [];
    if (moved.length === 0) continue;
    const declared = declaredAddresses(org);
    moved.forEach((m) => {
      // Compared as the planner matches it (src/plan/moves.ts): by the canonical address.
      const to = parseAddress(m.to);
      if (to !== undefined && declared.has(formatAddress(to))) return;
      const near = nearestSibling(m.to, declared);
      const where = m.toSource ?? m.source;
      out.push({
        file: where.file,
        line: where.line,
        col: where.col,
        path: m.path ?? "moved",
        code: "invalid_moved",
        message: `${m.to} is not declared in the config of org ${org.slug}: moved renames a live item to an item the config declares; ${near === undefined ? "declare it (with the item's settings), correct the address," : `did you mean ${near}? Otherwise declare it (with the item's settings)`} or remove this entry`,
      });
    });
  }
  return out;
};
