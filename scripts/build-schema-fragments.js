#!/usr/bin/env node
/**
 * The config schema's fragment definitions (issue 30: "template fragments validate in the
 * editor as `waybill validate` does"), derived from the strict ones so the two never part:
 *
 *   <def>Template   a template under templates.projects / templates.contexts: any key the
 *                   item takes, none required (the item or another template supplies the
 *                   rest) (`extends` stays declared: validate's own rule says a
 *                   template cannot extend another);
 *   <def>Extending  a project or context that lists `extends`: none of its keys required,
 *                   and any map entry may be null (null removes an inherited key). Lists
 *                   replace what they inherit, so their items stay strict.
 *
 * `waybill validate` merges templates before it checks an item (src/config/templates.ts),
 * so it never sees `extends` on an item and checks the merged result against the strict
 * definitions; an editor sees the file as written, and picks the definition by whether
 * the item has `extends` (projectEntry / contextEntry).
 *
 *   node scripts/build-schema-fragments.js           rewrite schemas/waybill.schema.json
 *   node scripts/build-schema-fragments.js --check   exit 1 if its fragment defs are stale
 *
 * Then `node scripts/build-schema-validator.js` regenerates the validator from the schema.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SCHEMA = fileURLToPath(new URL("../schemas/waybill.schema.json", import.meta.url));
const SUFFIX = { template: "Template", extending: "Extending" };
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const refName = (ref) => /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];

/** True for an `allOf` entry that only makes keys required under a condition. */
const isConditionalRequired = (s) =>
  isObj(s) && s.if !== undefined && isObj(s.then) && Object.keys(s.then).join() === "required";

/**
 * The schema with every `<def>Template` / `<def>Extending` def (re)built from the strict
 * defs, and the root's collections pointing at them. Pure.
 */
export const withFragments = (schema) => {
  const strict = Object.fromEntries(
    Object.entries(schema.$defs).filter(
      ([k]) =>
        !k.endsWith(SUFFIX.template) && !k.endsWith(SUFFIX.extending) && !k.endsWith("Entry"),
    ),
  );
  const out = { ...strict };
  const build = (name, mode) => {
    const target = `${name}${SUFFIX[mode]}`;
    if (out[target] !== undefined) return target;
    out[target] = {}; // reserved: recursion through $ref ends here
    out[target] = convert(strict[name], mode, name === "project" || name === "context");
    return target;
  };
  const nullable = (s, mode) =>
    mode === "extending"
      ? {
          ...(typeof s.description === "string" ? { description: s.description } : {}),
          anyOf: [s, { type: "null" }],
        }
      : s;
  const convert = (node, mode, isItem) => {
    if (Array.isArray(node)) return node.map((n) => convert(n, mode, false));
    if (!isObj(node)) return node;
    const res = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "required" || (k === "minProperties" && isItem)) continue;
      if (k === "$ref" && refName(v) && strict[refName(v)]) {
        res.$ref = `#/$defs/${build(refName(v), mode)}`;
      } else if (k === "allOf" && Array.isArray(v)) {
        const kept = v.filter((s) => !isConditionalRequired(s)).map((s) => convert(s, mode, false));
        if (kept.length > 0) res.allOf = kept;
      } else if (k === "properties" && isObj(v)) {
        res.properties = {};
        for (const [p, s] of Object.entries(v)) {
          res.properties[p] = p === "extends" ? s : nullable(convert(s, mode, false), mode);
        }
      } else if (k === "additionalProperties" && isObj(v)) {
        res.additionalProperties = nullable(convert(v, mode, false), mode);
      } else if (k === "items") {
        // A list replaces what it inherits: in an extending item its entries are whole.
        res.items = mode === "template" ? convert(v, mode, false) : v;
      } else if (k === "if" || k === "then" || k === "else" || k === "x-messages") {
        res[k] = v;
      } else {
        res[k] = isObj(v) || Array.isArray(v) ? convert(v, mode, false) : v;
      }
    }
    return res;
  };
  for (const item of ["project", "context"]) {
    build(item, "template");
    build(item, "extending");
    out[`${item}Entry`] = {
      description: `A ${item}: checked as written when it has no extends; with extends, its keys may be left to its templates and null removes an inherited key (waybill validate checks the merged result).`,
      if: { type: "object", required: ["extends"] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
      then: { $ref: `#/$defs/${item}Extending` },
      else: { $ref: `#/$defs/${item}` },
    };
  }
  // Issue 45: a template may mark keys final; an item that extends it may not override them.
  for (const item of ["project", "context"]) {
    const t = out[`${item}${SUFFIX.template}`];
    t.properties = {
      ...t.properties,
      final: {
        description: `Keys of this template an item that extends it may not override (dotted paths inside the ${item}, e.g. ${item === "project" ? "settings.can_pass_secrets_to_fork_pr_jobs or webhooks.slack.should_verify_tls" : "restrictions"}); an override is an error at the item's line naming the template's.`,
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: { type: "string", minLength: 1 },
      },
    };
  }
  const root = structuredClone(out.root);
  root.properties.projects.additionalProperties = { $ref: "#/$defs/projectEntry" };
  root.properties.contexts.additionalProperties = { $ref: "#/$defs/contextEntry" };
  root.properties.templates.properties.projects.additionalProperties = {
    $ref: "#/$defs/projectTemplate",
  };
  root.properties.templates.properties.contexts.additionalProperties = {
    $ref: "#/$defs/contextTemplate",
  };
  out.root = root;
  return { ...schema, $defs: out };
};

export const render = (schema) => `${JSON.stringify(schema, null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = readFileSync(SCHEMA, "utf8");
  const next = render(withFragments(JSON.parse(text)));
  if (process.argv.includes("--check")) {
    if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(JSON.parse(next))) {
      console.error(
        "schemas/waybill.schema.json: its fragment defs are stale; run node scripts/build-schema-fragments.js",
      );
      process.exit(1);
    }
  } else {
    writeFileSync(SCHEMA, next);
  }
}
