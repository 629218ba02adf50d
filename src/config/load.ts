/**
 * The I/O shell of the config layer: find the files, read them with the safety bounds,
 * then run the pure steps (parse → schema → rules → references → build → merge).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { DesiredConfig } from "../model/desired.js";
import { type BuiltFile, buildFile, mergeFiles } from "./build.js";
import { type ConfigDiagnostic, ConfigError, sortDiagnostics } from "./diagnostic.js";
import type { RawDocument } from "./raw.js";
import { type FileRead, resolveReferences } from "./references.js";
import { checkRules } from "./rules.js";
import { createSchemaCheck, readConfigSchema } from "./schema-check.js";
import { parseYaml } from "./yaml-doc.js";

export const DEFAULT_CONFIG_PATH = "./waybill.yaml";
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export interface LoadOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** false for `plan --skip-secrets`: references stay unresolved, missing ones are fine. */
  readonly resolveSecrets?: boolean;
  /** Per config file and per `${file:}` target. Default 1 MiB. */
  readonly maxFileBytes?: number;
}

export type LoadResult =
  | { readonly ok: true; readonly config: DesiredConfig }
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

/** The files a `-c` path names: the file itself, or a folder's *.yaml / *.yml (sorted). */
const listFiles = (
  path: string,
): { ok: true; files: string[] } | { ok: false; diagnostic: ConfigDiagnostic } => {
  const fail = (code: ConfigDiagnostic["code"], message: string) => ({
    ok: false as const,
    diagnostic: { file: path, line: 1, col: 1, path: "", code, message },
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
  // Decision: a folder is read non-recursively (sub-folders are ignored), files sorted by
  // name so the merge order and the output are stable.
  const files = readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => join(path, name));
  if (files.length === 0)
    return fail("no_config_files", "the folder holds no *.yaml or *.yml file");
  return { ok: true, files };
};

type Decoded =
  | { ok: true; text: string }
  | { ok: false; code: ConfigDiagnostic["code"]; reason: string };

/**
 * Size bound, binary and encoding checks shared by config files and `${file:}` targets.
 * `reason` is a clause about the file ("it is not valid UTF-8"), never its content.
 */
const readText = (path: string, maxBytes: number): Decoded => {
  let bytes: Buffer;
  try {
    const stat = statSync(path);
    // A device or FIFO (`${file:/dev/urandom}`) would never end: only regular files are read.
    if (stat.isDirectory())
      return { ok: false, code: "file_unreadable", reason: "it is a folder, not a file" };
    if (!stat.isFile())
      return { ok: false, code: "file_unreadable", reason: "it is not a regular file" };
    const size = stat.size;
    if (size > maxBytes) {
      const reason = `it is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit per file`;
      return { ok: false, code: "file_too_large", reason };
    }
    bytes = readFileSync(path);
  } catch (err) {
    return { ok: false, code: "file_unreadable", reason: errnoReason(err) };
  }
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
 * config: every problem is returned as a diagnostic.
 */
export const loadConfig = async (path: string, options: LoadOptions): Promise<LoadResult> => {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const listed = listFiles(path);
  if (!listed.ok) return { ok: false, diagnostics: [listed.diagnostic] };
  const { files } = listed;

  const schemaCheck = createSchemaCheck(readConfigSchema());
  const readSecretFile = (target: string, from: string): FileRead => {
    // Decision: a `${file:}` target is decoded as UTF-8 and used byte for byte (no
    // trimming, the BOM aside); binary or non-UTF-8 content is refused, since the API
    // takes JSON strings. The same size bound as config files applies.
    const r = readText(resolve(dirname(from), target), maxBytes);
    return r.ok ? r : { ok: false, reason: r.reason };
  };

  const diagnostics: ConfigDiagnostic[] = [];
  const built: BuiltFile[] = [];
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
    // Decision: a file with any problem is not built, so the duplicate-address check across
    // files covers the files that are otherwise valid (a re-run after fixing shows the rest).
    const parsed = parseYaml(file, read.text);
    if (!parsed.ok) {
      diagnostics.push(...parsed.diagnostics);
      continue;
    }
    const fileDiagnostics = [
      ...schemaCheck(file, parsed.value, parsed.positions),
      ...checkRules(file, parsed.value, parsed.positions),
    ];
    const refs = resolveReferences(file, parsed.value, parsed.positions, {
      env: options.env,
      readFile: readSecretFile,
      resolve: options.resolveSecrets ?? true,
    });
    fileDiagnostics.push(...refs.diagnostics);
    if (fileDiagnostics.length > 0) {
      diagnostics.push(...fileDiagnostics);
      continue;
    }
    built.push(buildFile(file, parsed.value as RawDocument, parsed.positions, refs.values));
  }
  const merged = mergeFiles(built, files);
  diagnostics.push(...merged.diagnostics);
  if (diagnostics.length > 0)
    return { ok: false, diagnostics: sortDiagnostics(diagnostics, files) };
  return { ok: true, config: merged.config };
};

/** `loadConfig` for callers that want an exception: throws ConfigError (code config_invalid). */
export const loadConfigOrThrow = async (
  path: string,
  options: LoadOptions,
): Promise<DesiredConfig> => {
  const r = await loadConfig(path, options);
  if (!r.ok) throw new ConfigError(r.diagnostics);
  return r.config;
};
