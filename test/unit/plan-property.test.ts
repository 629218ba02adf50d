import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ancestorsOf } from "../../src/model/address.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import type { LiveState } from "../../src/model/live.js";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
import { desiredConfigArb } from "../helpers/arbitraries.js";
import { liveFromDesired } from "../helpers/live-from-desired.js";
import { propertyRuns } from "../helpers/property-runs.js";

/** A faithful text of the inputs (Maps included) to detect any mutation. */
const snapshot = (v: DesiredConfig | LiveState): string =>
  JSON.stringify(v, (_k, x) => (x instanceof Map ? { map: [...x.entries()] } : x));

/** Count the secrets a plan on `liveFromDesired(d)` must report as unverified. */
const secretsOf = (d: DesiredConfig): number => {
  let n = 0;
  for (const org of d.orgs) {
    for (const c of org.contexts?.values() ?? []) n += c.env?.size ?? 0;
    for (const p of org.projects.values()) {
      n += p.env?.size ?? 0;
      for (const w of p.webhooks?.values() ?? []) if (w.signing_secret) n += 1;
      for (const pl of p.pipelines?.values() ?? []) {
        for (const t of pl.triggers?.values() ?? []) if (t.event.webhook?.secret) n += 1;
      }
    }
  }
  return n;
};

/** The live state right before the first apply: every declared collection empty. */
const emptyLive = (d: DesiredConfig): LiveState => {
  const full = liveFromDesired(d);
  return {
    orgs: full.orgs.map((o) => ({
      ...o,
      ...(o.contexts === undefined ? {} : { contexts: [] }),
      projects: new Map(
        [...o.projects].map(([slug, p]) => [
          slug,
          p.status === "found" ? { ...p, env: [], webhooks: [], pipelines: [], triggers: [] } : p,
        ]),
      ),
    })),
  };
};

describe("planner properties", () => {
  it("planning against the live state that desired produces gives an empty plan", () => {
    fc.assert(
      fc.property(desiredConfigArb, (d) => {
        const plan = planChanges(d, liveFromDesired(d));
        expect(plan.changes).toEqual([]);
        // Every secret is unverified (same last four, or never returned), none re-set.
        expect(plan.unverified_secrets).toBe(secretsOf(d));
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it("is deterministic and never mutates its inputs", () => {
    fc.assert(
      fc.property(desiredConfigArb, desiredConfigArb, (d, other) => {
        const l = liveFromDesired(other);
        const before = [snapshot(d), snapshot(l)];
        let a: ReturnType<typeof planChanges> | string;
        let b: ReturnType<typeof planChanges> | string;
        try {
          a = planChanges(d, l, { forceSecrets: ["*"] });
        } catch (e) {
          a = String(e);
        }
        try {
          b = planChanges(d, l, { forceSecrets: ["*"] });
        } catch (e) {
          b = String(e);
        }
        expect(a).toEqual(b);
        expect([snapshot(d), snapshot(l)]).toEqual(before);
      }),
      { numRuns: propertyRuns(50) },
    );
  });

  it("from nothing, every item is created and parents come first", () => {
    fc.assert(
      fc.property(desiredConfigArb, (d) => {
        const plan = planChanges(d, emptyLive(d));
        expect(plan.summary.update + plan.summary.replace + plan.summary.delete).toBe(
          plan.changes.filter((c) => c.resource_type.endsWith("settings")).length,
        );
        const ops = orderOperations(plan).operations;
        const seen = new Set<string>();
        const created = new Set(
          plan.changes.filter((c) => c.action === "create").map((c) => c.address),
        );
        for (const op of ops) {
          for (const a of ancestorsOf(op.address)) {
            if (created.has(a)) expect(seen.has(a)).toBe(true);
          }
          seen.add(op.address);
        }
        // Then planning against the state those creates make is empty.
        expect(planChanges(d, liveFromDesired(d)).changes).toEqual([]);
      }),
      { numRuns: propertyRuns(50) },
    );
  });
});

describe("deleting everything", () => {
  it("deletes children before parents", () => {
    fc.assert(
      fc.property(desiredConfigArb, (d) => {
        // The same collections, declared empty: everything live goes.
        const none: DesiredConfig = {
          ...d,
          orgs: d.orgs.map((o) => ({
            ...o,
            ...(o.contexts === undefined ? {} : { contexts: new Map() }),
            projects: new Map(
              [...o.projects].map(([slug, p]) => [
                slug,
                {
                  ...p,
                  ...(p.env === undefined ? {} : { env: new Map() }),
                  ...(p.webhooks === undefined ? {} : { webhooks: new Map() }),
                  ...(p.pipelines === undefined ? {} : { pipelines: new Map() }),
                },
              ]),
            ),
          })),
        };
        const plan = planChanges(none, liveFromDesired(d));
        expect(plan.changes.every((c) => c.action === "delete")).toBe(true);
        const ops = orderOperations(plan).operations;
        const done = new Set<string>();
        for (const op of ops) {
          // No descendant of this address is still to be deleted.
          expect(
            ops.some((o) => !done.has(o.address) && o.address.startsWith(`${op.address}.`)),
          ).toBe(false);
          done.add(op.address);
        }
      }),
      { numRuns: propertyRuns(50) },
    );
  });
});
