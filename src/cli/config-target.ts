/**
 * Which file `pull --into FILE` may write (issue 41 "Files are the user's"). `--into` was
 * taken as a new file whenever its spelling was not one of the config's: `--into
 * ./waybill.yaml` (the config itself, spelled another way) replaced the whole config with
 * `org:` plus the pulled item, and the next apply deleted everything else; an existing file
 * that is not config was overwritten; a file outside the config folder was accepted, and the
 * next plan (which never reads it) deleted the pulled item again.
 *
 * The rule: `--into` names either one of the config's files (any spelling, a symlink
 * included: compared by real path; the loader's spelling is used from then on), or a new
 * `*.yaml`/`*.yml` file that the loader will read next time: inside a folder given with
 * `-c` (its real path, so no symlinked folder leads out of it), not in a hidden folder.
 * Anything else is refused before a byte is written.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { UsageError } from "../core/errors.js";

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};

const isFolder = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The path `pull` writes for `--into`: one of `files` as the loader spells it, or a new file. */
export const resolveIntoTarget = (
  into: string,
  configPaths: readonly string[],
  files: readonly string[],
): string => {
  const refuse = (why: string): never => {
    throw new UsageError(`pull --into ${into}: ${why}; nothing was written`);
  };
  if (exists(into)) {
    const target = real(into);
    if (target === undefined) refuse("it is a symlink that points nowhere");
    const same = files.find((f) => real(f) === target);
    if (same !== undefined) return same;
    return refuse(
      "it exists and is not a file of the config (pass one of the config's files, or a new file in the config folder)",
    );
  }
  if (!/\.ya?ml$/i.test(into)) refuse("a new config file is named *.yaml or *.yml");
  const folders = configPaths.filter(isFolder).map((p) => real(p) ?? resolve(p));
  if (folders.length === 0) {
    refuse(
      "-c names a file, so a new file would not be read by the next plan (which would delete what pull added to it): pass -c the folder, or --into one of the config's files",
    );
  }
  const parent = real(dirname(resolve(into)));
  if (parent === undefined) refuse("its folder does not exist");
  const full = `${parent}${sep}${basename(into)}`;
  const root = folders.find((f) => isInside(f, full));
  if (root === undefined) {
    return refuse(
      `it is outside the config folder${folders.length === 1 ? "" : "s"} (${folders.join(", ")}), so the next plan would not read it`,
    );
  }
  if (
    relative(root, full)
      .split(sep)
      .slice(0, -1)
      .some((part) => part.startsWith("."))
  ) {
    refuse("it is in a hidden folder, which the loader does not read");
  }
  return into;
};
