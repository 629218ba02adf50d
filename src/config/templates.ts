/**
 * Issue 19: `templates` and `extends` (design.md §3 "Configuration at scale"), pure.
 *
 * A project or context lists template names under `extends`; the templates are merged in
 * order, then the item's own keys: maps merge key by key, lists and scalars replace, and
 * `null` removes an inherited key. Templates may live in any file of a folder config, so
 * they are collected from every parsed file first, then each file's items are expanded
 * before the schema, the rules and the builders see them.
 *
 * Decision: a template cannot itself `extends` (an item lists every template it needs), so
 * there are no chains and no cycles to resolve; two templates of one name (in one org's
 * files) are an error naming both places.
 */
import type { ConfigDiagnostic } from "./diagnostic.js";
import { closest } from "./suggest.js";
import { type DocPath, dottedPath, locate, type PositionIndex } from "./yaml-doc.js";

type Obj = Readonly<Record<string, unknown>>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The kinds of item that take templates: their key at the document's root. */
export const TEMPLATE_KINDS = ["projects", "contexts"] as const;
type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export interface Template {
  readonly name: string;
  /** The template's keys, without `final`. */
  readonly value: Obj;
  /** Issue 45: dotted paths an item that extends the template may not override. */
  readonly final?: readonly string[];
  readonly file: string;
  readonly positions: PositionIndex;
}

export type Templates = Readonly<Record<TemplateKind, ReadonlyMap<string, Template>>>;

export interface ParsedFile {
  readonly file: string;
  readonly value: unknown;
  readonly positions: PositionIndex;
}

const where = (file: string, positions: PositionIndex, path: DocPath): string => {
  const p = locate(positions, path, "key");
  return `${file}:${p.line}:${p.col}`;
};

/** Every file's templates, by kind and name. */
export const collectTemplates = (
  files: readonly ParsedFile[],
): { templates: Templates; diagnostics: ConfigDiagnostic[] } => {
  const diagnostics: ConfigDiagnostic[] = [];
  const out: Record<TemplateKind, Map<string, Template>> = {
    projects: new Map(),
    contexts: new Map(),
  };
  for (const { file, value, positions } of files) {
    const section = isObj(value) ? value.templates : undefined;
    if (!isObj(section)) continue;
    for (const kind of TEMPLATE_KINDS) {
      const named = section[kind];
      if (!isObj(named)) continue;
      for (const [name, body] of Object.entries(named)) {
        if (!isObj(body)) continue; // the schema reports it
        const path = ["templates", kind, name];
        const report = (code: ConfigDiagnostic["code"], message: string, at: DocPath = path) => {
          const p = locate(positions, at, "key");
          diagnostics.push({ file, ...p, path: dottedPath(at), code, message });
        };
        if (body.extends !== undefined) {
          report(
            "invalid_template",
            "a template cannot extend another template: list every template the item needs under its own extends",
            [...path, "extends"],
          );
          continue;
        }
        const first = out[kind].get(name);
        if (first !== undefined) {
          report(
            "invalid_template",
            `template "${name}" is defined twice: here and at ${where(first.file, first.positions, ["templates", kind, name])}; rename one`,
          );
          continue;
        }
        const { final, ...value } = body;
        const finals = Array.isArray(final) ? final.filter((f) => typeof f === "string") : [];
        finals.forEach((f: string, i: number) => {
          if (valueAt(value, f.split(".")) === undefined) {
            report(
              "invalid_template",
              `final names ${f}, which this template does not set; name a key it sets (a dotted path such as settings.is_oss)`,
              [...path, "final", i],
            );
          }
        });
        out[kind].set(name, {
          name,
          value,
          file,
          positions,
          ...(finals.length > 0 ? { final: finals } : {}),
        });
      }
    }
  }
  return { templates: out, diagnostics };
};

/**
 * `over` merged onto `base`: maps key by key, lists and scalars replaced, `null` removing
 * the key. Inputs are not modified.
 */
export const mergeTemplateValue = (base: unknown, over: unknown): unknown => {
  if (!isObj(base) || !isObj(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else out[k] = k in out ? mergeTemplateValue(out[k], v) : withoutNulls(v);
  }
  return out;
};

/** A value with its `null` map entries dropped (a key nothing inherits is simply absent). */
const withoutNulls = (v: unknown): unknown => {
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
  return out;
};

/** Where an inherited value came from: the template's file and the path inside it. */
export interface Origin {
  readonly template: string;
  readonly file: string;
  readonly positions: PositionIndex;
  readonly path: DocPath;
  /**
   * The map also holds keys the item writes itself: only the map itself is noted ("in
   * part"); a path below it is inherited only through an entry of its own.
   */
  readonly partial?: true;
}

/**
 * The file's items with their templates merged in, the inherited paths (dotted, relative
 * to the document) with their origin, and the problems found (unknown template names).
 * A file without `extends` is returned as it is.
 */
export const expandTemplates = (
  parsed: ParsedFile,
  templates: Templates,
): { value: unknown; origins: ReadonlyMap<string, Origin>; diagnostics: ConfigDiagnostic[] } => {
  const { file, value, positions } = parsed;
  const origins = new Map<string, Origin>();
  const diagnostics: ConfigDiagnostic[] = [];
  if (!isObj(value)) return { value, origins, diagnostics };
  let root: Record<string, unknown> | undefined;
  for (const kind of TEMPLATE_KINDS) {
    const items = value[kind];
    if (!isObj(items)) continue;
    let expanded: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(items)) {
      if (!isObj(item) || !Array.isArray(item.extends)) continue;
      const { extends: names, ...own } = item;
      let merged: unknown = {};
      const from = new Map<string, Template>();
      const listed: { t: Template; i: number }[] = [];
      names.forEach((name: unknown, i: number) => {
        if (typeof name !== "string") return; // the schema reports it
        const t = templates[kind].get(name);
        if (t === undefined) {
          const known = [...templates[kind].keys()];
          const guess = closest(name, known);
          const path = [kind, key, "extends", i];
          diagnostics.push({
            file,
            ...locate(positions, path, "value"),
            path: dottedPath(path),
            code: "unknown_template",
            message: `no ${kind === "projects" ? "project" : "context"} template "${name}"${
              guess
                ? `; did you mean "${guess}"?`
                : known.length > 0
                  ? ` (templates: ${known.sort().join(", ")})`
                  : " (there are none: define it under templates)"
            }`,
          });
          return;
        }
        merged = mergeTemplateValue(merged, t.value);
        for (const leaf of leaves(t.value, [])) from.set(JSON.stringify(leaf), t);
        // A template listed later wins the merge: it overrides a final key as the item would.
        for (const earlier of listed) {
          const blame: Blame = { kind: "template", later: t, at: [kind, key, "extends", i] };
          for (const d of finalOverrides(earlier.t, t.value, blame, file, positions)) {
            diagnostics.push(d);
          }
        }
        listed.push({ t, i });
        const blame: Blame = { kind: "item", at: [kind, key] };
        for (const d of finalOverrides(t, own, blame, file, positions)) diagnostics.push(d);
      });
      // The item's own keys win; what they do not set is inherited. An own empty map
      // (`env: {}`) sets no key: the merge keeps the template's keys under it.
      const ownAll = leaves(own, []);
      const ownLeaves = new Set(
        ownAll.filter((l) => !isEmptyMapAt(own, l)).map((l) => JSON.stringify(l)),
      );
      // Every map that holds a key the item writes itself (`env` when it writes env.X).
      const ownPrefixes = new Set<string>();
      for (const l of ownAll) {
        for (let n = 1; n <= l.length; n++) ownPrefixes.add(JSON.stringify(l.slice(0, n)));
      }
      for (const [leafKey, t] of from) {
        const leaf = JSON.parse(leafKey) as string[];
        if (isOwned(ownLeaves, leaf)) continue;
        // The leaf and every map above it inside the item. Issue 28: a map that also holds
        // keys the item writes itself is inherited only in part (`partial`): its own keys are
        // never blamed on the template (an env var the item adds next to inherited ones),
        // and the map itself says "in part" (the item's plan "why").
        for (let n = leaf.length; n > 0; n--) {
          const at = dottedPath([kind, key, ...leaf.slice(0, n)]);
          if (n < leaf.length && origins.has(at)) break;
          origins.set(at, {
            template: t.name,
            file: t.file,
            positions: t.positions,
            path: ["templates", kind, t.name, ...leaf.slice(0, n)],
            ...(ownPrefixes.has(JSON.stringify(leaf.slice(0, n))) ? { partial: true } : {}),
          });
        }
      }
      expanded ??= { ...items };
      expanded[key] = mergeTemplateValue(merged, own);
    }
    if (expanded !== undefined) {
      root ??= { ...value };
      root[kind] = expanded;
    }
  }
  return { value: root ?? value, origins, diagnostics };
};

/** The value at a path of map keys; undefined when a step is missing or not a map. */
const valueAt = (v: unknown, parts: readonly string[]): unknown => {
  let cur = v;
  for (const k of parts) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
};

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Who overrides a final key: the item's own keys, or a template the item lists later. */
type Blame =
  | { readonly kind: "item"; readonly at: DocPath }
  | { readonly kind: "template"; readonly later: Template; readonly at: DocPath };

/**
 * Issue 45: the keys of `over` (the item's own keys, or a template listed after `t` in
 * the item's `extends`, which wins the merge the same way) that override a key `t` marks
 * `final`: a different value at the path, `null`, or a value that replaces a map above it
 * (a list or a scalar). Repeating the template's value does not override it. Reported at
 * the item's key (or its `extends` entry), naming the template's line.
 */
const finalOverrides = (
  t: Template,
  over: Obj,
  blame: Blame,
  file: string,
  positions: PositionIndex,
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  const kind = blame.at[0] as TemplateKind;
  for (const f of t.final ?? []) {
    const parts = f.split(".");
    let cur: unknown = over;
    for (let n = 0; n < parts.length; n++) {
      if (!isObj(cur)) break;
      const next = cur[parts[n] as string];
      if (next === undefined) break;
      const last = n === parts.length - 1;
      const overrides =
        next === null || (last ? !sameValue(next, valueAt(t.value, parts)) : !isObj(next));
      if (overrides) {
        const finalAt = where(t.file, t.positions, ["templates", kind, t.name, ...parts]);
        const path = blame.kind === "item" ? [...blame.at, ...parts.slice(0, n + 1)] : blame.at;
        out.push({
          file,
          ...locate(positions, path, blame.kind === "item" ? "key" : "value"),
          path: dottedPath(path),
          code: "final_key_overridden",
          message:
            blame.kind === "item"
              ? `overrides ${f}, which template "${t.name}" marks final at ${finalAt}; remove the override (or change the template)`
              : `template "${blame.later.name}", listed after "${t.name}", overrides ${f}, which template "${t.name}" marks final at ${finalAt}; drop ${f} from template "${blame.later.name}" or do not extend both`,
        });
        break;
      }
      cur = next;
    }
  }
  return out;
};

/** The paths of a value's leaves (a list is a leaf: lists replace, never merge). */
const leaves = (v: unknown, at: string[]): string[][] => {
  if (!isObj(v) || Object.keys(v).length === 0) return [at];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, [...at, k]));
};

/** Whether the value at `path` inside `v` is an empty map. */
const isEmptyMapAt = (v: unknown, path: readonly string[]): boolean => {
  let cur = v;
  for (const k of path) cur = isObj(cur) ? cur[k] : undefined;
  return isObj(cur) && Object.keys(cur).length === 0;
};

/** Whether the item's own keys set this leaf or one of its ancestors. */
const isOwned = (own: ReadonlySet<string>, leaf: readonly string[]): boolean => {
  for (let n = leaf.length; n > 0; n--) if (own.has(JSON.stringify(leaf.slice(0, n)))) return true;
  return false;
};

/**
 * A diagnostic about an inherited value names the template's place too (issue 19): "…
 * (inherited from template "service" at templates.yaml:4:7)".
 */
export const withOrigin = (
  d: ConfigDiagnostic,
  origins: ReadonlyMap<string, Origin>,
): ConfigDiagnostic => {
  const via = inheritedFrom(origins, d.path);
  return via === undefined ? d : { ...d, message: `${d.message} (inherited from ${via})` };
};

/**
 * The origin that makes the value at the dotted path inherited, and how many of its parts
 * it covers: its own entry (whole, or in part), or the nearest map above it inherited
 * whole. A map above it inherited only in part does not make it inherited (issue 28: an
 * env var the item adds beside inherited ones is its own).
 */
const originOf = (
  origins: ReadonlyMap<string, Origin>,
  parts: readonly string[],
): { origin: Origin; n: number } | undefined => {
  for (let n = parts.length; n > 0; n--) {
    const o = origins.get(parts.slice(0, n).join("."));
    if (o === undefined) continue;
    if (o.partial === true && n < parts.length) return undefined;
    return { origin: o, n };
  }
  return undefined;
};

/** Whether the value at the dotted path, or a map above it, is inherited (cheap: no lookup). */
export const hasOrigin = (origins: ReadonlyMap<string, Origin>, dotted: string): boolean =>
  origins.size > 0 && originOf(origins, dotted.split(".")) !== undefined;

/**
 * `template "service" at templates.yaml:7:9` when the value at the dotted path (or the
 * nearest map above it) is inherited from a template, else undefined.
 */
export const inheritedFrom = (
  origins: ReadonlyMap<string, Origin>,
  dotted: string,
): string | undefined => {
  if (origins.size === 0) return undefined;
  const parts = dotted.split(".");
  const found = originOf(origins, parts);
  if (found === undefined) return undefined;
  const { origin: o, n } = found;
  return `template "${o.template}" at ${where(o.file, o.positions, [...o.path, ...parts.slice(n)])}${o.partial === true ? ", in part" : ""}`;
};
