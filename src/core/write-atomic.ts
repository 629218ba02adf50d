/**
 * Write a user's file whole or not at all (the house rule "A user's file is written whole or
 * not at all"; issue 41 "Files are the user's"): the text goes to a temporary file in the
 * target's folder (so the rename stays on one file system), is fsynced, takes the mode the
 * target had (or `mode` for a new file), and is renamed over the target. A write that fails
 * half-way (a full disk) leaves the target as it was and removes the temporary file; `pull`
 * wrote in place before, so a full disk left the config cut short, still valid YAML, and the
 * next plan deleted what was cut off.
 *
 * The temporary name is random and created exclusively with O_NOFOLLOW (issue 21: a symlink
 * planted under a predictable name is never written through).
 *
 * `writeChunk` is the one seam: the bytes go through it, so a test can make the write fail
 * half-way on the real path (there is no small full file system to fill in a test).
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

const EXCLUSIVE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** How the bytes reach the temporary file: a whole write, or a test's that fails part-way. */
export type WriteChunk = (handle: FileHandle, bytes: Buffer) => Promise<void>;

const writeAll: WriteChunk = async (handle, bytes) => {
  await handle.writeFile(bytes);
};

export interface AtomicWriteOptions {
  /**
   * The mode of the written file. `keep` (the default): the target's mode if it exists,
   * else 0644 less the umask's bits as a plain `writeFile` would; a number: always that
   * mode (0600 for plan files and exports, which hold what only the owner may read).
   */
  readonly mode?: "keep" | number;
  readonly writeChunk?: WriteChunk;
}

const existingMode = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch {
    return undefined;
  }
};

export const writeFileAtomic = async (
  path: string,
  content: string,
  options: AtomicWriteOptions = {},
): Promise<void> => {
  const fixed = typeof options.mode === "number" ? options.mode : undefined;
  const kept = fixed === undefined ? await existingMode(path) : undefined;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  const mode = fixed ?? kept;
  // A known mode is set before a byte is written (never readable by more people than the
  // finished file); a new file without one takes what `writeFile` gives (0666 less umask).
  const handle = await open(tmp, EXCLUSIVE, mode === undefined ? 0o666 : 0o600);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await (options.writeChunk ?? writeAll)(handle, Buffer.from(content, "utf8"));
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
};

/**
 * A file of the user's config: written where it really is (a config file may be a symlink
 * to a file inside the config folder, src/config/load.ts: renaming over the link would
 * replace it with a copy), with its mode kept.
 */
export const writeUserFile = async (
  path: string,
  content: string,
  writeChunk?: WriteChunk,
): Promise<void> => {
  let target = path;
  try {
    target = await realpath(path);
  } catch {
    // A new file: written under its own name.
  }
  await writeFileAtomic(target, content, writeChunk ? { writeChunk } : {});
};
