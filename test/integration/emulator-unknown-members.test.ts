/**
 * Our emulator refuses what the spec's shape of a write body does not list: every POST, PUT
 * and PATCH route (V3 and V2), at every depth the spec gives a shape for, answers 400 with
 * the error envelope and a pointer to the member (spec: api-v3.md "Errors" rule 2, the
 * error's `source.pointer`; api-v2-v1.md "Errors": V2 answers `{ message }`).
 *
 * The routes are walked from the emulator's own table, and each body is built from the
 * route's schema, so a route added later is covered without a new test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../../emulator/src/families.js";
import { isWriteRoute, type WriteRoute } from "../../emulator/src/http.js";
import type { Schema } from "../../emulator/src/validate.js";
import { errorOf, startTestEmu, type TestEmu } from "./emulator-harness.js";

const UUID = "00000000-0000-4000-8000-000000000001";
const UNKNOWN = "zz_not_in_the_spec";

/** A body with every member the schema lists (all present, so every nested shape is there). */
const sample = (schema: Schema): unknown => {
  switch (schema.kind) {
    case "string":
      return schema.oneOf?.[0] ?? "x";
    case "boolean":
      return true;
    case "number":
      return schema.min ?? 1;
    case "array":
      return [sample(schema.items)];
    case "object":
      return Object.fromEntries(Object.entries(schema.props).map(([k, v]) => [k, sample(v)]));
    case "record":
    case "json-object":
    case "any":
      return {};
  }
};

/** The JSON pointer of every object the schema gives a shape for ("" is the body itself). */
const shapedObjects = (schema: Schema, at = ""): string[] => {
  if (schema.kind === "array") return shapedObjects(schema.items, `${at}/0`);
  if (schema.kind !== "object") return [];
  return [at, ...Object.entries(schema.props).flatMap(([k, v]) => shapedObjects(v, `${at}/${k}`))];
};

const withUnknown = (body: unknown, pointer: string): unknown => {
  const copy = structuredClone(body) as Record<string, unknown>;
  let cur: Record<string, unknown> = copy;
  for (const part of pointer.split("/").slice(1)) cur = cur[part] as Record<string, unknown>;
  cur[UNKNOWN] = 1;
  return copy;
};

const pathOf = (route: WriteRoute): string =>
  route.pattern
    .split("/")
    .map((seg) => (seg.startsWith("*") ? "circleci/x/y" : seg.startsWith(":") ? UUID : seg))
    .join("/");

const writeRoutes = ROUTES.filter(isWriteRoute);

describe("every write route refuses a member its spec shape does not list", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu();
  });
  afterAll(() => t.close());

  it("the emulator has write routes on both APIs, each with a body shape", () => {
    expect(writeRoutes.some((r) => r.pattern.startsWith("/api/v2/"))).toBe(true);
    expect(writeRoutes.some((r) => r.pattern.startsWith("/api/v3/"))).toBe(true);
    // A route with no body takes no member at all (null); today every write route has one.
    for (const r of writeRoutes) expect(r.body, `${r.method} ${r.pattern}`).not.toBeNull();
  });

  it.each(writeRoutes.map((r) => [`${r.method} ${r.pattern}`, r] as const))(
    "%s: 400 with a pointer to the unknown member, at every depth",
    async (_, route) => {
      const schema = route.body as Schema;
      const pointers = shapedObjects(schema);
      expect(pointers.length).toBeGreaterThan(0);
      for (const at of pointers) {
        const r = await t.call(route.method, pathOf(route), {
          body: withUnknown(sample(schema), at),
        });
        const where = `${at}/${UNKNOWN}`;
        expect(r.status, `${route.pattern} ${where}: ${r.text}`).toBe(400);
        if (route.pattern.startsWith("/api/v2/")) {
          expect((r.body as { message: string }).message).toContain(where);
        } else {
          expect(errorOf(r)).toMatchObject({ type: "unknown_member", source: { pointer: where } });
        }
      }
    },
  );
});

describe("PUT /orgs/:id/sso-group-mappings takes exactly the spec's shape", () => {
  let t: TestEmu;
  beforeAll(async () => {
    t = await startTestEmu();
  });
  afterAll(() => t.close());

  it("a data.references beside data.attributes is a 400 pointing at it (api-v3.md Orgs)", async () => {
    const r = await t.call("PUT", `/api/v3/orgs/${UUID}/sso-group-mappings`, {
      body: { data: { attributes: { mappings: [] }, references: {} } },
    });
    expect(r.status, r.text).toBe(400);
    expect(errorOf(r)).toMatchObject({
      type: "unknown_member",
      source: { pointer: "/data/references" },
    });
  });
});
