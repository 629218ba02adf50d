/**
 * `waybill fmt` (issue 32, design.md §4 "Drift back into Git"): one canonical layout for a
 * config file, comments kept. Pure: text in, text out.
 *
 * The layout: two-space indentation, lists indented under their key, block collections
 * (an empty one is `{}` / `[]`), strings quoted only where YAML needs it (a block scalar
 * `|` / `>` stays one), long lines never folded, keys in the schema's order
 * (schemas/waybill.schema.json: `org`, `settings`, … and, in a webhook, `url`, `events`, …).
 * Keys the schema does not name (`<<` merge keys, top-level `x-` anchors) come first, so an
 * anchor is still defined before its aliases; keys of named maps (projects, contexts,
 * webhooks…) keep the file's order. Comments and blank lines between entries move with
 * their entry.
 *
 * Safety: the formatted text must parse to the same value as the input; when reordering
 * would break that (an alias used before its anchor), keys keep their order; when even that
 * differs, fmt refuses the file rather than change its meaning.
 */
import { isDeepStrictEqual } from "node:util";
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { YAML_STYLE } from "./yaml-edit.js";

export type JsonSchema = Readonly<Record<string, unknown>>;

export class FormatError extends Error {
  override readonly name = "FormatError";
}

const obj = (v: unknown): JsonSchema | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonSchema) : undefined;

/** Follow `$ref`s (`#/$defs/x`) of the root schema. */
const deref = (root: JsonSchema, s: JsonSchema | undefined): JsonSchema | undefined => {
  let cur = s;
  for (let i = 0; i < 20 && cur && typeof cur.$ref === "string"; i++) {
    const ref = cur.$ref as string;
    if (!ref.startsWith("#/")) return undefined;
    let t: unknown = root;
    for (const part of ref.slice(2).split("/")) t = obj(t)?.[part];
    cur = obj(t);
  }
  return cur;
};

/**
 * The alternatives a schema offers: itself, its allOf / anyOf / oneOf members, and the
 * branches of an if/then/else (a project or context with `extends` takes its fragment
 * definition, one without it the strict one: the same keys in the same order).
 */
const alternatives = (root: JsonSchema, s: JsonSchema | undefined): JsonSchema[] => {
  const d = deref(root, s);
  if (!d) return [];
  const out = [d];
  for (const k of ["allOf", "anyOf", "oneOf"]) {
    const list = d[k];
    if (Array.isArray(list)) for (const m of list) out.push(...alternatives(root, obj(m)));
  }
  for (const k of ["else", "then"]) {
    const branch = obj(d[k]);
    if (branch) out.push(...alternatives(root, branch));
  }
  return out;
};

/** The schema of a map's key order, and of a child. */
export interface SchemaCursor {
  readonly keys: readonly string[];
  child(step: string | number): SchemaCursor;
}

const NONE: SchemaCursor = { keys: [], child: () => NONE };

export const schemaCursor = (root: JsonSchema, at?: JsonSchema): SchemaCursor => {
  const alts = alternatives(root, at ?? root);
  if (alts.length === 0) return NONE;
  const keys: string[] = [];
  for (const a of alts) {
    for (const k of Object.keys(obj(a.properties) ?? {})) if (!keys.includes(k)) keys.push(k);
  }
  return {
    keys,
    child: (step) => {
      for (const a of alts) {
        if (typeof step === "number") {
          const items = obj(a.items);
          if (items) return schemaCursor(root, items);
          continue;
        }
        const p = obj(obj(a.properties)?.[step]);
        if (p) return schemaCursor(root, p);
        const pattern = obj(a.patternProperties);
        for (const [re, s] of Object.entries(pattern ?? {})) {
          if (new RegExp(re).test(step) && obj(s)) return schemaCursor(root, obj(s));
        }
        const extra = obj(a.additionalProperties);
        if (extra) return schemaCursor(root, extra);
      }
      return NONE;
    },
  };
};

/** The rank of a key: unknown keys (`<<`, `x-…`) first, then the schema's order. */
const rank = (keys: readonly string[], key: string): number => {
  const i = keys.indexOf(key);
  return i < 0 ? -1 : i;
};

const keyText = (k: unknown): string => (isScalar(k) ? String(k.value) : String(k));

/** A plain value with its maps' keys in the schema's order (for what pull writes). */
export const orderValue = (value: unknown, cursor: SchemaCursor): unknown => {
  if (Array.isArray(value)) return value.map((v, i) => orderValue(v, cursor.child(i)));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const sorted = entries
    .map((e, i) => [e, i] as const)
    .sort(([a, i], [b, j]) => rank(cursor.keys, a[0]) - rank(cursor.keys, b[0]) || i - j)
    .map(([e]) => e);
  return Object.fromEntries(sorted.map(([k, v]) => [k, orderValue(v, cursor.child(k))]));
};

const reorder = (node: unknown, cursor: SchemaCursor): void => {
  if (isMap(node)) {
    const indexed = node.items.map((p, i) => [p, i] as const);
    indexed.sort(
      ([a, i], [b, j]) =>
        rank(cursor.keys, keyText(a.key)) - rank(cursor.keys, keyText(b.key)) || i - j,
    );
    node.items = indexed.map(([p]) => p);
    for (const p of node.items) reorder(p.value, cursor.child(keyText(p.key)));
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) reorder(item, cursor.child(i));
  }
};

/**
 * A comment after a flow collection (`slack: { … } # the hook`) goes above its first entry
 * once it is a block, where yaml also puts `slack: # the hook` (not after its last entry).
 */
const blockComment = (n: YAMLMap | YAMLSeq): void => {
  if (!n.flow || n.items.length === 0 || !n.comment) return;
  n.commentBefore = n.commentBefore ? `${n.commentBefore}\n${n.comment}` : n.comment;
  n.comment = undefined;
};

/** Block collections, plain strings where YAML allows them. */
const canonicalStyle = (doc: Document): void => {
  visit(doc, {
    Map: (_, n) => {
      blockComment(n);
      n.flow = n.items.length === 0;
    },
    Seq: (_, n) => {
      blockComment(n);
      n.flow = n.items.length === 0;
    },
    Scalar: (_, n) => {
      if (typeof n.value !== "string") return;
      if (n.type === "BLOCK_LITERAL" || n.type === "BLOCK_FOLDED") {
        if (n.value.includes("\n")) return;
      }
      n.type = undefined;
    },
  });
};

const render = (doc: Document): string => doc.toString(YAML_STYLE);

const parseChecked = (text: string): Document => {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new FormatError(`YAML syntax error: ${doc.errors[0]?.message.split("\n")[0]}`);
  }
  if (doc.warnings.length > 0 && doc.warnings.some((w) => w.code === "DUPLICATE_KEY")) {
    throw new FormatError("duplicate key");
  }
  return doc;
};

/**
 * The comment above the file's first key is the file's head comment: it stays at the top
 * when the keys are reordered.
 */
const keepHeadComment = (doc: Document, reordered: () => void): void => {
  const root = doc.contents;
  const first = isMap(root) ? root.items[0]?.key : undefined;
  const head = isScalar(first) ? first.commentBefore : undefined;
  reordered();
  const now = isMap(root) ? root.items[0]?.key : undefined;
  if (head === undefined || !isScalar(first) || !isScalar(now) || now === first) return;
  first.commentBefore = undefined;
  now.commentBefore = now.commentBefore ? `${head}\n${now.commentBefore}` : head;
};

const once = (text: string, schema: JsonSchema, order: boolean): string => {
  const doc = parseChecked(text);
  if (order) keepHeadComment(doc, () => reorder(doc.contents, schemaCursor(schema)));
  canonicalStyle(doc);
  try {
    return render(doc);
  } catch (err) {
    // yaml refuses to print what it cannot (an alias whose anchor is nowhere).
    throw new FormatError(`cannot format: ${(err as Error).message.split("\n")[0]}`);
  }
};

const sameValue = (a: string, b: string): boolean => {
  try {
    return isDeepStrictEqual(parseDocument(a).toJS(), parseDocument(b).toJS());
  } catch {
    return false;
  }
};

/** The text in fmt's layout. Throws FormatError for text it cannot format safely. */
export const formatYaml = (text: string, schema: JsonSchema): string => {
  if (text.trim() === "") return text;
  const before = parseChecked(text);
  const hasAliases = (() => {
    let found = false;
    visit(before, {
      Alias: () => {
        found = true;
        return visit.BREAK;
      },
    });
    return found;
  })();
  for (const order of hasAliases ? [true, false] : [true]) {
    let out: string;
    try {
      out = once(text, schema, order);
      // The yaml printer settles in one pass; more passes guard a comment it moves.
      for (let i = 0; i < 3; i++) {
        const again = once(out, schema, order);
        if (again === out) break;
        out = again;
      }
    } catch (err) {
      if (err instanceof FormatError && order) continue;
      throw err;
    }
    if (sameValue(text, out)) return out;
  }
  throw new FormatError(
    "formatting would change what the file means (an alias before its anchor?); fix it by hand",
  );
};
