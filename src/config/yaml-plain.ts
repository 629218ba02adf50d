/**
 * The plain subset of YAML, read in one pass (pure): the value of a config file written
 * the way configs are written, or `undefined` for anything else.
 *
 * Why (issue 33): the `yaml` package lexes, parses and composes a node object for every
 * key and value before it gives the plain value: ~2.5 s of CPU for the 3.7 MB, 40,000-item
 * bench config, most of its `validate` on 2 cores and of a large plan's time before its
 * first request. Nearly every config is block maps and lists of one-line scalars, with a
 * few one-line flow collections (`events: [a, b]`, `vcs: { provider: x }`). That subset is
 * read here line by line, about eighteen times faster (138 ms for the same files).
 *
 * What is read: block maps and block lists (`- item`, `- key: value`, a list at its key's
 * indentation), keys that are plain or quoted strings, plain / "double" / 'single' quoted
 * scalars on one line, one-line flow lists and maps of those, comments, blank lines. Plain
 * scalars are resolved by the `yaml` package's own core-schema tags (null, booleans,
 * numbers), so a value is exactly what `yaml` gives for it.
 *
 * What is not: anything else (anchors and aliases, tags, block scalars `|` `>`, a scalar
 * over several lines, a multi-line flow collection, `? ` keys, a non-string key, `<<`,
 * document markers and directives, tabs, CR, control characters, a duplicate key, an
 * indentation or syntax error, very deep nesting). On the first such thing the read stops
 * and the caller parses the file with `yaml` (yaml-doc.ts), which gives the value or the
 * located diagnostic as before. So the subset never decides anything about a file `yaml`
 * would answer differently: it answers the same value or declines. The property tests
 * (test/unit/config-yaml-plain.test.ts) check exactly that against `yaml` on random and
 * mutated documents.
 *
 * Decision (issue 33 against issue 16, which made `yaml` the one parser and removed a
 * js-yaml fast path with a resolver of its own): `yaml` alone cannot load the 40,000-item
 * config in a second on 2 cores (its lexer and parser are ~1.2 s of CPU for it). This
 * reader resolves nothing itself (the tags are `yaml`'s), gives no position or diagnostic,
 * and answers only for a file it reads whole; making yaml-doc.ts `readPlainFile` decline
 * every file goes back to `yaml` alone.
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";

/** Thrown inside the reader when the text leaves the subset; never escapes `readPlainYaml`. */
class NotPlain {}
const NOT_PLAIN = new NotPlain();
const decline = (): never => {
  throw NOT_PLAIN;
};

// Character codes.
const SPACE = 32;
const HASH = 35;
const DQUOTE = 34;
const SQUOTE = 39;
const COMMA = 44;
const DASH = 45;
const COLON = 58;
const LBRACKET = 91;
const BACKSLASH = 92;
const RBRACKET = 93;
const LBRACE = 123;
const RBRACE = 125;

/** Characters the subset never reads: tabs, CR, other controls, BOM, YAML's extra line breaks. */
const OUTSIDE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;

/** Deeper than this, `yaml` decides (it reports a document too deep for its stack). */
const MAX_DEPTH = 200;

/**
 * A plain scalar cannot start with these (YAML 1.2 §7.3.3 c-indicator); `-` is handled
 * apart (`-x` is a plain scalar, `- x` a list item).
 */
const isIndicator = (c: number): boolean =>
  c === 63 /* ? */ ||
  c === COLON ||
  c === COMMA ||
  c === LBRACKET ||
  c === RBRACKET ||
  c === LBRACE ||
  c === RBRACE ||
  c === HASH ||
  c === 38 /* & */ ||
  c === 42 /* * */ ||
  c === 33 /* ! */ ||
  c === 124 /* | */ ||
  c === 62 /* > */ ||
  c === SQUOTE ||
  c === DQUOTE ||
  c === 37 /* % */ ||
  c === 64 /* @ */ ||
  c === 96; /* ` */

const isFlowIndicator = (c: number): boolean =>
  c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE;

interface CoreSchema {
  readonly tags: readonly Yaml.ScalarTag[];
  readonly options: Yaml.ParseOptions;
  readonly isScalar: (node: unknown) => node is Yaml.Scalar;
}

/**
 * The core-schema tags of the documents yaml-doc.ts composes (`merge: true`), in `yaml`'s
 * order: a plain scalar takes the first tag whose test matches, as yaml's composer does
 * (compose-scalar.js `findScalarTagByTest`). Loaded on the first scalar that could be
 * something other than a string.
 */
let coreSchema: CoreSchema | undefined;
const schema = (): CoreSchema => {
  if (coreSchema === undefined) {
    const yaml = createRequire(import.meta.url)("yaml") as typeof Yaml;
    const doc = new yaml.Document(null, { merge: true });
    coreSchema = {
      tags: (doc.schema.tags as (Yaml.ScalarTag | Yaml.CollectionTag)[]).filter(
        (t): t is Yaml.ScalarTag => !("collection" in t && t.collection) && t.test !== undefined,
      ),
      options: doc.options as Yaml.ParseOptions,
      isScalar: yaml.isScalar,
    };
  }
  return coreSchema;
};

/**
 * Whether a plain scalar could match a core-schema tag other than the string: every such
 * tag's test (null `~ null`, booleans, numbers, `.inf` `.nan`, the merge key `<<`) matches
 * only texts this matches too (a superset: a digit, maybe after a sign and a dot, or one of
 * the words). A key such as `nightly` or a path such as `.service/config.yml` is a string
 * without loading `yaml`.
 */
const MAY_BE_TYPED =
  /^(?:[-+]?\.?[0-9]|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$|~$|<<$|(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$)/;

/** A plain scalar's value, as `yaml` resolves it; at a key, only a string is read. */
const resolvePlain = (source: string, atKey: boolean): unknown => {
  if (!MAY_BE_TYPED.test(source)) return source;
  const { tags, options, isScalar } = schema();
  for (const tag of tags) {
    if ((tag.default === true || (atKey && tag.default === "key")) && tag.test?.test(source)) {
      if (atKey) decline(); // a key that is not a string (true, 1, ~, <<): yaml decides
      let failed = false;
      const resolved = tag.resolve(
        source,
        () => {
          failed = true;
        },
        options,
      );
      if (failed) decline();
      return isScalar(resolved) ? resolved.value : resolved;
    }
  }
  return source;
};

/**
 * Read `text` if it is in the subset: its value (what `yaml`'s `toJS` gives), else
 * `undefined`. A top-level block map only (a config file is one); an empty file is not.
 */
export const readPlainYaml = (text: string): unknown => {
  if (OUTSIDE.test(text)) return undefined;
  try {
    return new PlainReader(text).document();
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    // The stack ran out on a document nested deeper than MAX_DEPTH counts (it cannot, but
    // yaml is the one to say so).
    if (err instanceof RangeError) return undefined;
    throw err;
  }
};

class PlainReader {
  private readonly text: string;
  /** The content lines (blank and comment-only lines left out). */
  private readonly indents: number[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** The line being read. */
  private line = 0;
  private depth = 0;

  constructor(text: string) {
    this.text = text;
    const { indents, starts, ends } = this;
    let at = 0;
    const length = text.length;
    while (at < length) {
      let end = text.indexOf("\n", at);
      if (end === -1) end = length;
      let p = at;
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      if (p < end && text.charCodeAt(p) !== HASH) {
        // A document marker or a directive: yaml decides.
        if (p === at) {
          const c = text.charCodeAt(p);
          if (c === 37 /* % */) decline();
          if (
            (c === DASH && text.startsWith("---", p)) ||
            (c === 46 /* . */ && text.startsWith("...", p))
          ) {
            decline();
          }
        }
        indents.push(p - at);
        starts.push(p);
        ends.push(end);
      }
      at = end + 1;
    }
  }

  document(): unknown {
    if (this.indents.length === 0 || this.indents[0] !== 0 || this.isListItem(0)) decline();
    const value = this.blockMap(0);
    // Everything must have been read (a line left is an indentation error).
    if (this.line !== this.indents.length) decline();
    return value;
  }

  /** Whether content line `i` starts a block list item (`- ` or a lone `-`). */
  private isListItem(i: number): boolean {
    const p = this.starts[i] as number;
    if (this.text.charCodeAt(p) !== DASH) return false;
    const next = p + 1;
    return next === this.ends[i] || this.text.charCodeAt(next) === SPACE;
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) decline();
  }

  /** The block node whose first line is the current one, at `indent`. */
  private blockNode(indent: number): unknown {
    return this.isListItem(this.line) ? this.blockList(indent) : this.blockMap(indent);
  }

  /** A block map whose keys are at column `indent`, from the current line. */
  private blockMap(indent: number): Record<string, unknown> {
    this.enter();
    const { text, indents, starts, ends } = this;
    const map: Record<string, unknown> = {};
    const count = indents.length;
    while (this.line < count) {
      const i = this.line;
      const lineIndent = indents[i] as number;
      if (lineIndent < indent) break;
      if (lineIndent > indent || this.isListItem(i)) decline();
      const end = ends[i] as number;
      const { key, after } = this.blockKey(starts[i] as number, end);
      let p = after;
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      let value: unknown;
      if (p === end || (text.charCodeAt(p) === HASH && p > after)) {
        // `key:` with nothing after it: a nested block below, a list at the key's own
        // indentation, or null.
        this.line++;
        if (this.line < count && (indents[this.line] as number) > indent) {
          value = this.blockNode(indents[this.line] as number);
        } else if (
          this.line < count &&
          indents[this.line] === indent &&
          this.isListItem(this.line)
        ) {
          value = this.blockList(indent);
        } else {
          value = null;
        }
      } else {
        value = this.inlineValue(p, end);
        this.line++;
        // A deeper line after a one-line value: a scalar over several lines, or an error.
        if (this.line < count && (indents[this.line] as number) > indent) decline();
      }
      addEntry(map, key, value);
    }
    this.depth--;
    return map;
  }

  /** A block list whose dashes are at column `indent`, from the current line. */
  private blockList(indent: number): unknown[] {
    this.enter();
    const { text, indents, starts, ends } = this;
    const list: unknown[] = [];
    const count = indents.length;
    while (this.line < count) {
      const i = this.line;
      const lineIndent = indents[i] as number;
      if (lineIndent < indent) break;
      if (lineIndent > indent) decline();
      if (!this.isListItem(i)) break;
      const end = ends[i] as number;
      let p = (starts[i] as number) + 1;
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      // `-` alone, `- # comment`: yaml decides.
      if (p === end || text.charCodeAt(p) === HASH) decline();
      const nestedList =
        text.charCodeAt(p) === DASH && (p + 1 === end || text.charCodeAt(p + 1) === SPACE);
      if (nestedList || this.hasBlockKey(p, end)) {
        // `- key: value` (a map whose keys are at the column of `key`) or `- - x` (a list
        // whose dashes are at the column of the second dash): the rest of the line is read
        // as a line of its own at that column.
        const column = p - ((starts[i] as number) - lineIndent);
        indents[i] = column;
        starts[i] = p;
        list.push(nestedList ? this.blockList(column) : this.blockMap(column));
      } else {
        list.push(this.inlineValue(p, end));
        this.line++;
        if (this.line < count && (indents[this.line] as number) > indent) decline();
      }
    }
    this.depth--;
    return list;
  }

  /** Whether the content at `p` is `key:` (a map entry) rather than a value. */
  private hasBlockKey(p: number, end: number): boolean {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (c === DQUOTE || c === SQUOTE) {
      const close = this.quotedEnd(p, end);
      return close + 1 < end && text.charCodeAt(close + 1) === COLON;
    }
    // A flow collection is a value (one used as a key, `[a]: b`, is declined after it).
    if (c === LBRACKET || c === LBRACE) return false;
    for (let j = p; j < end; j++) {
      const d = text.charCodeAt(j);
      if (d === COLON && (j + 1 === end || text.charCodeAt(j + 1) === SPACE)) return true;
      if (d === HASH && text.charCodeAt(j - 1) === SPACE) return false;
    }
    return false;
  }

  /**
   * A map key at `p`: a quoted scalar, or a plain one ending where `plainEnd` (given the
   * position after its first character) finds its colon, -1 for none. Block and flow keys
   * differ only in that search and in what must follow the colon.
   */
  private mapKey(
    p: number,
    end: number,
    plainEnd: (from: number) => number,
  ): { key: string; colon: number } {
    const { text } = this;
    const c = text.charCodeAt(p);
    if (c === DQUOTE || c === SQUOTE) {
      const quoted = this.quoted(p, end);
      return { key: quoted.value, colon: quoted.next };
    }
    if (isIndicator(c) || c === DASH) decline();
    const colon = plainEnd(p + 1);
    // No `key:` (a bare scalar where a key belongs), or `key :` (yaml decides).
    if (colon === -1 || text.charCodeAt(colon - 1) === SPACE) decline();
    return { key: resolvePlain(text.slice(p, colon), true) as string, colon };
  }

  /** The key of a block map entry at `p`, and the position after its `:`. */
  private blockKey(p: number, end: number): { key: string; after: number } {
    const { text } = this;
    const { key, colon } = this.mapKey(p, end, (from) => {
      for (let j = from; j < end; j++) {
        const d = text.charCodeAt(j);
        if (d === COLON && (j + 1 === end || text.charCodeAt(j + 1) === SPACE)) return j;
        if (d === HASH && text.charCodeAt(j - 1) === SPACE) decline();
      }
      return -1;
    });
    if (colon >= end || text.charCodeAt(colon) !== COLON) decline();
    // yaml refuses an implicit key over 1024 characters; the subset stops well before.
    if (colon - p > 1000 || key === "<<") decline();
    const after = colon + 1;
    if (after < end && text.charCodeAt(after) !== SPACE) decline();
    return { key, after };
  }

  /** A one-line value at `p`: a quoted or plain scalar or a flow collection, then a comment. */
  private inlineValue(p: number, end: number): unknown {
    const { text } = this;
    const c = text.charCodeAt(p);
    let value: unknown;
    let next: number;
    if (c === DQUOTE || c === SQUOTE) {
      ({ value, next } = this.quoted(p, end));
    } else if (c === LBRACKET || c === LBRACE) {
      const flow = this.flowCollection(p, end);
      value = flow.value;
      next = flow.next;
    } else {
      if (isIndicator(c)) decline();
      if (c === DASH && (p + 1 === end || text.charCodeAt(p + 1) === SPACE)) decline();
      // A plain scalar runs to the end of the line or to ` #`.
      let stop = end;
      for (let j = p + 1; j < end; j++) {
        const d = text.charCodeAt(j);
        if (d === HASH && text.charCodeAt(j - 1) === SPACE) {
          stop = j;
          break;
        }
        // `: ` or a final `:` inside a value: a nested map on one line, an error for yaml.
        if (d === COLON && (j + 1 === end || text.charCodeAt(j + 1) === SPACE)) decline();
      }
      while (text.charCodeAt(stop - 1) === SPACE) stop--;
      return resolvePlain(text.slice(p, stop), false);
    }
    this.restIsComment(next, end);
    return value;
  }

  /** After a value: nothing but spaces, then the end of the line or a ` #` comment. */
  private restIsComment(p: number, end: number): void {
    const { text } = this;
    let q = p;
    while (q < end && text.charCodeAt(q) === SPACE) q++;
    if (q < end && !(text.charCodeAt(q) === HASH && q > p)) decline();
  }

  /** The index of the quote closing the scalar that opens at `p` (`end` if none on the line). */
  private quotedEnd(p: number, end: number): number {
    return this.text.charCodeAt(p) === DQUOTE
      ? this.doubleQuotedEnd(p, end)
      : this.singleQuotedEnd(p, end);
  }

  /** A "double" or 'single' quoted scalar at `p` that closes on its line: its value, and after. */
  private quoted(p: number, end: number): { value: string; next: number } {
    const close = this.quotedEnd(p, end);
    if (close >= end) decline(); // continued on the next line: yaml decides
    const value =
      this.text.charCodeAt(p) === DQUOTE
        ? this.doubleQuoted(p, close)
        : this.singleQuoted(p, close);
    return { value, next: close + 1 };
  }

  /** The index of the closing `"` of a double-quoted scalar opening at `p` (`end` if none). */
  private doubleQuotedEnd(p: number, end: number): number {
    const { text } = this;
    for (let j = p + 1; j < end; j++) {
      const d = text.charCodeAt(j);
      if (d === BACKSLASH) j++;
      else if (d === DQUOTE) return j;
    }
    return end;
  }

  /** The value of `"…"` from `open` to `close`: JSON's escapes only (they mean the same in YAML). */
  private doubleQuoted(open: number, close: number): string {
    const { text } = this;
    const raw = text.slice(open, close + 1);
    if (raw.indexOf("\\") === -1) return raw.slice(1, -1);
    // YAML's own escapes (\0 \a \e \x.. \U…, an escaped space or line break) are left to yaml.
    for (let j = 1; j < raw.length - 1; j++) {
      if (raw.charCodeAt(j) !== BACKSLASH) continue;
      j++;
      if (!'"\\/bfnrtu'.includes(raw[j] as string)) decline();
    }
    try {
      return JSON.parse(raw) as string;
    } catch {
      return decline();
    }
  }

  /** The index of the closing `'` of a single-quoted scalar opening at `p` (`end` if none). */
  private singleQuotedEnd(p: number, end: number): number {
    const { text } = this;
    for (let j = p + 1; j < end; j++) {
      if (text.charCodeAt(j) === SQUOTE) {
        if (j + 1 < end && text.charCodeAt(j + 1) === SQUOTE) j++;
        else return j;
      }
    }
    return end;
  }

  private singleQuoted(open: number, close: number): string {
    return this.text.slice(open + 1, close).replaceAll("''", "'");
  }

  /** A flow list or map that opens at `p` and closes on the same line. */
  private flowCollection(p: number, end: number): { value: unknown; next: number } {
    this.enter();
    const { text } = this;
    const isList = text.charCodeAt(p) === LBRACKET;
    const close = isList ? RBRACKET : RBRACE;
    const list: unknown[] = [];
    const map: Record<string, unknown> = {};
    let q = this.skipSpaces(p + 1, end);
    if (q < end && text.charCodeAt(q) === close) {
      this.depth--;
      return { value: isList ? list : map, next: q + 1 };
    }
    for (;;) {
      if (isList) {
        const item = this.flowItem(q, end, true);
        list.push(item.value);
        q = item.next;
      } else {
        const key = this.flowKey(q, end);
        const item = this.flowItem(this.skipSpaces(key.after, end), end, false);
        addEntry(map, key.key, item.value);
        q = item.next;
      }
      q = this.skipSpaces(q, end);
      if (q >= end) decline(); // continued on the next line: yaml decides
      const c = text.charCodeAt(q);
      if (c === close) break;
      if (c !== COMMA) decline();
      q = this.skipSpaces(q + 1, end);
      // `[a, ]`, `[a,, b]`: yaml decides.
      if (q >= end || text.charCodeAt(q) === close || text.charCodeAt(q) === COMMA) decline();
    }
    this.depth--;
    return { value: isList ? list : map, next: q + 1 };
  }

  private skipSpaces(p: number, end: number): number {
    let q = p;
    while (q < end && this.text.charCodeAt(q) === SPACE) q++;
    return q;
  }

  /** A flow map's key at `p` and the position after its `: `. */
  private flowKey(p: number, end: number): { key: string; after: number } {
    const { text } = this;
    const { key, colon } = this.mapKey(p, end, (from) => {
      let j = from;
      while (j < end) {
        const d = text.charCodeAt(j);
        if (d === COLON || isFlowIndicator(d) || d === HASH) break;
        j++;
      }
      return j;
    });
    // `{ key: value }` only: `{ a }`, `{ a:b }`, `{"a":b}`: yaml decides.
    if (
      colon + 1 >= end ||
      text.charCodeAt(colon) !== COLON ||
      text.charCodeAt(colon + 1) !== SPACE ||
      key === "<<"
    ) {
      decline();
    }
    return { key, after: colon + 2 };
  }

  /** Whether a `-` before `p` starts a plain scalar in a flow collection (`-x`, not `- `, `-]`). */
  private plainAfterDash(p: number, end: number): boolean {
    if (p >= end) return false;
    const c = this.text.charCodeAt(p);
    return c !== SPACE && !isFlowIndicator(c);
  }

  /** A flow list's item or a flow map's value at `p`. */
  private flowItem(p: number, end: number, inList: boolean): { value: unknown; next: number } {
    const { text } = this;
    if (p >= end) decline();
    const c = text.charCodeAt(p);
    if (c === LBRACKET || c === LBRACE) return this.flowCollection(p, end);
    let value: unknown;
    let next: number;
    if (c === DQUOTE || c === SQUOTE) {
      ({ value, next } = this.quoted(p, end));
    } else {
      // An empty value (`{ a: , b: c }`), an indicator, `- `: yaml decides.
      if (isIndicator(c) || (c === DASH && !this.plainAfterDash(p + 1, end))) decline();
      next = p + 1;
      while (next < end) {
        const d = text.charCodeAt(next);
        if (isFlowIndicator(d)) break;
        // `: ` (or `:` before a flow indicator) would make a pair; a comment inside a flow
        // collection continues it on the next line.
        if (d === COLON) {
          const after = next + 1 < end ? text.charCodeAt(next + 1) : SPACE;
          if (after === SPACE || isFlowIndicator(after)) decline();
        }
        if (d === HASH && text.charCodeAt(next - 1) === SPACE) decline();
        next++;
      }
      let stop = next;
      while (text.charCodeAt(stop - 1) === SPACE) stop--;
      value = resolvePlain(text.slice(p, stop), false);
    }
    // A quoted item followed by `:` in a list is a pair (`["a": b]`): yaml decides.
    if (inList && next < end && text.charCodeAt(this.skipSpaces(next, end)) === COLON) decline();
    return { value, next };
  }
}

/**
 * Add one entry as yaml's `toJS` does (nodes/addPairToJSMap.js): a name already on the
 * object through its prototype (`__proto__`, `constructor`) becomes an own property; a
 * duplicate is left to yaml (yaml-doc.ts reports it with both places).
 */
const addEntry = (map: Record<string, unknown>, key: string, value: unknown): void => {
  if (Object.hasOwn(map, key)) decline();
  if (key in map) {
    Object.defineProperty(map, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    map[key] = value;
  }
};
