import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findById, type State, touch } from "../../emulator/src/state.js";
import { propertyRuns } from "../helpers/property-runs.js";

type Row = { readonly id: string; readonly n: number };

// Only the members findById reads: the version that writes bump.
const newState = (): State => ({ version: 0 }) as unknown as State;

describe("the emulator's look-up of a row by id", () => {
  it("finds what a scan of the table finds, through pushes, deletes and reads", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("read" as const), id: fc.integer({ min: 0, max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const st = newState();
        const rows: Row[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === "push") {
            const id = `id-${o.id}`;
            // Ids are unique in a table: a create never reuses one.
            if (rows.some((r) => r.id === id)) continue;
            touch(st);
            rows.push({ id, n: n++ });
          } else if (o.kind === "delete") {
            if (rows.length === 0) continue;
            touch(st);
            rows.splice(o.at % rows.length, 1);
          } else {
            const id = `id-${o.id}`;
            expect(findById(st, rows, id)).toBe(rows.find((r) => r.id === id));
          }
        }
        for (let i = 0; i <= 30; i++) {
          expect(findById(st, rows, `id-${i}`)).toBe(rows.find((r) => r.id === `id-${i}`));
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("finds rows pushed without a write (a seed being loaded)", () => {
    const st = newState();
    const rows: Row[] = [{ id: "a", n: 0 }];
    expect(findById(st, rows, "b")).toBeUndefined();
    rows.push({ id: "b", n: 1 });
    expect(findById(st, rows, "b")).toBe(rows[1]);
  });
});
