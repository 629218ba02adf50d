/**
 * The fast path of the config parser (issue 8): YAML text → plain value, for the plain
 * YAML that configs are written in, or `undefined` to hand the text to the full parser
 * (yaml-doc.ts), which stays the authority for every diagnostic and every source position.
 *
 * Why two parsers: the `yaml` package keeps a concrete syntax tree with source ranges, which
 * is what diagnostics need, but building it costs about 0.5 s of CPU for a 4,000-item config
 * in a fresh process (bench/README.md: most of `waybill plan`'s start-up before its first
 * request). js-yaml's event parser reads the same file in under 0.1 s. Its events carry
 * the scalar style, so this module resolves plain scalars itself, by the YAML 1.2 core
 * schema (the one `yaml` uses by default), and the two parsers give the same value for
 * every document this module accepts (test/unit/config-yaml-fast.test.ts checks that on
 * random documents and on every config in the repository).
 *
 * Anything beyond plain YAML goes to the full parser: anchors, aliases, tags, directives,
 * several documents, a key that is not a string (`~:`, `1:`, `[a, b]:`), a duplicate key,
 * a tab or a lone carriage return anywhere, a plain or quoted scalar over several lines
 * (block scalars, `|` and `>`, are read here, but not with an indentation indicator such
 * as `|2`), a block map key that does not start its own line, a top level that is not a
 * map, and every syntax error (js-yaml's error texts are not ours, and may quote the
 * offending line, which could hold a secret). The carriage-return, multi-line,
 * indentation-indicator and key-line rules are there because the differential test found
 * the two parsers disagreeing on such texts; the tab rule is a precaution.
 */
import {
  COLLECTION_STYLE,
  EVENT_ID,
  type Event,
  getScalarValue,
  parseEvents,
  SCALAR_STYLE,
} from "js-yaml";

/** The YAML 1.2 core schema's tag resolution for plain scalars (YAML 1.2.2 §10.3.2). */
const CORE_NULL = /^(?:~|null|Null|NULL)?$/;
const CORE_BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_INT_OCT = /^0o[0-7]+$/;
const CORE_INT_HEX = /^0x[0-9a-fA-F]+$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const CORE_INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const CORE_NAN = /^\.(?:nan|NaN|NAN)$/;

/** Characters a plain scalar must start with to be anything but a string under the core schema. */
const MAYBE_NOT_STRING = /^[-+.0-9~nNtTfF]|^$/;

export const resolvePlainScalar = (s: string): string | number | boolean | null => {
  if (!MAYBE_NOT_STRING.test(s)) return s;
  if (CORE_NULL.test(s)) return null;
  if (CORE_BOOL.test(s)) return s[0] === "t" || s[0] === "T";
  if (CORE_INT.test(s)) return Number.parseInt(s, 10);
  if (CORE_INT_OCT.test(s)) return Number.parseInt(s.slice(2), 8);
  if (CORE_INT_HEX.test(s)) return Number.parseInt(s.slice(2), 16);
  if (CORE_FLOAT.test(s)) return Number.parseFloat(s);
  if (CORE_INF.test(s)) return s[0] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (CORE_NAN.test(s)) return Number.NaN;
  return s;
};

/** `|2`, `>1-`, `|+3`: a block scalar header that sets the indentation (YAML 1.2.2 §8.1.1.1). */
const INDENTATION_INDICATOR = /[|>](?:[1-9][-+]?|[-+][1-9])(?:\s|#|$)/;

const LONE_CR = /\r(?!\n)/;

/** Thrown inside the builder to leave for the full parser; never escapes this module. */
class NotPlainYaml extends Error {}

/** An anchor, a tag or an alias: left to the full parser. */
const decorated = (e: Event): boolean =>
  e.type === EVENT_ID.ALIAS || ("tagStart" in e && (e.anchorStart !== -1 || e.tagStart !== -1));

/**
 * The document's value, or `undefined` when the full parser must read it (see the module
 * comment for what that covers). Never throws.
 */
export const parseYamlFast = (text: string): Record<string, unknown> | undefined => {
  // A tab is legal in some places and not others, and the two parsers' rules for where
  // differ at the edges; tabs are rare in configs, so they take the full parser.
  if (text.includes("\t")) return undefined;
  // Likewise a carriage return that does not end a line (CRLF line ends are read here).
  if (LONE_CR.test(text)) return undefined;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return undefined;
  }
  const lineStart = (offset: number): number => text.lastIndexOf("\n", offset - 1) + 1;
  const spansLines = (start: number, end: number): boolean => {
    const nl = text.indexOf("\n", start);
    return nl !== -1 && nl < end;
  };
  let i = 0;
  const next = (): Event => {
    const e = events[i++];
    if (e === undefined) throw new NotPlainYaml();
    return e;
  };
  const scalarText = (e: Event): string => {
    if (e.type !== EVENT_ID.SCALAR) throw new NotPlainYaml();
    // A plain or quoted scalar that spans lines is folded by rules (escaped line breaks,
    // empty lines) where the two parsers differ at the edges: the full parser reads it.
    const blockScalar =
      e.style === SCALAR_STYLE.LITERAL_BLOCK || e.style === SCALAR_STYLE.FOLDED_BLOCK;
    if (!blockScalar && spansLines(e.valueStart, e.valueEnd)) throw new NotPlainYaml();
    // A block scalar with an explicit indentation indicator (`|2-`): the parsers keep
    // different trailing lines. Its header is the line before its content.
    if (blockScalar) {
      const headerEnd = text.lastIndexOf("\n", e.valueStart - 1);
      if (INDENTATION_INDICATOR.test(text.slice(lineStart(headerEnd), headerEnd)))
        throw new NotPlainYaml();
    }
    return getScalarValue(text, e);
  };
  const value = (): unknown => {
    const e = next();
    if (decorated(e)) throw new NotPlainYaml();
    switch (e.type) {
      case EVENT_ID.SCALAR: {
        const s = scalarText(e);
        return e.style === SCALAR_STYLE.PLAIN ? resolvePlainScalar(s) : s;
      }
      case EVENT_ID.SEQUENCE: {
        const out: unknown[] = [];
        while (events[i]?.type !== EVENT_ID.POP) out.push(value());
        i++;
        return out;
      }
      case EVENT_ID.MAPPING: {
        const out: Record<string, unknown> = {};
        const seen = new Set<string>();
        const block = e.style === COLLECTION_STYLE.BLOCK;
        const column = e.start - lineStart(e.start);
        while (events[i]?.type !== EVENT_ID.POP) {
          const k = next();
          if (decorated(k)) throw new NotPlainYaml();
          // A block map's later keys each start a line, at its first key's column (YAML
          // 1.2.2 §8.2.2). js-yaml also takes a key that follows a flow collection on the
          // same line, which `yaml` refuses: such a text is left to the full parser.
          if (block && seen.size > 0 && k.type === EVENT_ID.SCALAR) {
            const quoted =
              k.style === SCALAR_STYLE.SINGLE_QUOTED || k.style === SCALAR_STYLE.DOUBLE_QUOTED;
            const start = quoted ? k.valueStart - 1 : k.valueStart;
            const from = lineStart(start);
            if (start - from !== column || text.slice(from, start).trim() !== "")
              throw new NotPlainYaml();
          }
          const raw = scalarText(k);
          const key =
            k.type === EVENT_ID.SCALAR && k.style === SCALAR_STYLE.PLAIN
              ? resolvePlainScalar(raw)
              : raw;
          // A key that is not a string, or a duplicate: the full parser reports or converts it.
          if (typeof key !== "string" || seen.has(key)) throw new NotPlainYaml();
          seen.add(key);
          const v = value();
          // `__proto__` is an ordinary key, as `yaml` makes it, not the prototype setter.
          if (key === "__proto__")
            Object.defineProperty(out, key, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          else out[key] = v;
        }
        i++;
        return out;
      }
      default:
        throw new NotPlainYaml();
    }
  };
  try {
    const doc = next();
    if (doc.type !== EVENT_ID.DOCUMENT || doc.directives.length > 0) return undefined;
    const top = value();
    // One document, fully read: its closing event is the last one.
    if (events[i]?.type !== EVENT_ID.POP || i + 1 !== events.length) return undefined;
    if (typeof top !== "object" || top === null || Array.isArray(top)) return undefined;
    return top as Record<string, unknown>;
  } catch {
    // NotPlainYaml, or any other failure on odd input: the full parser reads it.
    return undefined;
  }
};
