/**
 * The pure core of `waybill pull` (issue 32, design.md §4 "Drift back into Git"): a plan
 * (what differs), the live state as config (export's machinery, src/export/build.ts) and
 * the config files' texts → the files rewritten so that the next plan is empty for the
 * chosen addresses. Each value is written at its source position by a splice of the text
 * (src/pull/yaml-edit.ts), so everything else stays byte for byte.
 *
 * A plan's change, read backwards:
 * - `update` / `replace`: the live value of each changed field is written at the field's
 *   place in the item (a field inherited from a template becomes an override on the item,
 *   or with `intoTemplate` is written in the template that gives it);
 * - `delete` (live, not in the config): the live item is added under its parent, in the
 *   file that declares the parent (or `into`), as export writes it;
 * - `create` (in the config, not live): removed from the config only with `prune`.
 * Secrets are never written: an added secret is a `${env:NAME}` placeholder, listed in
 * `envVars`; a secret that differs cannot be read back and is listed in `skipped`.
 */
import { isDeepStrictEqual } from "node:util";
import { isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";
import type { ExportResult } from "../export/build.js";
import type { EnvVarNeed } from "../export/env-names.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { parseAddress } from "../model/address.js";
import { hasMaskedRendering, maskedRenderingIn } from "../model/url-mask.js";
import type { Change, Plan } from "../plan/types.js";
import { type JsonSchema, parsedValue as loaderValue, orderValue, schemaCursor } from "./fmt.js";
import {
  appendIn,
  deleteIn,
  type EditPath,
  hasPath,
  setIn,
  unaliasPath,
  valueAt,
  YamlEditError,
} from "./yaml-edit.js";

export interface ConfigText {
  readonly path: string;
  readonly text: string;
}

export interface PullOptions {
  readonly files: readonly ConfigText[];
  readonly plan: Plan;
  /** Export of each planned org's live state, by org slug. */
  readonly exports: ReadonlyMap<string, ExportResult>;
  /** Which changed addresses to pull (default: all). */
  readonly select?: (address: string) => boolean;
  readonly prune?: boolean;
  /** Where an item whose parent no file declares (or every added item) goes. */
  readonly into?: string;
  readonly intoTemplate?: boolean;
  readonly schema: JsonSchema;
}

export interface PulledFile {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

export interface PullResult {
  /** Only files whose text changed, in the order of `files` (a new `into` file last). */
  readonly files: readonly PulledFile[];
  /** Secrets the written config reads, to set before the next plan. */
  readonly envVars: readonly EnvVarNeed[];
  /** Addresses written back. */
  readonly pulled: readonly string[];
  /** Drift left as it is, and why (a secret, a removal without prune, …). */
  readonly skipped: readonly { readonly address: string; readonly why: string }[];
  /** What else the user should know (a template changed for other items too). */
  readonly notes: readonly string[];
}

/** An address step → its YAML key and shape, from the kinds (and projects). */
const STEPS: ReadonlyMap<string, { yamlKey: string; shape: "map" | "list" | "singleton" }> =
  new Map(
    ALL_KINDS.map((k) => [
      k.collection.segment.name,
      { yamlKey: k.config.yamlKey, shape: k.config.shape },
    ]),
  );

/** A list item's address key, from its config document (restrictions, exporters, keys). */
const listItemKey = (step: string, doc: unknown): string | undefined => {
  if (typeof doc === "string") return doc;
  if (typeof doc !== "object" || doc === null) return undefined;
  const o = doc as Record<string, unknown>;
  if (step === "otel_exporter") return `${String(o.protocol)}:${String(o.endpoint)}`;
  const entries = Object.entries(o).filter(([k]) => k !== "id");
  const first = entries[0];
  return first && typeof first[1] === "string" ? `${first[0]}:${first[1]}` : undefined;
};

/** One step of a YAML path: a map key, or a list item found by its address key. */
type Step = string | { readonly list: string; readonly key: string };

const yamlSteps = (address: string): Step[] | undefined => {
  const segments = parseAddress(address);
  if (!segments) return undefined;
  const out: Step[] = [];
  for (const s of segments) {
    const info = STEPS.get(s.name);
    if (!info) return undefined;
    out.push(info.yamlKey);
    if (s.key === undefined) continue;
    if (info.shape === "list") out.push({ list: s.name, key: s.key });
    else out.push(s.key);
  }
  return out;
};

/** Resolve steps to a concrete path in a value (list items by their key). */
const resolveIn = (value: unknown, steps: readonly Step[]): EditPath | undefined => {
  const path: (string | number)[] = [];
  let cur = value;
  for (const step of steps) {
    if (typeof step === "string") {
      if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[step];
      if (cur === undefined) return undefined;
      path.push(step);
      continue;
    }
    if (!Array.isArray(cur)) return undefined;
    const i = cur.findIndex((x) => listItemKey(step.list, x) === step.key);
    if (i < 0) return undefined;
    path.push(i);
    cur = cur[i];
  }
  return path;
};

const get = (value: unknown, path: EditPath): unknown => {
  let cur = value;
  for (const step of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
};

/**
 * The export document holding an org's or a project's items, merged. Export keys a project
 * by its slug; the config may key it by name (an org of an app-based provider, README): each
 * key the plan's addresses use for a project (`aliases`: address key → slug) finds it too.
 * Issue 41: without it, a project keyed by name had no live document, and pull wrote the
 * plan's masked value (`https://hooks.slack.com/…(e0f4)`) and skipped an added env var.
 */
const exportBody = (result: ExportResult, aliases: ReadonlyMap<string, string>): unknown => {
  const projects: Record<string, unknown> = {};
  for (const p of result.projects) {
    Object.assign(projects, (p.body as { projects?: Record<string, unknown> }).projects ?? {});
  }
  for (const [key, slug] of aliases) {
    if (projects[key] === undefined && projects[slug] !== undefined) projects[key] = projects[slug];
  }
  return { ...result.org.body, projects };
};

/** A project's address key → its slug, from the plan's changes (their `project_slug` param). */
const projectAliases = (plan: Plan): Map<string, string> => {
  const out = new Map<string, string>();
  for (const c of plan.changes) {
    const first = parseAddress(c.address)?.[0];
    const slug = c.params.project_slug;
    if (first?.name === "project" && first.key !== undefined && typeof slug === "string") {
      if (first.key !== slug) out.set(first.key, slug);
    }
  }
  return out;
};

const PLACEHOLDER = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Every `${env:NAME}` name a text uses (comments too: a name there is still taken). */
const placeholdersIn = (text: string): string[] =>
  [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string);

/** `value` with every string mapped by `fn` (keys kept). */
const mapStrings = (value: unknown, fn: (s: string) => string): unknown => {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  }
  return value;
};

/** Whether any string of `value` is a masked rendering. */
const holdsMasked = (value: unknown): boolean => {
  let found = false;
  mapStrings(value, (s) => {
    if (hasMaskedRendering(s)) found = true;
    return s;
  });
  return found;
};

interface Files {
  readonly order: string[];
  readonly texts: Map<string, string>;
  readonly org: Map<string, string | undefined>;
}

const orgOf = (text: string): string | undefined => {
  try {
    const v = valueAt(text, ["org"]);
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Decision: a list of names (webhook `events`, `pr_only_branch_overrides`: lists the
 * service keeps unordered, design.md §1 "Plans") keeps the config's order for the names it
 * still has, and the new ones follow in the service's order: the diff is what changed.
 */
const keepOrder = (current: unknown, next: unknown): unknown => {
  if (!Array.isArray(current) || !Array.isArray(next)) return next;
  const scalar = (v: unknown) => v === null || typeof v !== "object";
  if (!current.every(scalar) || !next.every(scalar) || new Set(next).size !== next.length) {
    return next;
  }
  return [...current.filter((v) => next.includes(v)), ...next.filter((v) => !current.includes(v))];
};

export const computePull = (options: PullOptions): PullResult => {
  const files: Files = { order: [], texts: new Map(), org: new Map() };
  for (const f of options.files) {
    files.order.push(f.path);
    files.texts.set(f.path, f.text);
    files.org.set(f.path, orgOf(f.text));
  }
  const select = options.select ?? (() => true);
  const envVars: EnvVarNeed[] = [];
  const pulled: string[] = [];
  const skipped: { address: string; why: string }[] = [];
  const notes: string[] = [];
  const cursor = schemaCursor(options.schema);
  const aliases = projectAliases(options.plan);
  /**
   * Issue 41 "A placeholder is a binding": a `${env:NAME}` the config already uses binds
   * NAME to that item's value. Export names placeholders uniquely within one export only, so
   * a context `Deploy` made by hand got `CTX_DEPLOY_AWS`, the name the config gives
   * `deploy`'s production secret, and the next apply copied that secret into it. A name the
   * config uses anywhere (or this pull gave already) is never given to a new value: it gets
   * `_2`, `_3`, ….
   */
  /** An export address (projects by slug) in the config's words (a project by its key). */
  const inConfigWords = (address: string): string => {
    for (const [key, slug] of aliases) {
      const prefix = `project[${JSON.stringify(slug)}]`;
      if (address.startsWith(prefix))
        return `project[${JSON.stringify(key)}]${address.slice(prefix.length)}`;
    }
    return address;
  };
  const taken = new Set<string>(options.files.flatMap((f) => placeholdersIn(f.text)));
  const renamed = new Map<string, string>();
  const bind = (value: unknown): unknown =>
    mapStrings(value, (s) =>
      s.replace(PLACEHOLDER, (_, name: string) => {
        let final = renamed.get(name);
        if (final === undefined) {
          final = name;
          for (let n = 2; taken.has(final); n++) final = `${name}_${n}`;
          taken.add(final);
          renamed.set(name, final);
        }
        return `\${env:${final}}`;
      }),
    );

  const filesOf = (org: string): string[] => files.order.filter((p) => files.org.get(p) === org);
  const parsedValue = (path: string): unknown => valueAt(files.texts.get(path) ?? "", []);
  /** The first file of the org where `steps` resolve, with the concrete path. */
  const findDeclared = (
    org: string,
    steps: readonly Step[],
  ): { file: string; path: EditPath } | undefined => {
    for (const f of filesOf(org)) {
      const path = resolveIn(parsedValue(f), steps);
      if (path) return { file: f, path };
    }
    return undefined;
  };
  /** Per file, the paths the current change writes (the shared-value guard's allowance). */
  const written = new Map<string, EditPath[]>();
  const edit = (file: string, path: EditPath, fn: (text: string) => string): void => {
    written.set(file, [...(written.get(file) ?? []), path]);
    // Issue 41: an alias on the way (`restrictions: *a1`) is written out first: the edit
    // then changes this item only, never the anchor its other users read.
    files.texts.set(file, fn(unaliasPath(files.texts.get(file) ?? "", path)));
  };
  const schemaAt = (path: EditPath) => path.reduce((c, s) => c.child(s), cursor);

  for (const change of options.plan.changes) {
    if (!select(change.address)) continue;
    const exported = options.exports.get(change.org);
    const steps = yamlSteps(change.address);
    if (!exported || !steps || steps.length === 0) {
      skipped.push({ address: change.address, why: "Waybill cannot place this item in a file" });
      continue;
    }
    const live = exportBody(exported, aliases);
    // Issue 41: one change that cannot be written (a hostile live value) is skipped with its
    // reason, and the rest of the pull goes on: its edits are undone when a file it touched
    // would no longer parse.
    const textsBefore = new Map(files.texts);
    written.clear();
    const pulledBefore = pulled.length;
    const envBefore = envVars.length;
    const undo = (why: string): void => {
      for (const [path, text] of textsBefore) files.texts.set(path, text);
      for (const path of [...files.texts.keys()]) {
        if (!textsBefore.has(path)) {
          files.texts.delete(path);
          files.order.splice(files.order.indexOf(path), 1);
          files.org.delete(path);
        }
      }
      pulled.length = pulledBefore;
      envVars.length = envBefore;
      skipped.push({ address: change.address, why });
    };
    try {
      switch (change.action) {
        case "update":
        case "replace":
          pullFields(change, steps, live, exported);
          break;
        case "delete":
          pullAdded(change, steps, live, exported);
          break;
        case "create":
          pullRemoved(change, steps);
          break;
      }
    } catch (err) {
      if (!(err instanceof YamlEditError)) throw err;
      undo(err.message);
      continue;
    }
    for (const [path, text] of files.texts) {
      if (textsBefore.get(path) === text) continue;
      if (parseDocument(text).errors.length > 0) {
        undo(
          "its value cannot be written at its place in the file without breaking the YAML; nothing of it was written",
        );
        break;
      }
      // Issue 41: a value written where a YAML anchor stands changes every alias of it (a
      // webhook's `events: &e [...]` aliased by another, a map another takes by `<<: *hook`):
      // the file would then say something else for an item the service did not change, and
      // the next plan would change it. Each such place gets its old value written out (an
      // own key beside the `<<:`, a value for the `*e`), and says so; when that cannot be
      // done, the change is not written.
      const before = textsBefore.get(path);
      const kept =
        before === undefined ? undefined : keepElsewhere(before, text, written.get(path) ?? []);
      if (before !== undefined && kept === undefined) {
        undo(
          "its value is shared through a YAML anchor (an alias or a `<<:` merge key) with another place, which would change too; nothing of it was written (edit the anchor by hand)",
        );
        break;
      }
      if (kept !== undefined && kept.text !== text) {
        files.texts.set(path, kept.text);
        notes.push(
          `${change.address}: ${kept.paths.map((p) => p.join(".")).join(", ")} took ${kept.paths.length === 1 ? "its value" : "their values"} from a YAML anchor pull changed, and now ${kept.paths.length === 1 ? "says it" : "say them"} in ${path}`,
        );
      }
    }
  }

  function pullFields(
    change: Change,
    steps: readonly Step[],
    live: unknown,
    exported: ExportResult,
  ): void {
    const livePath = resolveIn(live, steps);
    const liveItem = livePath === undefined ? undefined : get(live, livePath);
    if (liveItem === undefined) {
      // The plan's values are renderings (masked URLs, `(sensitive)`), never written.
      skipped.push({ address: change.address, why: "export does not write this item" });
      return;
    }
    const declared = findDeclared(change.org, steps);
    // An item all of whose fields come from a template: the override goes on its parent.
    const owner = declared ?? findOwner(change.org, steps.slice(0, -2), steps.slice(-2) as Step[]);
    if (!owner) {
      skipped.push({ address: change.address, why: "no file declares it" });
      return;
    }
    let wrote = false;
    for (const f of change.fields) {
      if (f.sensitive) {
        skipped.push({
          address: change.address,
          why: /(^|\.)url$/.test(f.path)
            ? `${f.path} differs from the service's, and the config reads it from the environment: pull never writes a URL in clear (set the variable to the service's URL, or apply to restore yours)`
            : `${f.path} is a secret: the service never returns it, so it cannot be pulled (set it again, or --force-secrets)`,
        });
        continue;
      }
      // Decision: a field that forces a replacement (a trigger's `event.type`) brings its
      // whole top-level block from the service (`event`), so the block stays consistent
      // (an `event.schedule` left under a `type: vcs` would be refused by validate).
      const split = f.path.split(".");
      const fieldPath =
        f.forces_replacement &&
        split.length > 1 &&
        get(liveItem, [split[0] as string]) !== undefined
          ? [split[0] as string]
          : split;
      const fromLive = get(liveItem, fieldPath);
      const target = [...owner.path, ...fieldPath];
      const text = files.texts.get(owner.file) ?? "";
      const inItem = declared !== undefined && hasPath(text, target);
      const template = inItem ? undefined : templateHolding(change.org, owner, fieldPath);
      const current = inItem
        ? valueAt(text, target)
        : template && valueAt(files.texts.get(template.file) ?? "", template.path);
      // A field export leaves out is at the service's default, which the plan shows as is
      // (`is_enabled: true`); a rendering (a masked URL) is never a value to write.
      const fallback = fromLive === undefined ? f.before : undefined;
      if (fromLive === undefined && holdsMasked(fallback)) {
        skipped.push({
          address: change.address,
          why: `${f.path}: the service's value is not readable here, only its masked rendering, which pull never writes`,
        });
        continue;
      }
      const value = keepOrder(current, bind(fromLive !== undefined ? fromLive : fallback));
      needsOf(value, exported);
      if (template && options.intoTemplate) {
        writeValue(template.file, template.path, value);
        const users = extendersOf(change.org, String(owner.path[0]), template.name);
        notes.push(
          `${change.address}: ${f.path} written in template "${template.name}", which also changes ${users.length === 1 ? "" : "each of "}${users.join(", ")}`,
        );
        wrote = true;
        continue;
      }
      writeValue(owner.file, target, value);
      wrote = true;
    }
    if (wrote) pulled.push(change.address);
  }

  function writeValue(file: string, path: EditPath, value: unknown): void {
    if (value === null || value === undefined) {
      edit(file, path, (t) => deleteIn(t, path));
      return;
    }
    edit(file, path, (t) => setIn(t, path, orderValue(value, schemaAt(path))));
  }

  /** The file declaring the nearest ancestor of `rest`'s parent, with the item's path. */
  function findOwner(
    org: string,
    parentSteps: readonly Step[],
    rest: readonly Step[],
  ): { file: string; path: EditPath } | undefined {
    if (rest.some((s) => typeof s !== "string")) return undefined;
    const parent = parentSteps.length === 0 ? undefined : findDeclared(org, parentSteps);
    if (parentSteps.length > 0 && !parent) return undefined;
    const file = parent?.file ?? filesOf(org)[0];
    if (file === undefined) return undefined;
    return { file, path: [...(parent?.path ?? []), ...(rest as string[])] };
  }

  /**
   * The `${env:NAME}` placeholders written into `value` (export's names, after `bind`):
   * secrets to set, listed once each, under the name written.
   */
  function needsOf(value: unknown, exported: ExportResult): void {
    const names = new Set<string>();
    mapStrings(value, (s) => {
      for (const n of placeholdersIn(s)) names.add(n);
      return s;
    });
    for (const need of exported.envVars) {
      const name = renamed.get(need.name) ?? need.name;
      if (names.has(name) && !envVars.some((e) => e.name === name)) {
        envVars.push({ ...need, name, address: inConfigWords(need.address) });
      }
    }
  }

  /** The items (`projects` or `contexts` keys, any file of the org) that extend `name`. */
  function extendersOf(org: string, top: string, name: string): string[] {
    const out: string[] = [];
    for (const f of filesOf(org)) {
      const items = valueAt(files.texts.get(f) ?? "", [top]);
      if (typeof items !== "object" || items === null) continue;
      for (const [key, item] of Object.entries(items)) {
        const ext = (item as { extends?: unknown } | null)?.extends;
        if (Array.isArray(ext) && ext.includes(name)) {
          out.push(`${top === "projects" ? "project" : "context"}["${key}"]`);
        }
      }
    }
    return out;
  }

  /** A template (of `extends`) that holds the field, last one first. */
  function templateHolding(
    org: string,
    owner: { file: string; path: EditPath },
    fieldPath: readonly string[],
  ): { file: string; path: EditPath; name: string } | undefined {
    const [top, name, ...inner] = owner.path;
    if ((top !== "projects" && top !== "contexts") || typeof name !== "string") return undefined;
    const ext = valueAt(files.texts.get(owner.file) ?? "", [top, name, "extends"]);
    const names = Array.isArray(ext) ? [...ext].reverse() : [];
    for (const t of names) {
      if (typeof t !== "string") continue;
      for (const f of filesOf(org)) {
        const path = ["templates", top, t, ...inner, ...fieldPath];
        if (hasPath(files.texts.get(f) ?? "", path)) return { file: f, path, name: t };
      }
    }
    return undefined;
  }

  function pullAdded(
    change: Change,
    steps: readonly Step[],
    live: unknown,
    exported: ExportResult,
  ): void {
    const livePath = resolveIn(live, steps);
    const doc = livePath === undefined ? undefined : get(live, livePath);
    if (doc === undefined) {
      skipped.push({ address: change.address, why: "export does not write this item" });
      return;
    }
    const last = steps[steps.length - 1] as Step;
    const collection = steps.slice(0, typeof last === "string" ? -1 : -1);
    const itemParent = collection.slice(0, -1);
    const org = change.org;
    let file: string | undefined;
    let parentPath: EditPath | undefined;
    const withCollection = findDeclared(org, collection);
    // Decision: a collection inside an item (a project's webhooks) is declared in one file
    // (design.md §3: a project may be split across files where the parts do not overlap),
    // so a new member goes where the collection is, whatever --into says; top-level items
    // (contexts, groups) may go to any file of the org.
    const intoOk =
      options.into !== undefined &&
      !(withCollection && itemParent.length > 0 && withCollection.file !== options.into);
    if (options.into !== undefined && !intoOk) {
      notes.push(
        `${change.address}: added to ${withCollection?.file}, which declares its collection (a collection lives in one file), not to ${options.into}`,
      );
    }
    if (options.into !== undefined && intoOk) {
      file = options.into;
      if (!files.texts.has(file)) {
        files.order.push(file);
        files.texts.set(file, `org: ${org}\n`);
        files.org.set(file, org);
      }
      parentPath = resolveIn(parsedValue(file), itemParent) ?? itemParent.map(String);
      if (
        itemParent.some((s) => typeof s !== "string") &&
        !resolveIn(parsedValue(file), itemParent)
      ) {
        skipped.push({ address: change.address, why: `its parent is a list item not in ${file}` });
        return;
      }
    } else {
      // The file that declares the collection, else the one that declares the parent.
      const withParent = itemParent.length === 0 ? undefined : findDeclared(org, itemParent);
      if (withCollection) {
        file = withCollection.file;
        parentPath = withCollection.path.slice(0, -1);
      } else if (withParent) {
        file = withParent.file;
        parentPath = withParent.path;
      } else if (itemParent.length === 0) {
        file = filesOf(org)[0];
        parentPath = [];
      }
    }
    if (file === undefined || parentPath === undefined) {
      skipped.push({
        address: change.address,
        why: "no file declares its parent (use --into FILE)",
      });
      return;
    }
    const collKey = collection[collection.length - 1] as string;
    const target = [...parentPath, collKey];
    const value = orderValue(
      bind(doc),
      schemaAt(typeof last === "string" ? [...target, last] : [...target, 0]),
    );
    const f = file;
    if (typeof last === "string")
      edit(f, [...target, last], (t) => setIn(t, [...target, last], value));
    else {
      const text = files.texts.get(f) ?? "";
      if (!hasPath(text, target) && itemParent.length > 0 && inherited(org, target)) {
        skipped.push({
          address: change.address,
          why: "its list comes from a template; a list on the item would replace the template's",
        });
        return;
      }
      edit(f, target, (t) => appendIn(t, target, value));
    }
    needsOf(value, exported);
    pulled.push(change.address);
  }

  function inherited(org: string, path: EditPath): boolean {
    const [top, , ...inner] = path;
    return filesOf(org).some((f) => {
      const templates = valueAt(files.texts.get(f) ?? "", ["templates", String(top)]);
      return (
        typeof templates === "object" &&
        templates !== null &&
        Object.values(templates).some((t) => get(t, inner) !== undefined)
      );
    });
  }

  function pullRemoved(change: Change, steps: readonly Step[]): void {
    if (!options.prune) {
      skipped.push({
        address: change.address,
        why: "declared in the config but gone from the service: removed only with --prune",
      });
      return;
    }
    const declared = findDeclared(change.org, steps);
    // Issue 41: an item a template gives, deleted by hand from one item that extends it,
    // is removed from that item only: `null` on the item removes an inherited key (the
    // templates' rule, examples/large-org/01-templates.yaml); the template and the other
    // items that extend it stay. Before, pull said "remove it there" and the next plan
    // created it again. The same when the item also writes some of it itself: deleting
    // only its own block would leave the template's.
    const owner = declared ?? findOwner(change.org, steps.slice(0, -2), steps.slice(-2) as Step[]);
    const template = owner && templateHolding(change.org, owner, []);
    if (owner && template) {
      edit(owner.file, owner.path, (t) => setIn(t, owner.path, null));
      notes.push(
        `${change.address}: written as null on the item, which removes what template "${template.name}" gives it`,
      );
      pulled.push(change.address);
      return;
    }
    if (!declared) {
      skipped.push({ address: change.address, why: "no file declares it" });
      return;
    }
    edit(declared.file, declared.path, (t) => deleteIn(t, declared.path));
    pulled.push(change.address);
  }

  // What pull writes must still be YAML: a file it would break is an error, and nothing is
  // written (the edits are splices, so this is a guard, not an expected path).
  for (const path of files.order) {
    const text = files.texts.get(path) ?? "";
    if (parseDocument(text).errors.length > 0) {
      throw new YamlEditError(`the edit of ${path} would not be valid YAML; nothing was written`);
    }
  }
  const before = new Map(options.files.map((f) => [f.path, f.text]));
  // A masked rendering never reaches a file (issue 41): a guard behind the checks above.
  for (const path of files.order) {
    const count = (t: string) => t.split("\n").filter(hasMaskedRendering).length;
    const after = files.texts.get(path) ?? "";
    if (count(after) > count(before.get(path) ?? "")) {
      const line =
        after
          .split("\n")
          .find((l) => hasMaskedRendering(l) && !(before.get(path) ?? "").includes(l)) ?? "";
      throw new YamlEditError(
        `the edit of ${path} would write a masked rendering (${maskedRenderingIn(line)}), never a real value; nothing was written`,
      );
    }
  }
  return {
    files: files.order
      .map((path) => ({ path, before: before.get(path) ?? "", after: files.texts.get(path) ?? "" }))
      .filter((f) => f.before !== f.after),
    envVars: envVars.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    pulled,
    skipped,
    notes,
  };
};

/**
 * The places where the meaning of `after` (as the loader reads it: aliases and merge keys
 * resolved) differs from `before` outside `allowed` (the paths a change wrote): each a map
 * key or a whole list, the deepest that differs.
 */
const changedElsewhere = (
  before: unknown,
  after: unknown,
  allowed: readonly EditPath[],
): EditPath[] => {
  const out: EditPath[] = [];
  const walk = (x: unknown, y: unknown, at: readonly (string | number)[]): void => {
    if (allowed.some((p) => p.length <= at.length && p.every((s, i) => s === at[i]))) return;
    const leads = allowed.some((p) => p.length > at.length && at.every((s, i) => s === p[i]));
    if (leads && Array.isArray(x) && Array.isArray(y)) {
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i++) walk(x[i], y[i], [...at, i]);
      return;
    }
    // A map the change created where there was none (`contexts:` filled in) is empty before.
    const mapOr = (v: unknown): Record<string, unknown> | undefined =>
      isPlainObject(v) ? v : leads && (v === undefined || v === null) ? {} : undefined;
    const mx = mapOr(x);
    const my = mapOr(y);
    if (mx && my) {
      for (const k of new Set([...Object.keys(mx), ...Object.keys(my)])) {
        walk(mx[k], my[k], [...at, k]);
      }
      return;
    }
    if (!isDeepStrictEqual(x, y)) out.push(at);
  };
  walk(before, after, []);
  return out;
};

/**
 * `after` with the old value written out at each place outside `allowed` whose meaning the
 * change altered through an anchor; undefined when that does not restore every place.
 */
const keepElsewhere = (
  before: string,
  after: string,
  allowed: readonly EditPath[],
): { text: string; paths: EditPath[] } | undefined => {
  const old = loaderValue(before);
  if (old === undefined) return { text: after, paths: [] };
  try {
    let text = after;
    // An item pull removed held an anchor another place uses (`<<: *hook`, `*events`): that
    // place is written out whole with the value it had, so no alias is left dangling.
    const dangling = loaderValue(text) === undefined ? danglingAliasUsers(text) : [];
    for (const p of dangling) {
      const v = get(old, p);
      if (v === undefined || p.some((s) => typeof s === "number")) return undefined;
      text = setIn(text, p, v);
    }
    const now = loaderValue(text);
    if (now === undefined) return undefined;
    const paths = changedElsewhere(old, now, allowed);
    for (const p of paths) {
      const v = get(old, p);
      // A place that appeared, or a list item: not restored by writing a value.
      if (v === undefined || p.some((s) => typeof s === "number")) return undefined;
      text = setIn(text, p, v);
    }
    const fixed = loaderValue(text);
    if (fixed === undefined || changedElsewhere(old, fixed, allowed).length > 0) return undefined;
    return { text, paths: [...dangling, ...paths] };
  } catch (err) {
    if (err instanceof YamlEditError) return undefined;
    throw err;
  }
};

/**
 * The places whose alias no longer resolves: a value `*a` (its own path), or a map merging
 * `<<: *a` (the map's path).
 */
const danglingAliasUsers = (text: string): EditPath[] => {
  const doc = parseDocument(text, { merge: true });
  const out: EditPath[] = [];
  const dangling = (n: unknown): boolean =>
    (isAlias(n) && n.resolve(doc) === undefined) || (isSeq(n) && n.items.some(dangling));
  const walk = (n: unknown, at: EditPath): void => {
    if (isAlias(n)) {
      if (dangling(n)) out.push(at);
      return;
    }
    if (isMap(n)) {
      for (const pair of n.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        // With merge keys on, `yaml` reads a plain `<<` key as a symbol (`"<<"` stays a key).
        if (typeof key === "symbol" && dangling(pair.value)) out.push(at);
        else if (typeof key === "string") walk(pair.value, [...at, key]);
      }
      return;
    }
    if (isSeq(n)) {
      n.items.forEach((item: Node | unknown, i) => {
        walk(item, [...at, i]);
      });
    }
  };
  walk(doc.contents, []);
  return out;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
