/**
 * Apply a unified diff with GNU `patch --fuzz=0` (the real tool, on a temp copy): the text it
 * writes, or "patch failed …" with its complaint. Issue 41: `pull --dry-run`'s diff must be
 * a patch of the file that gives exactly what `pull` writes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const gnuPatch = (before: string, diff: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "waybill-patch-"));
  try {
    const file = join(dir, "file.yaml");
    writeFileSync(file, before);
    const r = spawnSync("patch", ["--fuzz=0", "--force", "--no-backup-if-mismatch", file], {
      input: diff,
      encoding: "utf8",
    });
    if (r.status !== 0) return `patch failed (${r.status}): ${r.stdout}${r.stderr}`;
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
