/**
 * Write a file that only its owner can read (0600), atomically, for `plan --out` and
 * `export -o`: a temp file next to the target, then renamed over it, so an existing file's
 * wider mode is never kept and a reader never sees half a file.
 *
 * Issue 21: the temp name was `.<name>.<pid>.tmp`, predictable, and opened with "w", so a
 * symlink planted under that name made Waybill write the plan through it (anywhere the user
 * can write). The temp file now has a random name and is created exclusively (O_EXCL: an
 * existing entry, a symlink included, is never opened), in the target's folder so the
 * rename stays on one file system.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

const EXCLUSIVE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export const writePrivateFile = async (path: string, content: string): Promise<void> => {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  const handle = await open(tmp, EXCLUSIVE, 0o600);
  try {
    await handle.writeFile(content, "utf8");
    await handle.chmod(0o600);
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
