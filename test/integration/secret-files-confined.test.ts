/**
 * `${file:PATH}` is relative to the YAML file and confined to the config folder, symlinks
 * resolved (design.md §5 "Secrets and files"; issue 43): an absolute path, a `..` that leads
 * out, and a symlink that points out are refused at FILE:LINE:COL, nothing is read, and the
 * refusal holds the fix; a file inside the folder, in a sub-folder or through a symlink that
 * stays inside, is read.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";

const posix = process.platform !== "win32";

describe.skipIf(!posix)("${file:} stays inside the config folder", () => {
  let tmp: TempDir;
  let cfg: string;
  const OUTSIDE = "outside-file-secret-value-Q7w8E9r0";

  beforeAll(async () => {
    tmp = await makeTempDir();
    cfg = tmp.path("repo/infra");
    await mkdir(join(cfg, "secrets"), { recursive: true });
    await mkdir(join(cfg, "team"), { recursive: true });
    await writeFile(tmp.path("repo/outside.txt"), OUTSIDE);
    await writeFile(join(cfg, "secrets/deploy.pem"), "inside-secret-value-1234");
    await symlink(tmp.path("repo/outside.txt"), join(cfg, "secrets/link-out"));
    await symlink(tmp.path("repo"), join(cfg, "secrets/dir-out"));
    await symlink(join(cfg, "secrets/deploy.pem"), join(cfg, "secrets/link-in"));
  });
  afterAll(async () => {
    await tmp?.remove();
  });

  const write = (name: string, lines: string[]): Promise<string> => {
    const path = join(cfg, name);
    return writeFile(
      path,
      `org: gh/acme\ncontexts:\n  deploy:\n    env:\n${lines.map((l) => `      ${l}\n`).join("")}`,
    ).then(() => path);
  };

  it("refuses an absolute path, a .. out of the folder and a symlink out, at FILE:LINE:COL", async () => {
    const file = await write("waybill.yaml", [
      "A: ${file:/etc/hostname}",
      "B: ${file:../outside.txt}",
      "C: ${file:secrets/../../outside.txt}",
      "D: ${file:secrets/link-out}",
      "E: ${file:secrets/dir-out/outside.txt}",
    ]);
    const r = await loadConfig(file, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.map((d) => [d.line, d.col, d.code])).toEqual([
      [5, 10, "secret_file_outside"],
      [6, 10, "secret_file_outside"],
      [7, 10, "secret_file_outside"],
      [8, 10, "secret_file_outside"],
      [9, 10, "secret_file_outside"],
    ]);
    expect(r.diagnostics[0]?.message).toContain("absolute path");
    expect(r.diagnostics[1]?.message).toContain("leads out of the config folder");
    expect(r.diagnostics[3]?.message).toContain("symlink");
    for (const d of r.diagnostics) {
      expect(d.message).toContain("relative to the YAML file");
      expect(d.message).not.toContain(OUTSIDE);
    }
    // The CLI prints them as FILE:LINE:COL and exits 1.
    const v = await runCli(["validate", "-c", file], { secrets: [OUTSIDE] });
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`${file}:6:10`);
  });

  it("reads a file inside the folder: beside the YAML, from a sub-folder's YAML by .., through a symlink inside", async () => {
    const file = await write("waybill.yaml", [
      "A: ${file:secrets/deploy.pem}",
      "B: ${file:secrets/link-in}",
    ]);
    expect((await loadConfig(file, { env: {} })).ok).toBe(true);
    // A folder config: the folder is the bound, so a sub-folder's file may reach up to it,
    // but a -c file inside it is bound by its own folder.
    const folder = tmp.path("repo/folder");
    await mkdir(join(folder, "team"), { recursive: true });
    await mkdir(join(folder, "secrets"), { recursive: true });
    await writeFile(join(folder, "secrets/k"), "folder-secret-value-5678");
    await writeFile(
      join(folder, "team/more.yaml"),
      "org: gh/acme\nprojects:\n  gh/acme/api:\n    env:\n      K: ${file:../secrets/k}\n",
    );
    const whole = await loadConfig(folder, { env: {} });
    expect(whole.ok ? [] : whole.diagnostics.map((d) => d.message)).toEqual([]);
    const one = await loadConfig(join(folder, "team/more.yaml"), { env: {} });
    expect(one.ok ? [] : one.diagnostics.map((d) => d.code)).toEqual(["secret_file_outside"]);
  });
});
