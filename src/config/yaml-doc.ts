/**
 * YAML text → plain value plus the source position of every key and value (pure).
 *
 * One parser, the `yaml` package (issue 16), for values, diagnostics and positions alike.
 * It keeps the source range of every node; we index them by document path so that schema
 * and rule errors, which speak in paths, can point at a line and column. That index is
 * built on its first look-up, from the parsed document kept for it: only diagnostics look
 * positions up, so a valid config never pays for the walk (bench/README.md, "Config
 * loading").
 */
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { ConfigDiagnostic, DiagnosticCode } from "./diagnostic.js";
import { type AliasLimits, DEFAULT_ALIAS_LIMITS, expandAliases } from "./yaml-aliases.js";
import { readPlainYaml } from "./yaml-plain.js";

/**
 * `yaml` ships CommonJS; it is required when a file is parsed rather than imported, so a
 * command that reads no config (`--version`, `force-unlock`) does not load it. (Written
 * `createRequire(import.meta.url)(…)` for scripts/release.js's single-file bundle.)
 */
const loadYaml = (): typeof Yaml => createRequire(import.meta.url)("yaml") as typeof Yaml;

export type PathSegment = string | number;
export type DocPath = readonly PathSegment[];

export interface Pos {
  readonly line: number;
  readonly col: number;
}

/** Where a value sits, and where its key sits when it is a map entry. */
export interface NodePositions {
  readonly key?: Pos;
  readonly value: Pos;
}

/** Positions by `pathKey`; a `Map`, or a lazy index that parses on its first look-up. */
export interface PositionIndex {
  get(key: string): NodePositions | undefined;
}

/** Characters JSON.stringify escapes in a string (and lone surrogates, which it escapes too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export const pathKey = (path: DocPath): string => {
  // JSON.stringify(path.map(String)), without the copy and the serializer for the usual
  // path of plain names (the loader makes one for each secret value, twice).
  if (path.length === 0) return "[]";
  let key = "[";
  for (let i = 0; i < path.length; i++) {
    const segment = String(path[i]);
    if (NEEDS_ESCAPE.test(segment)) return JSON.stringify(path.map(String));
    key += i === 0 ? `"${segment}"` : `,"${segment}"`;
  }
  return `${key}]`;
};

/** The dotted path users see: `contexts.deploy-prod.env.KEY`, `ignore.2`. */
export const dottedPath = (path: DocPath): string => path.map(String).join(".");

const START: Pos = { line: 1, col: 1 };

/**
 * Position of the node at `path` (its key when `at` is "key" and it has one). A path that
 * is not in the index (a value reached through an alias, a missing key) falls back to its
 * nearest indexed ancestor.
 */
export const locate = (index: PositionIndex, path: DocPath, at: "key" | "value" = "value"): Pos => {
  for (let n = path.length; n >= 0; n--) {
    const hit = index.get(pathKey(path.slice(0, n)));
    if (hit) return (at === "key" || n < path.length ? hit.key : undefined) ?? hit.value;
  }
  return START;
};

export type ParsedYaml =
  | { readonly ok: true; readonly value: unknown; readonly positions: PositionIndex }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

export interface ParseYamlOptions {
  /** Bounds on aliases ("billion laughs"): how many, and how many nodes they add. */
  readonly aliasLimits?: AliasLimits;
}

// Decision: yaml's own error texts are kept (they are precise) but rephrased for the
// common cases; prettyErrors is off so no source excerpt (which could hold a literal
// secret) ever lands in a message.
const yamlMessage = (code: string, message: string): { code: DiagnosticCode; message: string } => {
  switch (code) {
    case "MULTIPLE_DOCS":
      return {
        code: "multiple_documents",
        message:
          "a file holds one YAML document; remove the extra `---` or move it to its own file",
      };
    case "DUPLICATE_KEY":
      return { code: "duplicate_key", message: "duplicate key" };
    case "TAB_AS_INDENT":
      return { code: "yaml_syntax", message: "YAML syntax error: tabs cannot indent; use spaces" };
    default:
      if (/call stack/i.test(message)) {
        // The parser ran out of stack on a deeply nested document: refused, not crashed.
        return {
          code: "yaml_syntax",
          message: "the document nests too deeply to parse; flatten it",
        };
      }
      // Some parser messages quote the offending token (`... in YAML stream: "abc"`); that
      // token may be a literal secret value, so it is dropped.
      return {
        code: "yaml_syntax",
        message: `YAML syntax error: ${message.replace(/:\s*".*"\s*$/s, "")}`,
      };
  }
};

/**
 * Run `parse` with `process.env` replaced by a plain copy of itself, restored after.
 *
 * Why: yaml's parser reads `process.env.LOG_TOKENS` once per token (yaml 2.9
 * dist/parse/parser.js, a debug switch) and its composer `LOG_STREAM` once per document.
 * `process.env` is not a plain object: every read is a call into the C++ environment
 * (getenv). On the 40,000-item config (bench/README.md, large-org) those reads were ~15 %
 * of the parse (~250 ms of 1.6 s). `parse` is synchronous, so nothing else can observe the
 * swap, and the copy holds the same values, so yaml's switches behave as before.
 */
const withPlainEnv = <T>(parse: () => T): T => {
  const env = process.env;
  process.env = { ...env };
  try {
    return parse();
  } finally {
    process.env = env;
  }
};

/** Whether a map anywhere in the document has a key that is not a scalar, or a duplicate key. */
const hasKeyProblem = (yaml: typeof Yaml, node: unknown): boolean => {
  if (yaml.isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      if (!yaml.isScalar(pair.key)) return true;
      const name = String(pair.key.value);
      if (seen.has(name)) return true;
      seen.add(name);
      if (hasKeyProblem(yaml, pair.value)) return true;
    }
  } else if (yaml.isSeq(node)) {
    for (const item of node.items) if (hasKeyProblem(yaml, item)) return true;
  }
  return false;
};

/** The document of one file, and offsets → line:col from the line starts its parse recorded. */
const composeDocument = (
  yaml: typeof Yaml,
  text: string,
): { doc: Yaml.Document.Parsed; pos: (offset: number) => Pos } => {
  // The parser records where each line starts as it goes (one number per line); offsets
  // become line:col only when a diagnostic or a look-up asks.
  const lineCounter = new yaml.LineCounter();
  const doc = withPlainEnv(() =>
    yaml.parseDocument(text, {
      lineCounter,
      prettyErrors: false,
      // Duplicates are reported by the walk below, naming both places; yaml's own check
      // compares each key with every earlier key of its map (quadratic in a 1 MB map).
      uniqueKeys: false,
      // The concrete syntax tree is dropped once the document is composed: only the nodes'
      // ranges are kept, which is all the positions need.
      keepSourceTokens: false,
      // Issue 7 (fuzz): yaml's warnings go to process.emitWarning, which prints a Node
      // "(node:PID) Warning" on stderr (a collection as a map key); they are reported below
      // as diagnostics already.
      logLevel: "error",
      // Issue 19: YAML merge keys (`<<: *common`), for reuse inside one file; their aliases
      // are bounded like any other (src/config/yaml-aliases.ts). Keys written beside a merge
      // key win over the merged ones (yaml.org/type/merge.html).
      merge: true,
    }),
  );
  const pos = (offset: number): Pos => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, col: p.col };
  };
  return { doc, pos };
};

const startAt = (node: unknown, pos: (offset: number) => Pos): Pos | undefined => {
  const range = (node as { range?: readonly number[] } | null)?.range;
  return range?.[0] === undefined ? undefined : pos(range[0]);
};

// `key` is pathKey(path), built one segment at a time: JSON.stringify of the whole path at
// every node was a quarter of the time to load a 1 MB config (issue 7: under one second).
const childKey = (key: string, depth: number, segment: PathSegment): string =>
  `${key.slice(0, -1)}${depth > 0 ? "," : ""}${JSON.stringify(String(segment))}]`;

/**
 * Index every node's position by path, from the document as written (aliases not
 * followed: a path through an alias points at the alias). `report` receives the key
 * problems; the index skips the entries they concern.
 */
const indexDocument = (
  yaml: typeof Yaml,
  file: string,
  contents: unknown,
  pos: (offset: number) => Pos,
  report?: (d: ConfigDiagnostic) => void,
): Map<string, NodePositions> => {
  const { isAlias, isMap, isScalar, isSeq } = yaml;
  const startOf = (node: unknown): Pos | undefined => startAt(node, pos);
  const index = new Map<string, NodePositions>();
  const walk = (node: unknown, path: DocPath, keyPos: Pos | undefined, key: string): void => {
    // An empty value (`key:` and nothing) has a zero-length range after the colon; point
    // at the key instead, which is where the user looks.
    const range = (node as { range?: readonly number[] } | null)?.range;
    const empty = range !== undefined && range[0] === range[1];
    const valuePos = (empty ? keyPos : undefined) ?? startOf(node) ?? keyPos ?? START;
    index.set(key, keyPos ? { key: keyPos, value: valuePos } : { value: valuePos });
    if (isAlias(node)) return; // not followed: the alias's target is indexed where it is written
    if (isMap(node)) {
      const seen = new Map<string, Pos>();
      for (const pair of node.items) {
        const kPos = startOf(pair.key) ?? valuePos;
        if (!isScalar(pair.key)) {
          report?.({
            file,
            ...kPos,
            path: dottedPath(path),
            code: "yaml_syntax",
            message: "map keys must be plain strings",
          });
          continue;
        }
        const name = String(pair.key.value);
        const first = seen.get(name);
        if (first) {
          report?.({
            file,
            ...kPos,
            path: dottedPath([...path, name]),
            code: "duplicate_key",
            message: `duplicate key "${name}"; it is already defined at line ${first.line}:${first.col}`,
          });
          continue;
        }
        seen.set(name, kPos);
        walk(pair.value, [...path, name], kPos, childKey(key, path.length, name));
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        walk(item, [...path, i], undefined, childKey(key, path.length, i));
      });
    }
  };
  walk(contents, [], undefined, pathKey([]));
  return index;
};

/**
 * The position index of a file that parsed cleanly, from its text again (parseYaml keeps
 * the text, not the document; see there). The same text gives the same document.
 */
const reparsedPositions = (file: string, text: string): Map<string, NodePositions> => {
  const yaml = loadYaml();
  const { doc, pos } = composeDocument(yaml, text);
  return indexDocument(yaml, file, doc.contents, pos);
};

/**
 * Positions indexed on the first look-up, from a parse of the text again.
 *
 * Issue 33 (memory): the composed document is not kept for the positions. It holds a node
 * object, with its range, for every key and value of the file (for the 40,000-item config
 * of bench/README.md, ~100 MB, kept for the whole run). A valid config never looks a
 * position up, so the first look-up parses the text again (the same options; the aliases as
 * written, so a path through an alias points at the alias, not at its anchor) and indexes
 * it; only a diagnostic pays for that. Module-level on purpose: a closure made inside
 * parseYaml would share its scope, and V8 keeps a scope's variables (the document) alive for
 * as long as any closure of it lives.
 */
export const positionsOf = (file: string, text: string): PositionIndex => {
  let index: Map<string, NodePositions> | undefined;
  return {
    get(key) {
      index ??= reparsedPositions(file, text);
      return index.get(key);
    },
  };
};

/**
 * Parse one file: its value and a lazy position index, or its diagnostics. Never throws for
 * bad YAML.
 *
 * A file in the plain subset of YAML (nearly every config) is read by yaml-plain.ts, about
 * twenty times faster; any other file, and every file with a problem, is parsed by `yaml`
 * (`parseYamlDocument`), which reports it. The positions come from `yaml` either way, on
 * the first look-up.
 */
export const parseYaml = (file: string, text: string, options: ParseYamlOptions = {}): ParsedYaml =>
  readPlainFile(file, text) ?? parseYamlDocument(file, text, options);

/**
 * A file in the plain subset of YAML, read by yaml-plain.ts: its value and a lazy position
 * index (from `yaml`, on the first look-up); `undefined` when the subset declines the file.
 */
export const readPlainFile = (file: string, text: string): ParsedYaml | undefined => {
  const value = readPlainYaml(text);
  return value === undefined ? undefined : { ok: true, value, positions: positionsOf(file, text) };
};

/**
 * Parse one file with `yaml`: its value and a lazy position index, or its diagnostics.
 * Never throws for bad YAML.
 *
 * What is done for every file is what yaml must do anyway (lex, parse, compose, toJS) plus
 * one cheap pass over the keys (duplicates, collection keys) and, when the text has an
 * anchor, the alias check. The walk that indexes positions by path (the work of every
 * diagnostic's file:line:col) runs on the first look-up, or at once when a key problem
 * must be reported.
 */
export const parseYamlDocument = (
  file: string,
  text: string,
  options: ParseYamlOptions = {},
): ParsedYaml => {
  const yaml = loadYaml();
  const { isAlias, isMap, isPair, isScalar, isSeq, visit } = yaml;
  const { doc, pos } = composeDocument(yaml, text);
  // Decision: only the first YAML error of a file is reported; the parser's later errors
  // are nearly always consequences of the first (one bad line yields dozens).
  const first = doc.errors[0] ?? doc.warnings[0];
  if (first) {
    const { code, message } = yamlMessage(first.code, first.message);
    // Where the parser ran out of stack depends on the stack size, so that error is put at
    // the top of the file to stay the same on every machine.
    const at = /call stack/i.test(first.message) ? START : pos(first.pos[0]);
    const line = text.split("\n")[at.line - 1] ?? "";
    // A flow collection ({ … } / [ … ]) cannot hold a plain value starting with `${`.
    const hint =
      code === "yaml_syntax" && /[{[,:]\s*\$\{/.test(line)
        ? `; a value that starts with \${ inside { … } or [ … ] must be quoted, e.g. "\${env:NAME}"`
        : "";
    return { ok: false, diagnostics: [{ file, ...at, path: "", code, message: message + hint }] };
  }
  if (doc.contents === null) {
    return {
      ok: false,
      diagnostics: [
        {
          file,
          ...START,
          path: "",
          code: "empty_file",
          message: "the file is empty; it needs at least `org: <slug>`",
        },
      ],
    };
  }
  const contents = doc.contents;

  const startOf = (node: unknown): Pos | undefined => startAt(node, pos);
  const indexPositions = (report?: (d: ConfigDiagnostic) => void) =>
    indexDocument(yaml, file, contents, pos, report);

  const diagnostics: ConfigDiagnostic[] = [];
  if (hasKeyProblem(yaml, contents)) indexPositions((d) => diagnostics.push(d));

  // Issue 7 (fuzz): an alias inside the node it names (`&a [*a]`) makes toJS build a cyclic
  // value, and every later walk over it overflows the stack; issue 21: an alias bomb far
  // under the size limit hung. One linear pass refuses both, where the alias is, and
  // expands the aliases of a document that passes (src/config/yaml-aliases.ts).
  // Without an anchor (`&`) there is no alias to check: skip the walk (a 1 MB file).
  const limits = options.aliasLimits ?? DEFAULT_ALIAS_LIMITS;
  const aliases = text.includes("&")
    ? expandAliases({ isAlias, isMap, isPair, isScalar, isSeq }, doc, limits)
    : undefined;
  if (aliases !== undefined && !aliases.ok) {
    const at = aliases.offset === undefined ? START : pos(aliases.offset);
    const message =
      aliases.problem === "recursive"
        ? "an alias refers to a node that contains it (a recursive alias); write the values out instead"
        : aliases.problem === "too_many"
          ? `too many aliases (more than ${limits.count}); write the values out instead`
          : `too many alias expansions (more than ${limits.nodes} nodes added); this looks like a "billion laughs" file, write the values out instead`;
    diagnostics.push({ file, ...at, path: "", code: "alias_limit", message });
    return { ok: false, diagnostics };
  }

  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    if (err instanceof Error && /^Merge sources must be/.test(err.message)) {
      // `<<: 5` or `<<: [a, b]`: a merge key takes a map, or a list of maps (or aliases).
      let mergeAt: Pos = START;
      visit(doc, {
        Pair(_, pair) {
          const k = isScalar(pair.key) ? pair.key.value : undefined;
          // yaml gives a merge key's value as the string or as Symbol("<<").
          if (k === "<<" || (typeof k === "symbol" && k.description === "<<")) {
            mergeAt = startOf(pair.key) ?? START;
            return visit.BREAK;
          }
          return undefined;
        },
      });
      return {
        ok: false,
        diagnostics: [
          {
            file,
            ...mergeAt,
            path: "",
            code: "yaml_syntax",
            message:
              "a merge key (<<) takes a map or an alias of one (<<: *common), or a list of them (<<: [*a, *b])",
          },
        ],
      };
    }
    if (!(err instanceof ReferenceError)) throw err;
    let aliasAt: Pos = START;
    visit(doc, {
      Alias(_, node) {
        aliasAt = startOf(node) ?? START;
        return visit.BREAK;
      },
    });
    diagnostics.push({
      file,
      ...aliasAt,
      path: "",
      code: "alias_limit",
      message: `an alias cannot be resolved (${err.message}); write the values out instead`,
    });
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  // Issue 33 (memory): the composed document is not kept for the positions (see
  // `positionsOf`).
  return { ok: true, value, positions: positionsOf(file, text) };
};
