/**
 * The saved plan schema's resource types (schemas/plan.schema.json `$defs.resourceType`),
 * derived from the model's `RESOURCE_TYPES` (src/model/address.ts, which the registry's type
 * makes exhaustive: every type has its kind), so a new kind never edits the plan schema by
 * hand: `node scripts/build-schema-validator.js` rewrites the list, and its `--check` (run by
 * `npm run build`) fails while the list differs. Only the list's lines change: the rest of
 * the file keeps its bytes (`waybill schema plan` prints the file as it is).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const PLAN_SCHEMA = fileURLToPath(new URL("../schemas/plan.schema.json", import.meta.url));
const ADDRESS = fileURLToPath(new URL("../src/model/address.ts", import.meta.url));

const TYPES = /export const RESOURCE_TYPES = \[([^\]]*)\] as const;/;
const ENUM = /("resourceType": \{\n(\s*)"enum": \[)[^\]]*(\])/;

/** The types of `RESOURCE_TYPES`, in order, read from src/model/address.ts's text. */
export const resourceTypesOf = (addressText) => {
  const list = TYPES.exec(addressText)?.[1];
  if (list === undefined) throw new Error("src/model/address.ts: no RESOURCE_TYPES list found");
  return [...list.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
};

/** The plan schema's text with `$defs.resourceType.enum` listing `types`, one a line. */
export const withResourceTypes = (planText, types) => {
  if (!ENUM.test(planText)) throw new Error("schemas/plan.schema.json: no resourceType enum found");
  return planText.replace(ENUM, (_all, head, indent, tail) => {
    const items = types.map((t) => `${indent}  ${JSON.stringify(t)}`).join(",\n");
    return `${head}\n${items}\n${indent}${tail}`;
  });
};

/** The plan schema as it should be: its current text with the model's types. */
export const planSchemaText = () =>
  withResourceTypes(
    readFileSync(PLAN_SCHEMA, "utf8"),
    resourceTypesOf(readFileSync(ADDRESS, "utf8")),
  );
