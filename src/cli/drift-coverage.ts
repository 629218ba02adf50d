/**
 * Drift's coverage figure (issue 46; design.md §5 "Drift": `coverage` in JSON, managed/live
 * per kind): the share of the live items drift saw that some config manages, per kind and
 * in all (driftctl's one number).
 *
 * Decision (the spec is silent on what counts): the live items counted are those drift's
 * walk saw (src/live/unmanaged.ts readLiveLines): the org-level collections, every context,
 * and the collections under the declared projects and contexts. Undeclared projects are not
 * counted, since Waybill never owns the project list and drift never lists every project of
 * an org; settings maps are not items (managed key by key). A legacy V2 schedule counts as a
 * live item no config can manage; a collection that could not be listed counts nothing.
 * An item in a managed collection is managed, whether it matches or the plan changes it.
 */
import type { LiveLine } from "../live/unmanaged.js";

export interface KindCoverage {
  readonly managed: number;
  readonly live: number;
}

export interface Coverage extends KindCoverage {
  /** By resource type, in the order first seen (the walk's: org, contexts, projects). */
  readonly kinds: Readonly<Record<string, KindCoverage>>;
}

export const coverageOf = (lines: readonly LiveLine[]): Coverage => {
  const kinds: Record<string, { managed: number; live: number }> = {};
  let managed = 0;
  let live = 0;
  for (const line of lines) {
    if (line.why === "not_read") continue;
    const k = kinds[line.resource_type] ?? { managed: 0, live: 0 };
    kinds[line.resource_type] = k;
    k.live += 1;
    live += 1;
    if (line.why === "managed") {
      k.managed += 1;
      managed += 1;
    }
  }
  return { managed, live, kinds };
};

/** `60%` (whole percent, rounded down so "100%" means every item). */
export const percent = ({ managed, live }: KindCoverage): string =>
  live === 0 ? "100%" : `${Math.floor((managed * 100) / live)}%`;

/** The figure in words, one line, then one short line of the kinds. */
export const describeCoverage = (c: Coverage): string[] => [
  `Coverage: ${c.managed} of ${c.live} live item${c.live === 1 ? "" : "s"} managed by the config (${percent(c)}).`,
  ...(Object.keys(c.kinds).length === 0
    ? []
    : [
        `  ${Object.entries(c.kinds)
          .map(([type, k]) => `${type} ${k.managed}/${k.live}`)
          .join(", ")}`,
      ]),
];
