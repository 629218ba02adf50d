/**
 * design.md §5 "Reading the real service": an item Waybill cannot name is `unknown` —
 * listed by the plan, never updated or deleted. Property: live answers holding restrictions
 * of random types Waybill does not know, with random extra members, read through the wire
 * reader (readV3Page) and the kind's own listing, plan zero changes that touch them, even
 * when the config owns the collection and lists nothing (every known restriction deleted).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readV3Page } from "../../src/api/pagination.js";
import type { ReadOnlyApi } from "../../src/api/types.js";
import { ORG_SETTING_NAMES } from "../../src/core/wire.js";
import { contextRestrictionKind } from "../../src/kinds/context-restriction.js";
import type { LiveRestriction } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  dContext,
  desired,
  dOrg,
  lContext,
  live,
  lOrg,
  ORG_ID,
  source,
} from "../helpers/builders.js";
import { propertyRuns } from "../helpers/property-runs.js";

const KNOWN = new Set(["project", "expression", "group"]);
const CONTEXT_ID = "0c000000-0000-4000-8000-000000000001";

/** A JSON member name that does not shadow the resource's own. */
const memberName = fc
  .string({ minLength: 1, maxLength: 8 })
  .filter((k) => !/^(id|attributes|restriction_type|match_pattern|__proto__)$/.test(k));

const unknownItem = fc.record({
  type: fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !KNOWN.has(t)),
  pattern: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
  extra: fc.dictionary(memberName, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
});

const knownItem = fc.constantFrom(
  { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
  { restriction_type: "group", match_pattern: ORG_ID },
);

/** The kind's listing over one answer, as the client hands it on (a stub: pure here). */
const listed = async (body: unknown): Promise<LiveRestriction[]> => {
  const page = readV3Page(body, { paged: false, before: 0 });
  if (!page.ok) throw new Error(page.reason);
  const api = {
    listV3: async () => page.items,
  } as unknown as ReadOnlyApi;
  return contextRestrictionKind.list(api, { org_id: ORG_ID, context_id: CONTEXT_ID });
};

describe("unknown items (property)", () => {
  it("no change is ever planned for a restriction of a type Waybill does not know", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(unknownItem, { minLength: 1, maxLength: 4 }),
        fc.array(knownItem, { maxLength: 2 }),
        async (unknowns, knowns) => {
          const data = [
            ...unknowns.map((u, i) => ({
              id: `0d000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
              ...u.extra,
              attributes: {
                ...u.extra,
                restriction_type: u.type,
                ...(u.pattern === undefined ? {} : { match_pattern: u.pattern }),
              },
            })),
            ...knowns.map((k, i) => ({
              id: `0e000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
              attributes: k,
            })),
          ];
          const restrictions = await listed({ data });
          const unknownIds = new Set(data.slice(0, unknowns.length).map((d) => d.id));
          const plan = planChanges(
            // The config owns the context's restrictions and lists none.
            desired(dOrg({ contexts: [dContext("deploy", { restrictions: [] })] })),
            live(lOrg({ contexts: [lContext("deploy", { id: CONTEXT_ID, restrictions })] })),
          );
          // Every change is a delete of a known restriction, never of an unknown one.
          for (const c of plan.changes) {
            expect(c.action).toBe("delete");
            expect(unknownIds.has(String(c.params.id))).toBe(false);
          }
          expect(plan.changes.length).toBe(knowns.length);
          // Each unknown one is listed, with its reason.
          expect(plan.unknown?.length).toBe(unknowns.length);
          for (const u of plan.unknown ?? []) {
            expect(u.resource_type).toBe("context_restriction");
            expect(u.address).toMatch(/^context\["deploy"\]\.restriction\[/);
            expect(u.reason).toMatch(/never updated or deleted/);
          }
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it("a delete_unknown entry deletes exactly the unknown item it names, by its id, and no other", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(unknownItem, {
          minLength: 1,
          maxLength: 4,
          selector: (u) => `${u.type}:${u.pattern ?? ""}`,
        }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        async (unknowns, chosen) => {
          const data = unknowns.map((u, i) => ({
            id: `0d000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
            attributes: {
              ...u.extra,
              restriction_type: u.type,
              ...(u.pattern === undefined ? {} : { match_pattern: u.pattern }),
            },
          }));
          const restrictions = await listed({ data });
          const liveState = live(
            lOrg({ contexts: [lContext("deploy", { id: CONTEXT_ID, restrictions })] }),
          );
          const owned = dContext("deploy", { restrictions: [] });
          // The entries copy what a first plan lists: address and id.
          const listedFirst = planChanges(desired(dOrg({ contexts: [owned] })), liveState).unknown;
          const named = (listedFirst ?? []).filter((_, i) => chosen[i] === true);
          const plan = planChanges(
            desired({
              ...dOrg({ contexts: [owned] }),
              delete_unknown: named.map((u) => ({ address: u.address, id: u.id ?? "", source })),
            }),
            liveState,
          );
          const deleted = plan.changes.map((c) => `${c.action} ${c.address} ${c.params.id}`);
          expect(deleted.sort()).toEqual(named.map((u) => `delete ${u.address} ${u.id}`).sort());
          expect((plan.unknown ?? []).length).toBe(unknowns.length - named.length);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it("a setting the service returns and the schema lacks is listed, and no call ever sends it", () => {
    const known: readonly string[] = ORG_SETTING_NAMES;
    const unknownName = fc
      .string({ minLength: 1, maxLength: 16 })
      .filter((k) => !known.includes(k) && k !== "__proto__" && k !== "source");
    fc.assert(
      fc.property(
        fc.dictionary(unknownName, fc.boolean(), { minKeys: 1, maxKeys: 4 }),
        fc.dictionary(fc.constantFrom(...known), fc.boolean(), { maxKeys: 4 }),
        fc.dictionary(fc.constantFrom(...known), fc.boolean(), { maxKeys: 4 }),
        (unknowns, declared, liveKnown) => {
          const plan = planChanges(
            desired(dOrg({ settings: declared })),
            live(lOrg({ settings: { ...liveKnown, ...unknowns } })),
          );
          for (const c of plan.changes)
            for (const call of c.calls)
              for (const f of call.body_fields ?? []) expect(known).toContain(f);
          const listed = (plan.unknown ?? []).map((u) => u.address).sort();
          expect(listed).toEqual(
            Object.keys(unknowns)
              .map((k) => `org_settings.${k}`)
              .sort(),
          );
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });
});
