/**
 * `waybill fmt [PATH…] [--check]` (issue 32, design.md §4): one canonical layout for config
 * files (src/pull/fmt.ts), comments kept. Offline. `--check` writes nothing, lists the files
 * that would change and exits 1 when there are some (for CI).
 */
import { readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { DEFAULT_MAX_FILE_BYTES } from "../config/load.js";
import { stripControls } from "../core/controls.js";
import { UsageError } from "../core/errors.js";
import { readRegularFile } from "../core/read-regular.js";
import { writeUserFile } from "../core/write-atomic.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # Rewrite every *.yaml / *.yml file of the folder (sub-folders too)
  $ waybill fmt infra/

  # CI: list the files that are not formatted, and exit 1 if there are some
  $ waybill fmt infra/
  $ waybill fmt --check infra/

Exit codes: 0 formatted (or already so), 1 --check found files to format, or an error.
`;

/** A file fmt was pointed at, or found in a folder it was pointed at. */
interface Candidate {
  readonly path: string;
  /** Named on the command line (a problem with it is an error), or found in a folder. */
  readonly named: boolean;
}

/**
 * The files fmt may touch (issue 41 "Files are the user's"), found the way the loader finds
 * a config folder's files (src/config/load.ts): `*.yaml`/`*.yml`, sub-folders too, hidden
 * folders (`.github`, `.git`) not entered, a symlink followed only when its real path is
 * inside the folder named (fmt followed one out of it and rewrote what it found there).
 * Whether each is a regular Waybill config is decided when it is read.
 */
const candidates = (path: string, skipped: string[]): Candidate[] => {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    throw new UsageError(`fmt: ${path}: ${(err as { code?: string }).code ?? "unreadable"}`);
  }
  if (!st.isDirectory()) return [{ path, named: true }];
  const root = realpathSync(path);
  const out: Candidate[] = [];
  const seen = new Set<string>([root]);
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const e of entries) {
      const p = join(dir, e.name);
      let folder = e.isDirectory();
      if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(p);
          folder = statSync(target).isDirectory();
        } catch {
          if (/\.ya?ml$/i.test(e.name)) skipped.push(`${p}: a symlink that points nowhere`);
          continue;
        }
        const rel = relative(root, target);
        if (rel.startsWith("..") || isAbsolute(rel)) {
          if (folder || /\.ya?ml$/i.test(e.name)) {
            skipped.push(`${p}: a symlink out of ${path} (fmt never writes outside it)`);
          }
          continue;
        }
        if (folder && seen.has(target)) continue;
        if (folder) seen.add(target);
      }
      if (folder) {
        if (e.name.startsWith(".")) continue;
        walk(p);
      } else if (/\.ya?ml$/i.test(e.name)) out.push({ path: p, named: false });
    }
  };
  walk(path);
  return out;
};

/**
 * Decision (issue 41): fmt formats only what the loader reads as config: a YAML map with a
 * top-level `org:`. A GitHub workflow or any other YAML in the folder is skipped (and said
 * so); a file named on the command line that is not config is an error.
 */
const isWaybillConfig = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { org?: unknown }).org === "string";

export const registerFmt: RegisterCommand = (program, io, setExit) => {
  program
    .command("fmt")
    .argument("[path...]", "config files or folders (default ./waybill.yaml)")
    .description(
      "Rewrite config files in one canonical indentation, spacing and quote style; key order, flow collections, quotes and comments kept.",
    )
    .option("--check", "write nothing; list the files that would change and exit 1 if any")
    .addHelpText("after", EXAMPLES)
    .action(async (paths: string[], flags: { check?: boolean }) => {
      setExit(await fmtCommand(paths.length > 0 ? paths : ["./waybill.yaml"], flags, io));
    });
};

const fmtCommand = async (
  paths: readonly string[],
  flags: { check?: boolean },
  io: CliIO,
): Promise<number> => {
  // Loaded here, not at the top: other commands never pay for it (issue 8).
  const { FormatError, formatYaml, parsedValue } = await import("../pull/fmt.js");
  const skipped: string[] = [];
  const files = paths.flatMap((p) => candidates(p, skipped));
  const changed: string[] = [];
  let failed = false;
  const fail = (file: string, why: string): void => {
    io.stderr.write(`${stripControls(file)}: ${why}\n`);
    failed = true;
  };
  for (const { path: file, named } of files) {
    // A FIFO or device named *.yaml is never opened for a blocking read (fmt hung on one).
    const read = readRegularFile(file, DEFAULT_MAX_FILE_BYTES);
    if (!read.ok) {
      if (named) fail(file, `${read.reason}; not formatted`);
      else skipped.push(`${file}: ${read.reason}`);
      continue;
    }
    const text = read.bytes.toString("utf8");
    if (!isWaybillConfig(parsedValue(text))) {
      if (named) fail(file, "not a Waybill config (no top-level `org:`); not formatted");
      else skipped.push(`${file}: not a Waybill config (no top-level \`org:\`)`);
      continue;
    }
    let out: string;
    try {
      out = formatYaml(text);
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      fail(file, err.message);
      continue;
    }
    if (out === text) continue;
    changed.push(file);
    if (!flags.check) await writeUserFile(file, out);
  }
  for (const s of skipped) io.stderr.write(`Skipped ${stripControls(s)}\n`);
  if (flags.check) {
    for (const f of changed) io.stdout.write(`${f}\n`);
    if (changed.length > 0) {
      io.stderr.write(
        `${changed.length} file${changed.length === 1 ? " is" : "s are"} not formatted; run waybill fmt\n`,
      );
    }
    return failed || changed.length > 0 ? EXIT.error : EXIT.ok;
  }
  for (const f of changed) io.stderr.write(`Formatted ${f}\n`);
  return failed ? EXIT.error : EXIT.ok;
};
