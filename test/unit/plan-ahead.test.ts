/**
 * Issue 22: projects planned ahead, as their reads finish (src/plan/plan.ts `planAhead`),
 * give exactly the plan that planning everything at the end gives: for any config, against
 * the live state it describes, against an empty one, and against one whose projects the
 * look-up found absent.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DesiredConfig } from "../../src/model/desired.js";
import type { LiveState } from "../../src/model/live.js";
import { planAhead, planChanges } from "../../src/plan/plan.js";
import { desiredConfigArb } from "../helpers/arbitraries.js";
import { liveFromDesired } from "../helpers/live-from-desired.js";
import { propertyRuns } from "../helpers/property-runs.js";

/** Plan each read project ahead, as the live reader hands them over. */
const ahead = (d: DesiredConfig, live: LiveState) => {
  const a = planAhead(d);
  for (const org of live.orgs) {
    for (const [key, p] of org.projects) a.project(org.slug, org.id, key, p);
  }
  return a;
};

/** Every project's collections empty (the org before the first apply). */
const emptied = (live: LiveState): LiveState => ({
  orgs: live.orgs.map((o) => ({
    ...o,
    projects: new Map(
      [...o.projects].map(([k, p]) => [
        k,
        p.status !== "found"
          ? p
          : {
              ...p,
              ...(p.env ? { env: [] } : {}),
              ...(p.webhooks ? { webhooks: [] } : {}),
              ...(p.pipelines ? { pipelines: [], triggers: [] } : {}),
            },
      ]),
    ),
  })),
});

const same = (d: DesiredConfig, live: LiveState): void => {
  const a = ahead(d, live);
  const projects = live.orgs.reduce((n, o) => n + o.projects.size, 0);
  // The parts are used (else this test would prove nothing)…
  if (projects > 0) expect(a.parts.size).toBeGreaterThan(0);
  // …and change nothing.
  expect(planChanges(d, live, {}, a)).toEqual(planChanges(d, live));
};

describe("planning projects ahead", () => {
  it("gives the same plan as planning at the end: no change, all created", () => {
    fc.assert(
      fc.property(desiredConfigArb, (d) => {
        const live = liveFromDesired(d);
        same(d, live);
        same(d, emptied(live));
      }),
      { numRuns: propertyRuns(30) },
    );
  });

  it("a part made from another live object is not used: the project is planned again", () => {
    fc.assert(
      fc.property(desiredConfigArb, (d) => {
        const live = liveFromDesired(d);
        const a = ahead(d, live);
        // The probes replaced the objects (src/live/synthetic.ts markSynthetic): emptied
        // copies must be planned from their own contents, not from the parts.
        const other = emptied(live);
        expect(planChanges(d, other, {}, a)).toEqual(planChanges(d, other));
      }),
      { numRuns: propertyRuns(20) },
    );
  });
});
