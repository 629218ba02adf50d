/**
 * The release's single file (`waybill.mjs`, what `npm run release` bundles from dist/ with
 * scripts/release.js `bundle`), built once for a given dist/ and lock file and cached in
 * node_modules/.cache: every test file that needs the real single file shares one build,
 * across workers and runs, and a rebuild of dist/ makes a new one. Written to a temp name
 * and renamed, so a reader never sees half a file (two workers may both build; the bundle
 * is deterministic, so either rename leaves the same bytes).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { bundle } from "../../scripts/release.js";
import { REPO_ROOT } from "./cli.js";

const fingerprint = async (): Promise<string> => {
  const hash = createHash("sha256");
  const dist = join(REPO_ROOT, "dist");
  const files = (await readdir(dist, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  if (files.length === 0) throw new Error("dist/ is empty: run `npm run build` first");
  for (const f of [
    ...files,
    // The bundle's entry point, outside dist/.
    join(REPO_ROOT, "bin", "waybill.js"),
    join(REPO_ROOT, "package-lock.json"),
    join(REPO_ROOT, "scripts", "release.js"),
  ]) {
    hash.update(f.slice(REPO_ROOT.length));
    hash.update(await readFile(f));
  }
  return hash.digest("hex").slice(0, 16);
};

/** The path of the single file bundled from the current dist/ (built on first use). */
export const releaseBundle = async (): Promise<string> => {
  const dir = join(REPO_ROOT, "node_modules", ".cache", "waybill-release-bundle");
  const file = join(dir, `waybill-${await fingerprint()}.mjs`);
  if (
    await stat(file).then(
      (s) => s.size > 0,
      () => false,
    )
  )
    return file;
  await mkdir(dir, { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await bundle(temp);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return file;
};
