import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonical, deepEqual, getPath, type JsonValue } from "../../src/kinds/values.js";
import { propertyRuns } from "../helpers/property-runs.js";

// Key-sorted JSON text is the definition of equal values; deepEqual's shortcuts (the same
// value, two strings) must never disagree with it.
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<JsonValue>(null, true, false, 0, -0, 1, "", "a", "0", "null", "true"),
    fc.string({ maxLength: 4 }),
    fc.double(),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** The dotted-path look-up as a fold over the dots, one step per part. */
const getPathBySteps = (obj: JsonValue | undefined, path: string): JsonValue | undefined =>
  path
    .split(".")
    .reduce<JsonValue | undefined>(
      (cur, part) =>
        cur !== null && typeof cur === "object" && !Array.isArray(cur) ? cur[part] : undefined,
      obj,
    );

describe("JSON values", () => {
  it("are equal exactly when their key-sorted texts are", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(deepEqual(a, b)).toBe(canonical(a) === canonical(b));
        expect(deepEqual(a, a)).toBe(true);
      }),
      { numRuns: propertyRuns(2000) },
    );
    // Values JSON writes alike are equal, as they always were.
    expect(deepEqual(Number.NaN, null)).toBe(true);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(deepEqual(-0, 0)).toBe(true);
    expect(deepEqual({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true);
    expect(deepEqual("1", 1)).toBe(false);
    expect(deepEqual("x", "y")).toBe(false);
  });

  it("are found at a dotted path as by one step per dot", () => {
    const path = fc
      .array(fc.constantFrom("a", "b", "c", "", "length"), { minLength: 1, maxLength: 3 })
      .map((parts) => parts.join("."));
    fc.assert(
      fc.property(json, path, (obj, p) => {
        expect(getPath(obj, p)).toEqual(getPathBySteps(obj, p));
      }),
      { numRuns: propertyRuns(2000) },
    );
    expect(getPath({ config: { file_path: "x" } }, "config.file_path")).toBe("x");
    expect(getPath({ config: "x" }, "config")).toBe("x");
    expect(getPath({ config: null }, "config")).toBeNull();
    expect(getPath({ config: { ref: null } }, "config.ref")).toBeNull();
    expect(getPath({ config: null }, "config.ref")).toBeUndefined();
    expect(getPath(["x"], "0")).toBeUndefined();
  });
});
