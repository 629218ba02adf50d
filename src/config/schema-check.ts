/**
 * Check a parsed document against schemas/waybill.schema.json and turn ajv's errors into
 * located diagnostics that say how to fix the problem.
 *
 * The validator is ajv (2020-12) standalone code precompiled from the schema by
 * scripts/build-schema-validator.js into src/generated/schema-validator.ts: loading the ajv
 * compiler and compiling the schema cost every command ~100 ms before its first request
 * (issue 8). Only the type of ajv's errors is imported from ajv here.
 */
import { readFileSync } from "node:fs";
import type { ErrorObject } from "ajv";
import { validate as generatedValidate } from "../generated/schema-validator.js";
import type { ConfigDiagnostic, DiagnosticCode } from "./diagnostic.js";
import { closest } from "./suggest.js";
import { type DocPath, dottedPath, locate, type PositionIndex } from "./yaml-doc.js";

/** The config schema, read from the package (src/config → ../../schemas, dist/config alike). */
export const readConfigSchema = (): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL("../../schemas/waybill.schema.json", import.meta.url), "utf8"),
  ) as Record<string, unknown>;

/** What the generated module exports (it is not type-checked: `// @ts-nocheck`). */
interface ValidateFunction {
  (data: unknown): boolean;
  /** The errors of the last call: null when it passed (ajv's convention). */
  errors?: ErrorObject[] | null;
}

export type SchemaCheck = (
  file: string,
  value: unknown,
  positions: PositionIndex,
) => ConfigDiagnostic[];

/**
 * Collections whose absence and emptiness mean different things (design.md "Ownership").
 *
 * Decision: `contexts:` with no value (YAML null) is an error, not "none": deleting every
 * live item must be written explicitly as `{}`, and leaving them alone by removing the key.
 */
const COLLECTIONS = new Set([
  "contexts",
  "env",
  "restrictions",
  "webhooks",
  "pipelines",
  "triggers",
]);

const typeName = (v: unknown): string => {
  if (v === null) return "empty (null)";
  if (Array.isArray(v)) return "a list";
  switch (typeof v) {
    case "object":
      return "a map";
    case "string":
      return "a string";
    case "boolean":
      return "a boolean";
    case "number":
      return "a number";
    default:
      return typeof v;
  }
};

const expectedName = (t: string): string =>
  ({
    object: "a map",
    array: "a list",
    string: "a string",
    boolean: "a boolean (true or false)",
    number: "a number",
    integer: "an integer",
    null: "null",
  })[t] ?? t;

const parsePointer = (pointer: string): string[] =>
  pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

const customMessage = (e: ErrorObject): string | undefined => {
  const messages = (e.parentSchema as { "x-messages"?: Record<string, string> } | undefined)?.[
    "x-messages"
  ];
  return messages?.[e.keyword];
};

/** Where each `$defs` object sits in a document, for "it belongs under ..." hints. */
const PLACES: Readonly<Record<string, string>> = {
  root: "the top level",
  context: "contexts.<name>",
  project: "projects.<slug>",
  webhook: "projects.<slug>.webhooks.<name>",
  pipeline: "projects.<slug>.pipelines.<name>",
  trigger: "projects.<slug>.pipelines.<name>.triggers.<name>",
};

/** The places (PLACES) whose objects declare `key`. */
const placesOf = (schema: Record<string, unknown>, key: string): string[] => {
  const defs = (schema.$defs ?? {}) as Record<string, { properties?: Record<string, unknown> }>;
  return Object.entries(PLACES)
    .filter(([def]) => defs[def]?.properties?.[key] !== undefined)
    .map(([, place]) => place);
};

/**
 * Create the checker once per load. `readSchema` gives schemas/waybill.schema.json
 * (readConfigSchema): the validator itself is the one generated from that file (a unit test
 * fails when the generated code is stale); the schema is only read for "it belongs under ..."
 * hints, so it is read (once) on the first unknown key, not on every load of a valid config
 * (a 100 KB JSON parse each command, and each in-process run of the test suite).
 */
export const createSchemaCheck = (
  readSchema: () => Record<string, unknown> = readConfigSchema,
): SchemaCheck => {
  const validate: ValidateFunction = generatedValidate;
  let schema: Record<string, unknown> | undefined;
  const schemaOnce = (): Record<string, unknown> => {
    schema ??= readSchema();
    return schema;
  };

  return (file, value, positions) => {
    if (validate(value)) return [];
    // ajv keeps the errors on the (module-wide) function until its next call: take them now.
    const errors = validate.errors ?? [];
    const out: ConfigDiagnostic[] = [];
    const push = (path: DocPath, at: "key" | "value", code: DiagnosticCode, message: string) => {
      const pos = locate(positions, path, at);
      out.push({ file, line: pos.line, col: pos.col, path: dottedPath(path), code, message });
    };
    for (const e of errors) {
      const path = parsePointer(e.instancePath);
      const last = path[path.length - 1];
      const custom = customMessage(e);
      // ajv reports a bad property name on the object, naming the key in `propertyName`.
      if (e.propertyName !== undefined) {
        const keyPath = [...path, e.propertyName];
        const why = custom ?? (e.keyword === "minLength" ? "must not be empty" : e.message);
        push(keyPath, "key", "invalid_value", `key "${e.propertyName}" ${why}`);
        continue;
      }
      switch (e.keyword) {
        case "if":
        case "propertyNames":
          // Summaries of the errors reported next to them.
          break;
        case "additionalProperties": {
          const key = String((e.params as { additionalProperty: string }).additionalProperty);
          const allowed = Object.keys(
            (e.parentSchema as { properties?: Record<string, unknown> }).properties ?? {},
          );
          const parent = path[path.length - 1];
          let message: string;
          if (key === "name" && (parent === "schedule" || parent === "webhook")) {
            // Identity: the key under `triggers` is the API's schedule.name / webhook.name.
            message =
              'unknown key "name": a trigger\'s name is its key under `triggers`; remove this line';
          } else {
            const guess = closest(key, allowed);
            const elsewhere = placesOf(schemaOnce(), key);
            message = guess
              ? `unknown key "${key}"; did you mean "${guess}"?`
              : elsewhere.length > 0
                ? `unknown key "${key}" here; it belongs under ${elsewhere.join(" or ")}`
                : `unknown key "${key}"; expected one of: ${allowed.join(", ")}`;
          }
          push([...path, key], "key", "unknown_key", message);
          break;
        }
        case "required": {
          const missing = (e.params as { missingProperty: string }).missingProperty;
          const conditional = e.schemaPath.includes("/then/");
          const data = e.data as { type?: unknown };
          const why = conditional ? ` (required when type is ${String(data.type)})` : "";
          push(path, "key", "missing_key", `missing required key "${missing}"${why}`);
          break;
        }
        case "type": {
          const expected = String((e.params as { type: string | string[] }).type)
            .split(",")
            .map(expectedName)
            .join(" or ");
          let message =
            path.length === 0
              ? `the document must be a map with at least \`org: <slug>\`, not ${typeName(e.data)}`
              : `must be ${expected}, not ${typeName(e.data)}`;
          if (e.data === null && typeof last === "string" && COLLECTIONS.has(last)) {
            message += `; write ${expected === "a list" ? "[]" : "{}"} to manage none (live items are deleted) or remove the key to leave them unmanaged`;
          } else if (e.data === null && expected === "a map") {
            message += "; write {} for an empty map";
          } else if (
            // Decision: numbers and booleans are not turned into strings (env values,
            // repo_id): YAML would have already changed `1.10` to 1.1 or `0123` to 123, so
            // the user is asked to quote the value instead.
            expected === "a string" &&
            (typeof e.data === "number" || typeof e.data === "boolean")
          ) {
            message += "; put quotes around the value";
          }
          push(path, "value", "wrong_type", message);
          break;
        }
        case "enum": {
          const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
          const got = e.data;
          let message: string;
          if (typeof got === "string") {
            const guess = closest(got, allowed);
            message = `"${got}" is not allowed; ${guess ? `did you mean "${guess}"?` : `expected one of: ${allowed.join(", ")}`}`;
          } else {
            message = `must be one of: ${allowed.join(", ")}, not ${typeName(got)}`;
          }
          push(path, "value", "invalid_value", message);
          break;
        }
        default: {
          const code: DiagnosticCode =
            e.keyword === "pattern" && last === "url"
              ? "not_https"
              : e.keyword === "pattern" && last === "cron_expression"
                ? "invalid_cron"
                : "invalid_value";
          const message =
            custom ??
            (e.keyword === "minLength" && (e.params as { limit: number }).limit === 1
              ? "must not be empty"
              : (e.message ?? "is not valid"));
          push(path, "value", code, message);
        }
      }
    }
    return out;
  };
};
