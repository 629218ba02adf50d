/**
 * The raw YAML document, as written, once it has passed schemas/waybill.schema.json.
 *
 * These types are hand-written next to the schema: the objects that are no kind's (the
 * root's own keys, `templates`, `moved`) here, each kind's in its module with its key lists
 * (`config.schemaKeys`, made by `keysOf<RawType>()`, src/kinds/raw-keys.ts, which fails to
 * compile when a type and its lists differ). `RAW_KEYS` assembles them from the registry —
 * adding to each parent's object (the root for the org, a kind's `schemaDef` object) the
 * `config.yamlKey` of every kind under it — and test/unit/config-schema.test.ts walks the
 * schema and fails when the two differ. So the chain schema ⇄ RAW_KEYS ⇄ TS types cannot
 * drift, and a new kind adds its keys (and its key in its parent) without an edit here.
 */

import type { RawContext } from "../kinds/context.js";
import type { ParentName, ResourceKind } from "../kinds/contract.js";
import type { RawProject } from "../kinds/project.js";
import { keysOf, type ObjectKeys, type SchemaKeys } from "../kinds/raw-keys.js";
import { ALL_KINDS, childKindsIn } from "../kinds/registry.js";

/**
 * The root's own keys. The kinds' collections under the org (`settings`, `groups`,
 * `contexts`, `otel_exporters`, `projects`, …) are the kinds' (their `config.yamlKey`),
 * built by the loader's generic walk (src/config/build.ts) from the document as a record.
 *
 * Decision: an org slug is `provider/name` and a project slug `provider/org/name`, each
 * segment of letters, digits, `_`, `.` and `-`.
 */
/** An `ignore_fields` entry: the glob, or the glob with `acknowledge` (issue 41). */
export type RawIgnoreField = string | { field: string; acknowledge?: boolean };

/** The glob of an `ignore_fields` entry. */
export const ignoreFieldGlob = (e: RawIgnoreField): string => (typeof e === "string" ? e : e.field);

export interface RawRoot {
  org: string;
  ignore?: string[];
  ignore_fields?: RawIgnoreField[];
  keep_unlisted?: string[];
  moved?: RawMoved[];
  delete_unknown?: RawDeleteUnknown[];
  templates?: RawTemplates;
  policies?: RawPolicy[];
  exceptions?: RawPolicyException[];
  guards?: RawGuards;
}

/** The document: the root's own keys, and the kinds' collections under their YAML keys. */
export type RawDocument = RawRoot & { readonly [yamlKey: string]: unknown };

/** Issue 19: named fragments that projects and contexts `extends`. */
export interface RawTemplates {
  projects?: Record<string, RawProject>;
  contexts?: Record<string, RawContext>;
}

/** One `delete_unknown` entry: an unknown live item's address and its live id. */
export interface RawDeleteUnknown {
  address: string;
  id: string;
}

/** One `moved` entry (issue 19): a live item's old address and its new one. */
export interface RawMoved {
  from: string;
  to: string;
}

/** A scalar a policy condition compares with. */
export type RawPolicyScalar = string | number | boolean | null;

/** One `policies:` rule (design.md §5 "Rules and guards"), as written. */
export interface RawPolicy {
  id: string;
  level?: "error" | "warn";
  on: "config" | "plan" | "live";
  address: string;
  message?: string;
  actions?: ("create" | "update" | "replace" | "delete")[];
  changed?: string[];
  field?: string;
  equals?: RawPolicyScalar;
  not_equals?: RawPolicyScalar;
  in?: RawPolicyScalar[];
  matches?: string;
  exists?: true;
  absent?: true;
  count?: string;
  min?: number;
  max?: number;
  expect_match?: boolean;
}

/** One `exceptions:` entry. */
export interface RawPolicyException {
  rule: string;
  address: string;
  reason: string;
  expires: string;
}

/** Volume thresholds, for the org or one collection glob. */
export interface RawGuardThresholds {
  max_update_percent?: number;
  min_collection_size?: number;
}

/** `guards:` of one org. */
export interface RawGuards extends RawGuardThresholds {
  max_secret_resets?: number;
  collections?: Record<string, RawGuardThresholds>;
  allow?: string[];
}

/** The schema objects that are no kind's, checked against their types here. */
const OWN_KEYS: SchemaKeys = {
  root: keysOf<RawRoot>()(
    [
      "org",
      "ignore",
      "ignore_fields",
      "keep_unlisted",
      "moved",
      "delete_unknown",
      "templates",
      "policies",
      "exceptions",
      "guards",
    ],
    ["org"],
  ),
  policy: keysOf<RawPolicy>()(
    [
      "id",
      "level",
      "on",
      "address",
      "message",
      "actions",
      "changed",
      "field",
      "equals",
      "not_equals",
      "in",
      "matches",
      "exists",
      "absent",
      "count",
      "min",
      "max",
      "expect_match",
    ],
    ["id", "on", "address"],
  ),
  policyException: keysOf<RawPolicyException>()(
    ["rule", "address", "reason", "expires"],
    ["rule", "address", "reason", "expires"],
  ),
  guards: keysOf<RawGuards>()(
    ["max_update_percent", "min_collection_size", "max_secret_resets", "collections", "allow"],
    [],
  ),
  guardThresholds: keysOf<RawGuardThresholds>()(["max_update_percent", "min_collection_size"], []),
  "root/templates": keysOf<RawTemplates>()(["projects", "contexts"], []),
  moved: keysOf<RawMoved>()(["from", "to"], ["from", "to"]),
  deleteUnknown: keysOf<RawDeleteUnknown>()(["address", "id"], ["address", "id"]),
};

/**
 * Keys and required keys of every schema object, by a JSON-pointer-like name relative to
 * `$defs` (`pipeline/config` is `$defs.pipeline.properties.config`; `root` is the document):
 * the objects of this file and every kind's `config.schemaKeys`, with each parent's object
 * given the `yamlKey` of every kind under it (the root's `otel_exporters`, a context's
 * `restrictions`). Throws when two kinds list one object differently (a shared object, such
 * as `vcsRepo`, is one list both name). Settings objects are listed by src/model/desired.ts
 * (ORG_SETTING_NAMES, PROJECT_SETTING_NAMES) and checked by the same test.
 */
export const schemaKeysOf = (
  kinds: readonly ResourceKind<unknown, unknown>[],
): Readonly<Record<string, ObjectKeys>> => {
  const out: Record<string, ObjectKeys> = { ...OWN_KEYS };
  const add = (name: string, keys: ObjectKeys, who: string): void => {
    const had = out[name];
    if (had !== undefined && had !== keys) {
      throw new Error(`schema object ${name} is listed twice, differently (${who})`);
    }
    out[name] = keys;
  };
  for (const kind of kinds) {
    for (const [name, keys] of Object.entries(kind.config.schemaKeys ?? {})) {
      add(name, keys, String(kind.type));
    }
  }
  const parents: [ParentName | string, string][] = [
    ["org", "root"],
    ...kinds.map((k): [string, string] => [String(k.type), k.config.schemaDef]),
  ];
  for (const [parent, name] of parents) {
    const children = childKindsIn(kinds, parent).map((k) => k.config.yamlKey);
    if (children.length === 0) continue;
    const own = out[name] ?? { keys: [], required: [] };
    out[name] = { ...own, keys: [...own.keys, ...children] } as ObjectKeys;
  }
  return out;
};

/** Every schema object's keys, from this file and the registry's kinds. */
export const RAW_KEYS = schemaKeysOf(ALL_KINDS);
