/**
 * A tiny structural validator for request bodies and seeds. It reports the first problem
 * with a JSON pointer (`/data/attributes/foo`), which the routes put in the error envelope's
 * `source.pointer` (spec: api-v3.md "Envelopes": error `source`).
 *
 * Objects are closed: a member the schema does not list is an "unknown member" (creates and
 * updates reject unknown members with 400, emu brief; a seed typo is an error, not ignored).
 */

export type Schema =
  | { readonly kind: "string"; readonly nonEmpty?: boolean; readonly oneOf?: readonly string[] }
  | { readonly kind: "boolean" }
  | { readonly kind: "number"; readonly integer?: boolean; readonly min?: number }
  | { readonly kind: "array"; readonly items: Schema }
  | {
      readonly kind: "object";
      readonly props: Readonly<Record<string, Schema>>;
      readonly required?: readonly string[];
    }
  | { readonly kind: "record"; readonly values: Schema }
  | { readonly kind: "json-object" }
  | { readonly kind: "any" };

export interface Issue {
  readonly pointer: string;
  readonly message: string;
  /** True when the problem is a member the schema does not know. */
  readonly unknownMember: boolean;
}

export const s = {
  str: (opts: { nonEmpty?: boolean; oneOf?: readonly string[] } = {}): Schema => ({
    kind: "string",
    ...opts,
  }),
  bool: (): Schema => ({ kind: "boolean" }),
  int: (min?: number): Schema =>
    min === undefined ? { kind: "number", integer: true } : { kind: "number", integer: true, min },
  arr: (items: Schema): Schema => ({ kind: "array", items }),
  obj: (props: Record<string, Schema>, required: readonly string[] = []): Schema => ({
    kind: "object",
    props,
    required,
  }),
  record: (values: Schema): Schema => ({ kind: "record", values }),
  jsonObject: (): Schema => ({ kind: "json-object" }),
  any: (): Schema => ({ kind: "any" }),
};

/** JSON pointer escaping (RFC 6901). */
const esc = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const describe = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;

/** The first issue of `value` against `schema`, or undefined when it conforms. */
export const check = (schema: Schema, value: unknown, pointer = ""): Issue | undefined => {
  const fail = (message: string, unknownMember = false): Issue => ({
    pointer: pointer === "" ? "/" : pointer,
    message,
    unknownMember,
  });
  switch (schema.kind) {
    case "any":
      return undefined;
    case "string":
      if (typeof value !== "string") return fail(`must be a string, got ${describe(value)}`);
      if (schema.nonEmpty && value.length === 0) return fail("must not be empty");
      if (schema.oneOf && !schema.oneOf.includes(value))
        return fail(`must be one of ${schema.oneOf.join(", ")}`);
      return undefined;
    case "boolean":
      return typeof value === "boolean"
        ? undefined
        : fail(`must be a boolean, got ${describe(value)}`);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value))
        return fail(`must be a number, got ${describe(value)}`);
      if (schema.integer && !Number.isInteger(value)) return fail("must be an integer");
      if (schema.min !== undefined && value < schema.min)
        return fail(`must be at least ${schema.min}`);
      return undefined;
    case "array": {
      if (!Array.isArray(value)) return fail(`must be an array, got ${describe(value)}`);
      for (let i = 0; i < value.length; i++) {
        const issue = check(schema.items, value[i], `${pointer}/${i}`);
        if (issue) return issue;
      }
      return undefined;
    }
    case "json-object":
      return isPlainObject(value) ? undefined : fail(`must be an object, got ${describe(value)}`);
    case "record": {
      if (!isPlainObject(value)) return fail(`must be an object, got ${describe(value)}`);
      for (const [k, v] of Object.entries(value)) {
        const issue = check(schema.values, v, `${pointer}/${esc(k)}`);
        if (issue) return issue;
      }
      return undefined;
    }
    case "object": {
      if (!isPlainObject(value)) return fail(`must be an object, got ${describe(value)}`);
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(schema.props, key)) {
          return {
            pointer: `${pointer}/${esc(key)}`,
            message: `unknown member "${key}"`,
            unknownMember: true,
          };
        }
      }
      for (const key of schema.required ?? []) {
        if (value[key] === undefined) {
          return {
            pointer: `${pointer}/${esc(key)}`,
            message: "is required",
            unknownMember: false,
          };
        }
      }
      for (const [key, sub] of Object.entries(schema.props)) {
        if (value[key] === undefined) continue;
        const issue = check(sub, value[key], `${pointer}/${esc(key)}`);
        if (issue) return issue;
      }
      return undefined;
    }
  }
};
