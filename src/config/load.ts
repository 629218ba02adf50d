/**
 * The I/O shell of the config layer: find the files, read them with the safety bounds,
 * then run the pure steps (parse → schema → rules → references → build → merge).
 */

import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { readRegularFile } from "../core/read-regular.js";
import type { DesiredConfig } from "../model/desired.js";
import { type BuiltFile, buildFile, mergeFiles } from "./build.js";
import {
  type ConfigDiagnostic,
  ConfigError,
  escapeDiagnostic,
  sortDiagnostics,
} from "./diagnostic.js";
import { movedTargetDiagnostics } from "./moved-targets.js";
import { type FileText, parseFiles } from "./parse-workers.js";
import { checkPolicies } from "./policies.js";
import type { RawDocument } from "./raw.js";
import { type FileRead, resolveReferences } from "./references.js";
import { reservedKeyDiagnostics } from "./reserved-keys.js";
import { checkRules } from "./rules.js";
import { createSchemaCheck } from "./schema-check.js";
import { checkTemplateExpansion } from "./template-bound.js";
import { collectTemplates, expandTemplates, type ParsedFile, withOrigin } from "./templates.js";
import type { ParsedYaml } from "./yaml-doc.js";

export const DEFAULT_CONFIG_PATH = "./waybill.yaml";
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export interface LoadOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * false for `plan --skip-secrets`: references stay unresolved, missing ones are fine;
   * `available` (pull): resolved where they can be, else unresolved (src/config/references.ts).
   */
  readonly resolveSecrets?: boolean | "available";
  /** Per config file and per `${file:}` target. Default 1 MiB. */
  readonly maxFileBytes?: number;
  /** How many values templates may add to the whole config (src/config/template-bound.ts). */
  readonly templateLimit?: number;
  /**
   * From how many characters of files outside the plain YAML subset they are parsed in
   * workers (parse-workers.ts, default PARSE_IN_WORKERS_BYTES; tests lower it).
   */
  readonly parseInWorkersFrom?: number;
}

export type LoadResult =
  | {
      readonly ok: true;
      readonly config: DesiredConfig;
      /**
       * Issue 43: problems that do not make the config invalid (a secret written in clear,
       * `literal_secret`): `validate` prints them as warnings, `--strict` as errors.
       */
      readonly warnings: readonly ConfigDiagnostic[];
    }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

const errnoReason = (err: unknown): string => {
  const code = (err as { code?: string }).code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a folder, not a file";
    default:
      return code ?? "unreadable";
  }
};

const formatBytes = (n: number): string =>
  n >= 1024 * 1024 && n % (1024 * 1024) === 0
    ? `${n / (1024 * 1024)} MiB`
    : n >= 1024 * 1024
      ? `${(n / (1024 * 1024)).toFixed(1)} MiB`
      : `${n} bytes`;

/**
 * The files a `-c` path names: the file itself, or a folder's *.yaml / *.yml files, in its
 * sub-folders too (issue 19), sorted by their path in the folder.
 */
const listFiles = (
  path: string,
): { ok: true; files: string[] } | { ok: false; diagnostics: ConfigDiagnostic[] } => {
  const fail = (code: ConfigDiagnostic["code"], message: string) => ({
    ok: false as const,
    diagnostics: [{ file: path, line: 1, col: 1, path: "", code, message }],
  });
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    return (err as { code?: string }).code === "ENOENT"
      ? fail(
          "config_not_found",
          "no config here; create it or pass -c PATH (a file, or a folder of *.yaml files)",
        )
      : fail("file_unreadable", `cannot read the config: ${errnoReason(err)}`);
  }
  if (!isDir) return { ok: true, files: [path] };
  // Decision (issue 19, issue 21): a folder is read recursively, every entry sorted by name
  // at each level so the merge order and the output are stable, and no config entry is
  // skipped silently: a `*.yaml`/`*.yml` file or a sub-folder that cannot be read is an
  // error. A symlink (to a file or a folder) is followed when its target is inside the
  // folder; one that points outside it (a PR could point it at any file the CI runner can
  // read) or dangles is an error; a folder reached twice (a symlink loop) is read once.
  // Decision: hidden folders (`.git`, `.github`) and names that are not *.yaml/*.yml
  // (README.md) are not config entries; a hidden *.yaml file is (it was read before). A
  // hidden folder holding YAML at any depth is an error, never skipped silently.
  const root = realpathOrSelf(path);
  const files: string[] = [];
  const problems: ConfigDiagnostic[] = [];
  const problem = (file: string, message: string): void => {
    problems.push({ file, line: 1, col: 1, path: "", code: "file_unreadable", message });
  };
  const visited = new Set<string>([root]);
  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      problem(dir, `cannot list the folder: ${errnoReason(err)}`);
      return;
    }
    for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(dir, e.name);
      const yaml = /\.ya?ml$/i.test(e.name);
      let isFolder = e.isDirectory();
      // A hidden folder (.git, .github) is not read; a hidden *.yaml file is, as before. So
      // that nothing is skipped silently, a hidden folder holding YAML files is an error.
      // Issue 28: at any depth (`.drafts/team/legacy.yaml` was skipped silently, and the
      // contexts it declared were then planned for deletion).
      // Decision: `.git` is git's own store, never config, and can be large: not searched.
      if (isFolder && e.name.startsWith(".")) {
        const found = e.name === ".git" ? undefined : yamlInside(full);
        if (found !== undefined) {
          problem(
            full,
            `this hidden folder holds YAML files (${found}), and hidden folders are not read: rename it without the leading dot, or move it out of the config folder`,
          );
        }
        continue;
      }
      if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
          isFolder = statSync(target).isDirectory();
        } catch (err) {
          problem(full, `cannot follow the symlink: ${errnoReason(err)}`);
          continue;
        }
        if (!isFolder && !yaml) continue;
        // A folder already read (a loop back up to the config folder itself) is read once.
        if (isFolder && visited.has(target)) continue;
        const rel = relative(root, target);
        if ((rel === "" && !isFolder) || rel.startsWith("..") || isAbsolute(rel)) {
          problem(
            full,
            `the symlink points outside the config folder (to ${target}); copy the ${isFolder ? "folder" : "file"} into the folder, or pass it with another -c`,
          );
          continue;
        }
        if (isFolder) {
          visited.add(target);
          walk(full);
          continue;
        }
      } else if (isFolder) {
        const real = realpathOrSelf(full);
        if (visited.has(real)) continue;
        visited.add(real);
        walk(full);
        continue;
      }
      if (!yaml) continue;
      // Anything else named *.yaml (a regular file, a followed symlink, a FIFO) is read, and
      // readText refuses what is not a regular file with a clear reason.
      files.push(full);
    }
  };
  walk(path);
  if (problems.length > 0) return { ok: false, diagnostics: problems };
  if (files.length === 0)
    return fail(
      "no_config_files",
      "the folder holds no *.yaml or *.yml file, in it or in its sub-folders",
    );
  return { ok: true, files };
};

/** Whether `path` is `root` or inside it (both absolute, symlinks resolved). */
const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/**
 * Issue 43: the path a `${file:}` target of the YAML file `from` may be read at, or why it
 * may not: an absolute path, a path whose `..` leads out of the config folder `root`
 * (checked before anything is read, so the refusal says nothing of what is there), or a
 * symlink (the target itself or a folder on the way) that leads out of it. Decision: the
 * refusal is a diagnostic of its own (`secret_file_outside`) that names the fix, and the
 * file found is read by its resolved path, the one that was checked.
 */
const confineSecretFile = (
  target: string,
  from: string,
  root: string,
):
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly code: "secret_file_outside"; readonly reason: string } => {
  const fix = "write the path relative to the YAML file, to a file inside the config folder";
  if (isAbsolute(target)) {
    return { ok: false, code: "secret_file_outside", reason: `it is an absolute path; ${fix}` };
  }
  const lexical = resolve(realpathOrSelf(dirname(from)), target);
  if (!isInside(root, lexical)) {
    return {
      ok: false,
      code: "secret_file_outside",
      reason: `it leads out of the config folder; ${fix}`,
    };
  }
  const real = realpathOrSelf(lexical);
  if (!isInside(root, real)) {
    return {
      ok: false,
      code: "secret_file_outside",
      reason: `a symlink on the way leads out of the config folder; ${fix}`,
    };
  }
  return { ok: true, path: real };
};

const realpathOrSelf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/**
 * The first *.yaml/*.yml entry inside a folder, at any depth, as a path relative to it
 * (sorted, so the message is stable); undefined when there is none. Symlinks are not
 * followed (no loops), but a symlink named *.yaml counts. A folder that cannot be listed
 * counts too (it may hold some): its path is given.
 */
const yamlInside = (dir: string): string | undefined => {
  const stack: string[] = [""];
  while (stack.length > 0) {
    const rel = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return rel === "" ? "it cannot be listed" : `${rel}, which cannot be listed`;
    }
    const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const hit = sorted.find((e) => !e.isDirectory() && /\.ya?ml$/i.test(e.name));
    if (hit !== undefined) return rel === "" ? hit.name : `${rel}/${hit.name}`;
    const folders = sorted
      .filter((e) => e.isDirectory())
      .map((e) => (rel === "" ? e.name : `${rel}/${e.name}`));
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i] as string);
  }
  return undefined;
};

type Decoded =
  | { ok: true; text: string }
  | { ok: false; code: ConfigDiagnostic["code"]; reason: string };

/**
 * Size bound, binary and encoding checks shared by config files and `${file:}` targets.
 * `reason` is a clause about the file ("it is not valid UTF-8"), never its content.
 */
const readText = (path: string, maxBytes: number): Decoded => {
  // A device, FIFO or /proc file (`${file:/dev/urandom}`, `/proc/self/pagemap`) would never
  // end: only regular files are read, and never past the bound (src/core/read-regular.ts).
  const read = readRegularFile(path, maxBytes);
  if (!read.ok) {
    if (read.code === "too_large") {
      const size = read.size === undefined ? "" : `it is ${formatBytes(read.size)}, `;
      const reason = `${size}over the ${formatBytes(maxBytes)} limit per file`;
      return { ok: false, code: "file_too_large", reason };
    }
    if (read.code === "not_regular") {
      return { ok: false, code: "file_unreadable", reason: read.reason };
    }
    return { ok: false, code: "file_unreadable", reason: errnoReason({ code: read.errno }) };
  }
  const bytes = read.bytes;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { ok: false, code: "not_utf8", reason: "it is UTF-16, not UTF-8" };
  }
  if (bytes.includes(0)) {
    return { ok: false, code: "binary_file", reason: "it looks binary (it contains NUL bytes)" };
  }
  try {
    // Decision: a UTF-8 byte order mark is accepted and dropped (ignoreBOM: false strips
    // it), in config files and in `${file:}` targets alike; UTF-16 is refused.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return { ok: true, text };
  } catch {
    return { ok: false, code: "not_utf8", reason: "it is not valid UTF-8" };
  }
};

const configFileMessage = (code: ConfigDiagnostic["code"], reason: string): string => {
  switch (code) {
    case "file_too_large":
      return `the file is too large: ${reason}; split it into several files in a folder`;
    case "binary_file":
      return `not a config file: ${reason}; a config must be UTF-8 YAML text`;
    case "not_utf8":
      return `cannot decode the file: ${reason}; save it as UTF-8`;
    default:
      return `cannot read the file: ${reason}`;
  }
};

/**
 * Load, validate and resolve a config (a file or a folder). Never throws for a bad
 * config: every problem is returned as a diagnostic, with control characters escaped
 * (issue 41: `escapeDiagnostic`), as are the warnings.
 */
export const loadConfig = async (
  path: string | readonly string[],
  options: LoadOptions,
): Promise<LoadResult> => {
  const r = await loadUnescaped(path, options);
  return r.ok
    ? { ...r, warnings: r.warnings.map(escapeDiagnostic) }
    : { ok: false, diagnostics: r.diagnostics.map(escapeDiagnostic) };
};

const loadUnescaped = async (
  path: string | readonly string[],
  options: LoadOptions,
): Promise<LoadResult> => {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // Issue 19: several `-c` are merged like the files of one folder. Decision: a file named
  // twice (by two -c, or by a folder and a -c) is read once, where it is first named.
  const files: string[] = [];
  const seen = new Set<string>();
  const listing: ConfigDiagnostic[] = [];
  // Issue 43: each file's config folder (the `-c` folder, or a `-c` file's own folder),
  // symlinks resolved: what its `${file:}` references are confined to.
  const rootOf = new Map<string, string>();
  for (const p of typeof path === "string" ? [path] : path) {
    const listed = listFiles(p);
    if (!listed.ok) {
      for (const d of listed.diagnostics) listing.push(d);
      continue;
    }
    const root = realpathOrSelf(
      listed.files.length === 1 && listed.files[0] === p ? dirname(p) : p,
    );
    for (const f of listed.files) {
      const real = realpathOrSelf(f);
      if (seen.has(real)) continue;
      seen.add(real);
      files.push(f);
      rootOf.set(f, root);
    }
  }
  if (listing.length > 0) return { ok: false, diagnostics: listing };

  const schemaCheck = createSchemaCheck();
  const readSecretFile = (target: string, from: string): FileRead => {
    // Issue 43, design.md §5 "Secrets and files": a `${file:}` target is relative to the YAML
    // file and confined to its config folder, symlinks resolved, like the config files
    // themselves: a merged pull request must not send the runner's files (`/etc/…`,
    // `../../.ssh/…`) to the service as secret values.
    const confined = confineSecretFile(
      target,
      from,
      rootOf.get(from) ?? realpathOrSelf(dirname(from)),
    );
    if (!confined.ok) return confined;
    // Decision: a `${file:}` target is decoded as UTF-8 and used byte for byte (no
    // trimming, the BOM aside); binary or non-UTF-8 content is refused, since the API
    // takes JSON strings. The same size bound as config files applies.
    const r = readText(confined.path, maxBytes);
    return r.ok ? r : { ok: false, reason: r.reason };
  };

  const diagnostics: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  const built: BuiltFile[] = [];
  // Pass 1: every file parsed, so that templates (issue 19) may live in any of them.
  const parsedFiles: ParsedFile[] = [];
  const texts: FileText[] = [];
  for (const file of files) {
    const read = readText(file, maxBytes);
    if (!read.ok) {
      const message = configFileMessage(read.code, read.reason);
      diagnostics.push({ file, line: 1, col: 1, path: "", code: read.code, message });
      continue;
    }
    if (read.text.trim() === "") {
      diagnostics.push({
        file,
        line: 1,
        col: 1,
        path: "",
        code: "empty_file",
        message: "the file is empty; it needs at least `org: <slug>`",
      });
      continue;
    }
    texts.push({ file, text: read.text });
  }
  // Issue 33: a large config's files are parsed side by side, in workers (parse-workers.ts).
  const parsedTexts = await parseFiles(texts, {}, options.parseInWorkersFrom);
  texts.forEach(({ file }, i) => {
    // Decision: a file with any problem is not built, so the duplicate-address check across
    // files covers the files that are otherwise valid (a re-run after fixing shows the rest).
    const parsed = parsedTexts[i] as ParsedYaml;
    if (!parsed.ok) {
      for (const d of parsed.diagnostics) diagnostics.push(d);
      return;
    }
    // Issue 28: a reserved key (`__proto__`) is refused before templates and merges see it.
    const reserved = reservedKeyDiagnostics(file, parsed.value, parsed.positions);
    if (reserved.length > 0) {
      for (const d of reserved) diagnostics.push(d);
      return;
    }
    parsedFiles.push({ file, value: parsed.value, positions: parsed.positions });
  });
  const collected = collectTemplates(parsedFiles);
  for (const d of collected.diagnostics) diagnostics.push(d);
  // Counted before anything is copied: a config past the bound is never expanded.
  const tooLarge = checkTemplateExpansion(parsedFiles, collected.templates, options.templateLimit);
  if (tooLarge.length > 0) {
    for (const d of tooLarge) diagnostics.push(d);
    return { ok: false, diagnostics: sortDiagnostics(diagnostics, files) };
  }

  // Pass 2: each file with its items' templates merged in, then checked and built.
  for (const parsed of parsedFiles) {
    const { file, positions } = parsed;
    const expanded = expandTemplates(parsed, collected.templates);
    // Loops, not push(...list): a config with many problems must not overflow the stack.
    const fileDiagnostics = expanded.diagnostics;
    for (const d of schemaCheck(file, expanded.value, positions)) {
      // A template is a fragment: the keys it leaves out come from the item or another
      // template, and are checked where the template is used.
      if (d.code === "missing_key" && d.path.startsWith("templates.")) continue;
      fileDiagnostics.push(withOrigin(d, expanded.origins));
    }
    for (const d of checkRules(file, expanded.value, positions)) {
      fileDiagnostics.push(withOrigin(d, expanded.origins));
    }
    for (const d of checkPolicies(file, expanded.value, positions)) fileDiagnostics.push(d);
    // The templates themselves are not items: only what an item inherits is resolved.
    const { templates: _templates, ...doc } = (expanded.value ?? {}) as Record<string, unknown>;
    const refs = resolveReferences(file, doc, positions, {
      env: options.env,
      readFile: readSecretFile,
      resolve: options.resolveSecrets ?? true,
    });
    for (const d of refs.diagnostics) fileDiagnostics.push(withOrigin(d, expanded.origins));
    for (const w of refs.warnings) warnings.push(withOrigin(w, expanded.origins));
    if (fileDiagnostics.length > 0) {
      for (const d of fileDiagnostics) diagnostics.push(d);
      continue;
    }
    built.push(
      buildFile(file, doc as unknown as RawDocument, positions, refs.values, expanded.origins),
    );
  }
  const merged = mergeFiles(built, files);
  for (const d of merged.diagnostics) diagnostics.push(d);
  // Issue 46: only on a config that loaded cleanly (a file with problems is not built, so
  // its items would look undeclared).
  if (diagnostics.length === 0) {
    for (const d of movedTargetDiagnostics(merged.config)) diagnostics.push(d);
  }
  if (diagnostics.length > 0)
    return { ok: false, diagnostics: sortDiagnostics(diagnostics, files) };
  // One warning per place: a template's literal inherited by many items names each item.
  const unique = new Map(warnings.map((w) => [`${w.file}:${w.line}:${w.col}:${w.message}`, w]));
  return {
    ok: true,
    config: merged.config,
    warnings: sortDiagnostics([...unique.values()], files),
  };
};

/** `loadConfig` for callers that want an exception: throws ConfigError (code config_invalid). */
export const loadConfigOrThrow = async (
  path: string | readonly string[],
  options: LoadOptions,
): Promise<DesiredConfig> => {
  const r = await loadConfig(path, options);
  if (!r.ok) throw new ConfigError(r.diagnostics);
  return r.config;
};
