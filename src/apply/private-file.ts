/**
 * Write a file that only its owner can read (0600), atomically, for `plan --out` and
 * `export -o`: a temp file next to the target, then renamed over it, so an existing file's
 * wider mode is never kept and a reader never sees half a file.
 *
 * Issue 21: the temp name was `.<name>.<pid>.tmp`, predictable, and opened with "w", so a
 * symlink planted under that name made Waybill write the plan through it (anywhere the user
 * can write). The temp file now has a random name and is created exclusively (O_EXCL: an
 * existing entry, a symlink included, is never opened), in the target's folder so the
 * rename stays on one file system. Issue 41: the one atomic writer (src/core/write-atomic.ts,
 * also pull's and fmt's) with a fixed mode.
 */
import { writeFileAtomic } from "../core/write-atomic.js";

export const writePrivateFile = (path: string, content: string): Promise<void> =>
  writeFileAtomic(path, content, { mode: 0o600 });
