/**
 * Edits of a YAML text at one path, as splices of the source text (issue 32): the parsed
 * document (the `yaml` package keeps every node's source range) says where a value is, and
 * only that range is re-written. Every other byte — comments, anchors, key order, quoting,
 * blank lines — stays as it was, by construction. Pure: text in, text out.
 *
 * What is written is in `fmt`'s layout (src/pull/fmt.ts): block collections, indentation
 * of two, quoting only where YAML needs it. Decision: a scalar that is replaced keeps its
 * own quoting style (`"0 2 * * *"` becomes `"0 3 * * *"`), and a flow collection that is
 * replaced stays a flow collection: the diff is the value, not its style.
 */
import {
  type Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  parseDocument,
  Scalar,
  stringify,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";

/** A map key, or a list index. */
export type EditPath = readonly (string | number)[];

/** The options every rendering uses (and fmt's Document.toString). */
// Issue 41: `blockQuote: false`: a multi-line live value is written as one double-quoted
// scalar (`"one\ntwo"`), which fits wherever the old value stood (a flow collection, a
// line with a comment after it); a `|` block there did not parse, and the whole pull failed.
export const YAML_STYLE = {
  indent: 2,
  indentSeq: true,
  lineWidth: 0,
  blockQuote: false,
  // …on one line: `\n` escapes, never a quoted scalar folded over several lines.
  doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER,
} as const;

export class YamlEditError extends Error {
  override readonly name = "YamlEditError";
}

const parse = (text: string): Document => {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw new YamlEditError(`YAML syntax error: ${doc.errors[0]?.code}`);
  return doc;
};

const lineStart = (text: string, pos: number): number => text.lastIndexOf("\n", pos - 1) + 1;
const column = (text: string, pos: number): number => pos - lineStart(text, pos);

type Range = readonly [number, number, number];
const rangeOf = (n: Node): Range => {
  if (!n.range) throw new YamlEditError("a node without a source range");
  return n.range;
};

const isBlock = (n: unknown): n is YAMLMap | YAMLSeq => isCollection(n) && !n.flow;

/** Where a value's text ends: a block collection's last line, else the value itself. */
const valueEnd = (n: Node): number => rangeOf(n)[1];

/** Where an entry (a pair or a list item) ends, with its trailing comment and newline. */
const entryEnd = (text: string, n: Node | null): number => {
  if (n === null) return text.length;
  const [, end, nodeEnd] = rangeOf(n);
  if (isBlock(n)) return end;
  const nl = text.indexOf("\n", end);
  return Math.min(Math.max(nodeEnd, end), nl < 0 ? text.length : nl + 1);
};

const splice = (text: string, start: number, end: number, insert: string): string =>
  text.slice(0, start) + insert + text.slice(end);

/** `value` as block YAML, every line indented by `indent` spaces; ends with a newline. */
export const renderBlock = (value: unknown, indent: number): string => {
  const pad = " ".repeat(indent);
  return stringify(value, YAML_STYLE)
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => (l === "" ? l : pad + l))
    .join("\n")
    .concat("\n");
};

/** `value` on one line (a scalar, or a flow collection). */
const renderFlow = (value: unknown, padded: boolean): string =>
  stringify(value, {
    ...YAML_STYLE,
    collectionStyle: "flow",
    flowCollectionPadding: padded,
  }).replace(/\n$/, "");

const renderScalarLike = (value: unknown, old: Scalar, inFlow: boolean): string => {
  const s = new Scalar(value);
  if (typeof value === "string" && (old.type === "QUOTE_DOUBLE" || old.type === "QUOTE_SINGLE")) {
    s.type = old.type;
  } else if (typeof value === "string" && inFlow && /[,[\]{}]/.test(value)) {
    // Inside `{ … }` or `[ … ]` these end a plain scalar (`url: ${env:X}` would not parse):
    // quoted there, though the same value is plain in a block map.
    s.type = "QUOTE_DOUBLE";
  }
  return stringify(s, YAML_STYLE).replace(/\n$/, "");
};

/** One step into a node: a pair of a map, or an item of a list. */
const child = (
  n: unknown,
  step: string | number,
): { pair?: Pair<unknown, unknown>; node: unknown; index: number } | undefined => {
  if (isMap(n) && typeof step === "string") {
    const index = n.items.findIndex(
      (p) => (isScalar(p.key) ? String(p.key.value) : p.key) === step,
    );
    if (index < 0) return undefined;
    const pair = n.items[index] as Pair<unknown, unknown>;
    return { pair, node: pair.value, index };
  }
  if (isSeq(n) && typeof step === "number") {
    return step < n.items.length ? { node: n.items[step], index: step } : undefined;
  }
  return undefined;
};

/** The node at `path`, or undefined. */
export const nodeAt = (doc: Document, path: EditPath): unknown => {
  let n: unknown = doc.contents;
  for (const step of path) {
    const c = child(n, step);
    if (!c) return undefined;
    n = c.node;
  }
  return n;
};

/** The JS value at `path` in `text`, or undefined. */
export const valueAt = (text: string, path: EditPath): unknown => {
  const n = nodeAt(parse(text), path);
  if (n === undefined) return undefined;
  return isScalar(n) || isCollection(n) ? n.toJSON() : n;
};

/**
 * Issue 41: `text` with each alias on `path` (a `*a` standing for the path's node or for one
 * of its ancestors) replaced by the value it stands for, so that an edit at `path` changes
 * this place only, never the anchor nor its other aliases.
 */
export const unaliasPath = (text: string, path: EditPath): string => {
  let out = text;
  // Each round replaces the alias nearest the root; the value written holds no alias.
  for (let round = 0; round <= path.length; round++) {
    const doc = parse(out);
    let n: unknown = doc.contents;
    let hit: { at: EditPath; value: unknown } | undefined;
    for (let i = 0; i < path.length && hit === undefined; i++) {
      const c = child(n, path[i] as string | number);
      if (!c) break;
      if (isAlias(c.node)) {
        const target = c.node.resolve(doc);
        hit = { at: path.slice(0, i + 1), value: target?.toJS(doc, { maxAliasCount: -1 }) };
      }
      n = c.node;
    }
    if (hit === undefined || hit.value === undefined) return out;
    out = setIn(out, hit.at, hit.value);
  }
  return out;
};

export const hasPath = (text: string, path: EditPath): boolean =>
  nodeAt(parse(text), path) !== undefined;

const nest = (steps: readonly string[], value: unknown): unknown =>
  steps.reduceRight<unknown>((v, k) => ({ [k]: v }), value);

/**
 * The pair holding the node at `path` when it sits in a block map (`webhooks: {}`), with
 * its key's column: an empty flow collection there is replaced by a block one.
 */
const blockOwner = (text: string, doc: Document, path: EditPath): number | undefined => {
  if (path.length === 0) return undefined;
  const parent = nodeAt(doc, path.slice(0, -1));
  const step = path[path.length - 1] as string | number;
  if (!isMap(parent) || parent.flow || typeof step !== "string") return undefined;
  const c = child(parent, step);
  if (!c?.pair || !isScalar(c.pair.key) || !c.pair.key.range) return undefined;
  return column(text, c.pair.key.range[0]);
};

/** `key: {}` / `key: []` becomes `key:` and a block value (a comment after it kept). */
const emptyToBlock = (text: string, node: Node, value: unknown, keyColumn: number): string => {
  const [start, end] = rangeOf(node);
  const eol = text.indexOf("\n", end);
  const lineEnd = eol < 0 ? text.length : eol + 1;
  const rest = text.slice(end, lineEnd);
  const before = text.slice(0, start).replace(/[ \t]+$/, "");
  // fmt's layout (the yaml printer's): a comment after the key goes on its own line, above
  // the first entry.
  const comment = rest.trim();
  const above = comment === "" ? "" : `${" ".repeat(keyColumn + 2)}${comment}\n`;
  return `${before}\n${above}${renderBlock(value, keyColumn + 2)}${text.slice(lineEnd)}`;
};

/** Insert `key: value` into the map `map`. */
const addPair = (
  text: string,
  map: YAMLMap,
  key: string,
  value: unknown,
  ownerColumn: number | undefined,
): string => {
  const entry = { [key]: value };
  if (map.flow && map.items.length === 0 && ownerColumn !== undefined) {
    return emptyToBlock(text, map, entry, ownerColumn);
  }
  if (map.flow) {
    const [start, end] = rangeOf(map);
    const close = text.lastIndexOf("}", end - 1);
    const padded = map.items.length === 0 ? false : /^\{\s/.test(text.slice(start, end));
    const inner = renderFlow(entry, padded).replace(/^\{\s?|\s?\}$/g, "");
    if (map.items.length === 0) return splice(text, start, end, renderFlow(entry, false));
    const before = text.slice(0, close).replace(/\s*$/, "");
    return `${before}, ${inner}${padded ? " " : ""}${text.slice(close)}`;
  }
  if (map.items.length === 0) throw new YamlEditError("an empty block map");
  const at = valueEnd(map);
  const indent = column(text, rangeOf(map)[0]);
  const lead = at > 0 && text[at - 1] !== "\n" ? "\n" : "";
  return splice(text, at, at, lead + renderBlock(entry, indent));
};

/**
 * Set the value at `path` (map keys; an index replaces a list item). Missing maps on the
 * way are created; a null value on the way (`settings:` with nothing) becomes the map.
 */
export const setIn = (text: string, path: EditPath, value: unknown): string => {
  const doc = parse(text);
  let n: unknown = doc.contents;
  let keyColumn = 0;
  for (let i = 0; i < path.length; i++) {
    const step = path[i] as string | number;
    const c = child(n, step);
    const rest = path.slice(i + 1);
    if (!c) {
      if (typeof step !== "string" || rest.some((s) => typeof s !== "string")) {
        throw new YamlEditError(`no list item ${String(step)} at ${path.slice(0, i).join(".")}`);
      }
      if (n === null || n === undefined || (isScalar(n) && n.value === null)) {
        return replaceEmpty(text, n, nest(path.slice(i) as string[], value), keyColumn);
      }
      if (!isMap(n)) throw new YamlEditError(`${path.slice(0, i).join(".")} is not a map`);
      return addPair(
        text,
        n,
        step,
        nest(rest as string[], value),
        blockOwner(text, doc, path.slice(0, i)),
      );
    }
    if (c.pair && isScalar(c.pair.key)) keyColumn = column(text, rangeOf(c.pair.key)[0]);
    if (i === path.length - 1) {
      const inFlow = isCollection(n) && n.flow === true;
      return replaceNode(text, c.node, value, keyColumn, c.pair, inFlow);
    }
    n = c.node;
  }
  throw new YamlEditError("an empty path");
};

/** Replace a null value (`key:` with nothing, or `key: ~`) by a value. */
const replaceEmpty = (text: string, n: unknown, value: unknown, keyColumn: number): string => {
  if (isScalar(n) && n.range && n.range[1] > n.range[0]) {
    return replaceNode(text, n, value, keyColumn, undefined);
  }
  const at = isScalar(n) && n.range ? n.range[0] : undefined;
  if (at === undefined) throw new YamlEditError("a value without a position");
  // `key:` then nothing: the value's range is empty, right after the colon.
  if (isCollection(value) || (typeof value === "object" && value !== null)) {
    const body = renderBlock(value, keyColumn + 2);
    const eol = text.indexOf("\n", at);
    const lineEnd = eol < 0 ? text.length : eol;
    return splice(text, lineEnd, lineEnd + (eol < 0 ? 0 : 1), `\n${body}`);
  }
  return splice(text, at, at, ` ${renderFlow(value, false)}`);
};

const replaceNode = (
  text: string,
  n: unknown,
  value: unknown,
  keyColumn: number,
  pair: Pair<unknown, unknown> | undefined,
  inFlow = false,
): string => {
  if (n === null || n === undefined) {
    if (!pair || !isScalar(pair.key) || !pair.key.range) throw new YamlEditError("no position");
    const keyEnd = pair.key.range[1];
    const colon = text.indexOf(":", keyEnd);
    return replaceEmpty(text, { range: [colon + 1, colon + 1, colon + 1] }, value, keyColumn);
  }
  const node = n as Node;
  const [start, end] = rangeOf(node);
  const structured = typeof value === "object" && value !== null;
  if (isScalar(node) && !structured) {
    return splice(text, start, end, renderScalarLike(value, node, inFlow));
  }
  // Inside a flow collection, everything stays on its line.
  if (inFlow) return splice(text, start, end, renderFlow(value, false));
  if (isCollection(node) && node.flow) {
    const padded = /^[[{]\s/.test(text.slice(start, end));
    return splice(text, start, end, renderFlow(value, padded));
  }
  if (isBlock(node) && structured) {
    const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
    if (!empty) {
      const indent = column(text, start);
      return splice(text, start, end, renderBlock(value, indent).slice(indent));
    }
  }
  // A scalar becomes a collection (or a block collection becomes empty or a scalar): the
  // value is written after the key, in block style.
  if (structured) {
    const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
    if (!empty && isScalar(node)) return emptyToBlock(text, node, value, keyColumn);
  }
  // Otherwise a scalar value: a block collection (everything after the colon) or a flow
  // one becomes that scalar.
  if (isBlock(node) && pair && isScalar(pair.key) && pair.key.range) {
    const colon = text.indexOf(":", pair.key.range[1]);
    return splice(text, colon + 1, end, ` ${renderFlow(value, false)}\n`);
  }
  return splice(text, start, end, renderFlow(value, false));
};

/** Append an item to the list at `path` (which must exist). */
export const appendIn = (text: string, path: EditPath, value: unknown): string => {
  const doc = parse(text);
  const seq = nodeAt(doc, path);
  if (!isSeq(seq)) {
    if (seq === null || (isScalar(seq) && seq.value === null)) return setIn(text, path, [value]);
    throw new YamlEditError(`${path.join(".")} is not a list`);
  }
  const owner = seq.flow && seq.items.length === 0 ? blockOwner(text, doc, path) : undefined;
  if (owner !== undefined) return emptyToBlock(text, seq, [value], owner);
  if (seq.flow) {
    const [start, end] = rangeOf(seq);
    if (seq.items.length === 0) return splice(text, start, end, renderFlow([value], false));
    const close = text.lastIndexOf("]", end - 1);
    const padded = /^\[\s/.test(text.slice(start, end));
    const before = text.slice(0, close).replace(/\s*$/, "");
    return `${before}, ${renderFlow(value, false)}${padded ? " " : ""}${text.slice(close)}`;
  }
  const at = valueEnd(seq);
  const indent = column(text, rangeOf(seq)[0]);
  const lead = at > 0 && text[at - 1] !== "\n" ? "\n" : "";
  return splice(text, at, at, lead + renderBlock([value], indent));
};

/**
 * Remove the entry at `path` (a map key or a list index). The last entry of a block
 * collection leaves `{}` / `[]`, so the collection stays declared (and authoritative).
 */
export const deleteIn = (text: string, path: EditPath): string => {
  if (path.length === 0) throw new YamlEditError("an empty path");
  const doc = parse(text);
  const parentPath = path.slice(0, -1);
  const parent = nodeAt(doc, parentPath);
  const step = path[path.length - 1] as string | number;
  const c = child(parent, step);
  if (!c || !isCollection(parent)) return text;
  const items = parent.items as unknown[];
  const first: Node | undefined = c.pair ? (c.pair.key as Node) : (c.node as Node);
  const startNode = first ?? (c.node as Node);
  const [s] = rangeOf(startNode);
  if (parent.flow) {
    const [ps, pe] = rangeOf(parent);
    if (items.length === 1) return splice(text, ps, pe, isMap(parent) ? "{}" : "[]");
    const endOf = (i: number): number => {
      const it = items[i] as Pair<Node, Node | null> | Node;
      const v = isMap(parent) ? (it as Pair<Node, Node | null>).value : (it as Node);
      const k = isMap(parent) ? (it as Pair<Node, Node | null>).key : (it as Node);
      return rangeOf(v ?? k)[1];
    };
    const startOf = (i: number): number => {
      const it = items[i] as Pair<Node, Node | null> | Node;
      return rangeOf(isMap(parent) ? (it as Pair<Node, Node | null>).key : (it as Node))[0];
    };
    return c.index > 0
      ? splice(text, endOf(c.index - 1), endOf(c.index), "")
      : splice(text, s, startOf(1), "");
  }
  const from = lineStart(text, s);
  const to = entryEnd(text, (c.node as Node | null) ?? (c.pair?.key as Node));
  if (items.length > 1) return splice(text, from, to, "");
  // The only entry: `key:\n  only: 1\n` becomes `key: {}\n`.
  const gp = nodeAt(doc, path.slice(0, -2));
  const owner = child(gp, path[path.length - 2] as string | number);
  if (owner?.pair && isScalar(owner.pair.key) && owner.pair.key.range) {
    const colon = text.indexOf(":", owner.pair.key.range[1]);
    const empty = isMap(parent) ? " {}" : " []";
    // One comment line between the key and its only entry (the collection's own comment)
    // goes after the `{}`, where fmt puts it; the colon comes before the entry, so
    // removing the entry first keeps its offset.
    const eol = text.indexOf("\n", colon);
    const between = eol < 0 || eol + 1 > from ? "" : text.slice(eol + 1, from);
    const lines = between.split("\n").filter((l) => l.trim() !== "");
    const onKeyLine = text.slice(colon + 1, eol < 0 ? text.length : eol).trim();
    if (lines.length === 1 && onKeyLine === "" && /^\s*#/.test(lines[0] as string)) {
      const moved = splice(text, eol + 1, to, "");
      return splice(moved, colon + 1, eol, `${empty} ${(lines[0] as string).trim()}`);
    }
    return splice(splice(text, from, to, ""), colon + 1, colon + 1, empty);
  }
  return splice(text, from, to, "");
};
