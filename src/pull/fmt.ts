/**
 * `waybill fmt` (issue 32, design.md §4 "Drift back into Git"; issue 41 "fmt like terraform
 * fmt"): one canonical layout for a config file, everything else the user's. Pure: text in,
 * text out.
 *
 * Issue 41: fmt re-printed the whole document with the yaml package's printer. That moved
 * end-of-line comments onto lines of their own, indented the comments between top-level
 * sections into the section above, expanded every flow collection, sorted keys by the
 * schema (61 lines of the demo config changed), and unquoted `"<<"` into a YAML merge key,
 * which changed what the file means (the next plan deleted a context). fmt now edits the
 * source text line by line, as `terraform fmt` does:
 * - indentation: two spaces a level; a list's `- ` two spaces in from its key; a comment line
 *   takes the indentation of the line it is above (or, when a blank line follows it, moves
 *   with the line it is under); the lines of a multi-line value move with their key;
 * - spacing: one space after a block key's `:` and a list's `-` (before a value on the same
 *   line); no trailing white space; at most one blank line in a row; one newline at the end;
 * - quoting: a quoted one-line string keeps its quotes, in one style: double quotes, or
 *   single quotes when the string holds more `"` than `'` (an address such as
 *   `context["deploy"]`), as prettier's YAML printer chooses (`requote`);
 * - kept as written: key order, flow collections (`{ … }`, `[ … ]`), plain and multi-line
 *   strings, anchors, and end-of-line comments with the spaces before them.
 * Decision: fmt never adds or removes quotes: a quote is often there for a reason YAML does
 * not see (`"<<"`, `"123"` for an id, `"on"` for YAML 1.1 tools); only its style is made
 * canonical. A double-quoted string with an escape other than `\"` and `\\` (`\t`, `\u00e9`)
 * keeps its form: the escape is how the user chose to write a character.
 *
 * Safety: the formatted text must parse to the same value as the input with the loader's
 * options (merge keys on, src/config/yaml-doc.ts), and formatting it again must change
 * nothing; otherwise fmt refuses the file rather than change its meaning.
 */
import { isDeepStrictEqual } from "node:util";
import { CST, isMap, isScalar, isSeq, type Node, Parser, parseDocument } from "yaml";

export type JsonSchema = Readonly<Record<string, unknown>>;

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

export class FormatError extends Error {
  override readonly name = "FormatError";
}

/** The loader's parse options: what a file means is what the loader reads (merge keys on). */
const LOADER = { merge: true, uniqueKeys: false, logLevel: "silent" } as const;

/** The value of a YAML text as the loader reads it; undefined when it does not parse. */
export const parsedValue = (text: string): unknown => {
  try {
    const doc = parseDocument(text, LOADER);
    return doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: -1 });
  } catch {
    return undefined;
  }
};

interface Layout {
  /** Line → the column its first character belongs at (lines that start a key or an item). */
  readonly indent: Map<number, number>;
  /** Line → offsets (in the text) of a `:` or `-` followed by the spaces to make one. */
  readonly gaps: Map<number, number[]>;
  /** Lines a multi-line scalar runs through after its first (moved, never trimmed). */
  readonly inScalar: Set<number>;
}

const rangeOf = (n: unknown): readonly number[] | undefined =>
  (n as { range?: readonly number[] } | null)?.range;

/** The offset each line of `text` starts at. */
export const lineStarts = (text: string): number[] => {
  const out = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
};

/** The 0-based line holding `offset` (binary search over `lineStarts`). */
export const lineOf = (starts: readonly number[], offset: number): number => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
};

const firstNonSpace = (text: string, from: number): number => {
  let i = from;
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
};

/** Where each key and list item belongs: the document walked with the canonical indentation. */
const layoutOf = (text: string): Layout => {
  const doc = parseDocument(text, LOADER);
  if (doc.errors.length > 0) {
    throw new FormatError(`YAML syntax error: ${doc.errors[0]?.message.split("\n")[0]}`);
  }
  const starts = lineStarts(text);
  const layout: Layout = { indent: new Map(), gaps: new Map(), inScalar: new Set() };
  const gap = (offset: number): void => {
    const line = lineOf(starts, offset);
    const list = layout.gaps.get(line) ?? [];
    list.push(offset);
    layout.gaps.set(line, list);
  };
  /** The line starting at `offset`'s line gets `indent` when `offset` is its first character. */
  const place = (offset: number, indent: number): void => {
    const line = lineOf(starts, offset);
    if (firstNonSpace(text, starts[line] as number) !== offset) return;
    if (!layout.indent.has(line)) layout.indent.set(line, indent);
  };
  const scalarLines = (n: Node): void => {
    const r = rangeOf(n);
    if (!r) return;
    const first = lineOf(starts, r[0] as number);
    const last = lineOf(starts, Math.max(r[0] as number, (r[1] as number) - 1));
    for (let l = first + 1; l <= last; l++) layout.inScalar.add(l);
  };
  const walk = (node: unknown, indent: number): void => {
    if (isScalar(node)) {
      scalarLines(node);
      return;
    }
    if (!isMap(node) && !isSeq(node)) return;
    if (node.flow) {
      // A flow collection is kept as written; its multi-line scalars are still protected.
      for (const item of node.items) {
        const parts = isMap(node)
          ? [(item as { key: unknown }).key, (item as { value: unknown }).value]
          : [item];
        for (const p of parts) walk(p, indent);
      }
      return;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key;
        const r = rangeOf(key);
        if (!isScalar(key) || !r) {
          throw new FormatError(
            "a complex key (`? …`) is not formatted; write the key as a plain string",
          );
        }
        place(r[0] as number, indent);
        scalarLines(key);
        const colon = text.indexOf(":", r[1] as number);
        if (colon >= 0) gap(colon);
        walk(pair.value, indent + 2);
      }
      return;
    }
    for (const item of node.items) {
      const r = rangeOf(item);
      if (!r) continue;
      const start = r[0] as number;
      const line = lineOf(starts, start);
      const first = firstNonSpace(text, starts[line] as number);
      // The item's `-` begins its line (`- key: v`, `- v`); in `- - v` the inner list's
      // dash is not first, and its own items place themselves.
      if (text[first] === "-" && first < start) {
        if (!layout.indent.has(line)) layout.indent.set(line, indent);
        let dash = start - 1;
        while (dash > first && text[dash] !== "-") dash--;
        if (text[dash] === "-") gap(dash);
      } else place(start, indent);
      walk(item, indent + 2);
    }
  };
  walk(doc.contents, 0);
  return layout;
};

/** `s` with the white space after each offset (relative to the line) made one space. */
const oneSpaceAfter = (line: string, offsets: readonly number[]): string => {
  let out = line;
  for (const o of [...offsets].sort((a, b) => b - a)) {
    const next = firstNonSpace(out, o + 1);
    // Nothing after it (a key whose value is on the next lines), or a comment: left alone.
    if (next >= out.length || out[next] === "#" || next === o + 2) continue;
    out = `${out.slice(0, o + 1)} ${out.slice(next)}`;
  }
  return out;
};

const once = (text: string): string => {
  const layout = layoutOf(text);
  const starts = lineStarts(text);
  const lines = text.split("\n");
  const n = lines.length;
  const indentOf = (l: string): number => l.length - l.trimStart().length;
  const isBlank = (i: number): boolean => !layout.inScalar.has(i) && (lines[i] ?? "").trim() === "";
  const isComment = (i: number): boolean =>
    !layout.inScalar.has(i) &&
    !layout.indent.has(i) &&
    (lines[i] ?? "").trimStart().startsWith("#");
  // The shift of each line that starts a key or item; other lines move with the one above.
  const delta: number[] = new Array(n).fill(0);
  let owner = 0;
  for (let i = 0; i < n; i++) {
    const want = layout.indent.get(i);
    if (want !== undefined) owner = want - indentOf(lines[i] ?? "");
    delta[i] = owner;
  }
  /**
   * Where a comment that ends a block goes: at the level of the nearest key or item above it
   * at its indentation or less (the block it was written in), as that line moves.
   */
  const closingIndent = (i: number, at: number): number => {
    for (let j = i - 1; j >= 0; j--) {
      const want = layout.indent.get(j);
      if (want === undefined) continue;
      const was = indentOf(lines[j] ?? "");
      if (was <= at) return was === at ? want : want + 2;
    }
    return 0;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const raw = lines[i] ?? "";
    if (layout.inScalar.has(i)) {
      const d = delta[i] as number;
      out.push(d >= 0 ? " ".repeat(d) + raw : raw.slice(Math.min(-d, indentOf(raw))));
      continue;
    }
    if (isBlank(i)) {
      // At most one blank line in a row, none at the start.
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
      continue;
    }
    let line = raw;
    const gaps = layout.gaps.get(i);
    if (gaps)
      line = oneSpaceAfter(
        line,
        gaps.map((o) => o - (starts[i] as number)),
      );
    line = line.trimEnd();
    let indent: number;
    const want = layout.indent.get(i);
    if (want !== undefined) indent = want;
    else if (isComment(i)) {
      // A comment above a key or item takes its indentation; one indented deeper than the
      // line it is above, or followed by a blank line, ends the block above it (a setting
      // commented out) and moves with the line above it.
      let j = i;
      while (j < n && isComment(j)) j++;
      const next = layout.indent.get(j);
      const moved = closingIndent(i, indentOf(line));
      indent =
        next !== undefined && indentOf(line) <= indentOf(lines[j] ?? "")
          ? next
          : Math.max(moved, next ?? 0);
    } else indent = Math.max(0, indentOf(line) + (delta[i] as number));
    out.push(" ".repeat(indent) + line.trimStart());
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
};

/** Characters a single- or double-quoted YAML string cannot hold as written. */
const NEEDS_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** A quoted one-line string in the canonical quote style (see the file comment). */
const canonicalQuoted = (token: CST.FlowScalar): string | undefined => {
  const source = token.source;
  if (source.includes("\n") || source.includes("\r")) return undefined;
  if (token.type === "double-quoted-scalar" && /\\[^"\\]/.test(source)) return undefined;
  const { value } = CST.resolveAsScalar(token);
  if (NEEDS_ESCAPE.test(value)) return undefined;
  const doubles = value.split('"').length - 1;
  const singles = value.split("'").length - 1;
  return doubles > singles
    ? `'${value.replaceAll("'", "''")}'`
    : `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
};

/** The text with every quoted one-line string in the canonical quote style. */
const requote = (text: string): string => {
  const edits: { start: number; end: number; text: string }[] = [];
  const consider = (token: CST.Token | undefined | null): void => {
    if (token?.type !== "single-quoted-scalar" && token?.type !== "double-quoted-scalar") return;
    const want = canonicalQuoted(token);
    if (want !== undefined && want !== token.source) {
      edits.push({ start: token.offset, end: token.offset + token.source.length, text: want });
    }
  };
  for (const doc of new Parser().parse(text)) {
    if (doc.type !== "document") continue;
    consider(doc.value);
    if (doc.value !== undefined) {
      CST.visit(doc, (item) => {
        consider(item.key);
        consider(item.value);
      });
    }
  }
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  return out;
};

/** One pass of fmt: the quote style, then the layout. */
const formatOnce = (text: string): string => once(requote(text));

/** The text in fmt's layout. Throws FormatError for text it cannot format safely. */
export const formatYaml = (text: string): string => {
  if (text.trim() === "") return text;
  const before = parsedValue(text);
  if (before === undefined) {
    layoutOf(text); // a syntax error, named
    throw new FormatError("the file does not parse (an alias with no anchor?); not formatted");
  }
  let out = formatOnce(text);
  const again = formatOnce(out);
  if (again !== out || !isDeepStrictEqual(parsedValue(out), before)) {
    throw new FormatError(
      "formatting would change what the file means, or not settle; nothing was written: fix its layout by hand",
    );
  }
  out = again;
  return out;
};
