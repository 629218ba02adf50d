/**
 * Issue 21: hostile files in a config folder or behind `${file:}`. No config entry is
 * skipped silently (a skipped file would make apply delete what it declared), and nothing
 * that is not a regular file is read (a FIFO blocks, /proc files never end).
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSavedPlan } from "../../src/apply/saved-plan.js";
import { resolveConnection } from "../../src/cli/common-options.js";
import type { CliIO } from "../../src/cli/io.js";
import { type LoadResult, loadConfig } from "../../src/config/index.js";
import { readRegularFile } from "../../src/core/read-regular.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-hostile-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ORG = "org: gh/acme\n";
const CONTEXTS = "org: gh/acme\ncontexts:\n  a: {}\n  b: {}\n  c: {}\n";
const messages = (r: LoadResult): string[] => (r.ok ? [] : r.diagnostics.map((d) => d.message));
const posix = process.platform !== "win32";
const mkfifo = (path: string): void => {
  execFileSync("mkfifo", [path]);
};

describe.skipIf(!posix)("a config folder's entries", () => {
  it("follows a *.yaml symlink to a file inside the folder", async () => {
    await mkdir(join(dir, "cfg", "shared"), { recursive: true });
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "cfg", "shared", "contexts.txt"), CONTEXTS);
    await symlink(join("shared", "contexts.txt"), join(dir, "cfg", "contexts.yaml"));
    const r = await loadConfig(join(dir, "cfg"), { env: {} });
    expect(messages(r)).toEqual([]);
    expect(r.ok && [...(r.config.orgs[0]?.contexts?.keys() ?? [])]).toEqual(["a", "b", "c"]);
  });

  it("refuses a symlink pointing outside the folder, or dangling, naming it", async () => {
    await mkdir(join(dir, "cfg"));
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "outside.yaml"), CONTEXTS);
    await symlink(join(dir, "outside.yaml"), join(dir, "cfg", "contexts.yaml"));
    await symlink(join(dir, "gone.yaml"), join(dir, "cfg", "dangling.yml"));
    const r = await loadConfig(join(dir, "cfg"), { env: {} });
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.diagnostics.map((d) => d.file.split("/").pop())).toEqual([
      "contexts.yaml",
      "dangling.yml",
    ]);
    expect(messages(r)[0]).toMatch(/points outside the config folder/);
    expect(messages(r)[1]).toMatch(/cannot follow the symlink: no such file/);
  });

  it("reads the YAML files of sub-folders and of folder symlinks inside it, once each; ignores other names", async () => {
    // Issue 19: a sub-folder's files are read (they were refused before; skipped before that).
    await mkdir(join(dir, "cfg", "more", "deeper"), { recursive: true });
    await mkdir(join(dir, "cfg", "docs"), { recursive: true });
    await mkdir(join(dir, "cfg", ".git"), { recursive: true });
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "cfg", "more", "contexts.yaml"), CONTEXTS);
    await writeFile(
      join(dir, "cfg", "more", "deeper", "d.yml"),
      "org: gh/acme\ncontexts:\n  d: {}\n",
    );
    await writeFile(join(dir, "cfg", "docs", "README.md"), "# x\n");
    await writeFile(join(dir, "cfg", "README.md"), "# x\n");
    // Hidden folders are not config folders (one without YAML is passed over; git's own
    // store is not searched); a hidden file is read.
    await mkdir(join(dir, "cfg", ".git", "x"), { recursive: true });
    await writeFile(join(dir, "cfg", ".git", "x", "odd.yml"), "on: push\n");
    await mkdir(join(dir, "cfg", ".cache", "deep"), { recursive: true });
    await writeFile(join(dir, "cfg", ".cache", "deep", "notes.md"), "# x\n");
    await writeFile(join(dir, "cfg", ".hidden.yaml"), "org: gh/acme\ncontexts:\n  h: {}\n");
    // A symlink to a folder inside, and a loop back to the top: each file is read once.
    await symlink(join(dir, "cfg", "more"), join(dir, "cfg", "alias-of-more"));
    await symlink(join(dir, "cfg"), join(dir, "cfg", "more", "loop"));
    const r = await loadConfig(join(dir, "cfg"), { env: {} });
    expect(messages(r)).toEqual([]);
    if (!r.ok) return;
    expect(r.config.files.map((f) => f.slice(join(dir, "cfg").length + 1))).toEqual([
      ".hidden.yaml",
      "00-org.yaml",
      "alias-of-more/contexts.yaml",
      "alias-of-more/deeper/d.yml",
    ]);
    expect([...(r.config.orgs[0]?.contexts?.keys() ?? [])].sort()).toEqual([
      "a",
      "b",
      "c",
      "d",
      "h",
    ]);
  });

  it("refuses a hidden folder that holds YAML files (not read, never skipped silently)", async () => {
    await mkdir(join(dir, "cfg", ".teams"), { recursive: true });
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "cfg", ".teams", "contexts.yaml"), CONTEXTS);
    expect(messages(await loadConfig(join(dir, "cfg"), { env: {} }))).toEqual([
      "this hidden folder holds YAML files (contexts.yaml), and hidden folders are not read: rename it without the leading dot, or move it out of the config folder",
    ]);
  });

  it("refuses a hidden folder that holds YAML files at any depth (.drafts/team/legacy.yaml)", async () => {
    // Issue 28: one level down was refused, two were skipped silently, and the contexts the
    // skipped file declared were then planned for deletion.
    await mkdir(join(dir, "cfg", ".drafts", "team"), { recursive: true });
    await mkdir(join(dir, "cfg", "sub", ".github", "workflows"), { recursive: true });
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "cfg", ".drafts", "team", "legacy.yaml"), CONTEXTS);
    await writeFile(join(dir, "cfg", "sub", ".github", "workflows", "ci.yml"), "on: push\n");
    const r = await loadConfig(join(dir, "cfg"), { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(
      r.diagnostics.map((d) => [d.file.slice(join(dir, "cfg").length + 1), d.message]),
    ).toEqual([
      [
        ".drafts",
        "this hidden folder holds YAML files (team/legacy.yaml), and hidden folders are not read: rename it without the leading dot, or move it out of the config folder",
      ],
      [
        "sub/.github",
        "this hidden folder holds YAML files (workflows/ci.yml), and hidden folders are not read: rename it without the leading dot, or move it out of the config folder",
      ],
    ]);
  });

  it("refuses a folder symlink that points outside the config folder", async () => {
    await mkdir(join(dir, "cfg"));
    await mkdir(join(dir, "elsewhere"));
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "elsewhere", "x.yaml"), CONTEXTS);
    await symlink(join(dir, "elsewhere"), join(dir, "cfg", "linked"));
    expect(messages(await loadConfig(join(dir, "cfg"), { env: {} }))[0]).toMatch(
      /the symlink points outside the config folder .*copy the folder into the folder/,
    );
  });

  it("merges several -c paths, reading a file named twice once", async () => {
    await mkdir(join(dir, "cfg"));
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "other.yaml"), CONTEXTS);
    const r = await loadConfig(
      [join(dir, "cfg"), join(dir, "other.yaml"), join(dir, "cfg", "00-org.yaml")],
      {
        env: {},
      },
    );
    expect(messages(r)).toEqual([]);
    expect(r.ok && r.config.files.length).toBe(2);
    expect(r.ok && [...(r.config.orgs[0]?.contexts?.keys() ?? [])]).toEqual(["a", "b", "c"]);
  });

  it("refuses a FIFO named *.yaml without waiting for a writer", async () => {
    await mkdir(join(dir, "cfg"));
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    mkfifo(join(dir, "cfg", "pipe.yaml"));
    expect(messages(await loadConfig(join(dir, "cfg"), { env: {} }))).toEqual([
      "cannot read the file: it is a FIFO (named pipe), not a regular file",
    ]);
  });

  it.skipIf(process.getuid?.() === 0)("refuses an unreadable entry", async () => {
    await mkdir(join(dir, "cfg"));
    await writeFile(join(dir, "cfg", "00-org.yaml"), ORG);
    await writeFile(join(dir, "cfg", "secret.yaml"), CONTEXTS);
    await chmod(join(dir, "cfg", "secret.yaml"), 0);
    expect(messages(await loadConfig(join(dir, "cfg"), { env: {} }))).toEqual([
      "cannot read the file: permission denied",
    ]);
  });
});

describe.skipIf(!posix)("files that never end", () => {
  it("a FIFO as the config or as a ${file:} target is refused at once", async () => {
    mkfifo(join(dir, "pipe"));
    const direct = await loadConfig(join(dir, "pipe"), { env: {} });
    expect(messages(direct)).toEqual([
      "cannot read the file: it is a FIFO (named pipe), not a regular file",
    ]);
    await writeFile(
      join(dir, "w.yaml"),
      // Relative: issue 43 confines ${file:} to the config folder.
      "org: gh/acme\ncontexts:\n  c:\n    env:\n      A: ${file:pipe}\n",
    );
    expect(messages(await loadConfig(join(dir, "w.yaml"), { env: {} }))[0]).toMatch(
      /it is a FIFO \(named pipe\), not a regular file/,
    );
  });

  it.skipIf(process.platform !== "linux")(
    "/proc/self/pagemap (size 0, gigabytes of content) is read only up to the bound",
    async () => {
      const r = await loadConfig("/proc/self/pagemap", { env: {}, maxFileBytes: 64 * 1024 });
      expect(r.ok ? [] : r.diagnostics.map((d) => d.code)).toEqual(["file_too_large"]);
      // As a ${file:} target it is not even opened: an absolute path is outside the config
      // folder (issue 43).
      await writeFile(
        join(dir, "w.yaml"),
        "org: gh/acme\ncontexts:\n  c:\n    env:\n      A: ${file:/proc/self/pagemap}\n",
      );
      const ref = await loadConfig(join(dir, "w.yaml"), { env: {}, maxFileBytes: 64 * 1024 });
      expect(ref.ok ? [] : ref.diagnostics.map((d) => d.code)).toEqual(["secret_file_outside"]);
    },
  );

  it("readRegularFile reads a regular file whole, and no more than the bound", async () => {
    await writeFile(join(dir, "f"), "x".repeat(100));
    const r = readRegularFile(join(dir, "f"), 100);
    expect(r.ok && r.bytes.length).toBe(100);
    expect(readRegularFile(join(dir, "f"), 99)).toMatchObject({ ok: false, code: "too_large" });
    expect(readRegularFile(dir, 99)).toMatchObject({ ok: false, code: "not_regular" });
    expect(readRegularFile(join(dir, "none"), 99)).toMatchObject({ ok: false, errno: "ENOENT" });
  });
});

describe.skipIf(!posix)("a FIFO as --token-file or as the plan file", () => {
  const io = (): CliIO => ({
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: { SERVICE_BASE_URL: "https://s.example.com" },
  });
  const flags = { config: "w.yaml", parallelism: 1, color: false } as const;

  it("is refused at once with a plain message", async () => {
    mkfifo(join(dir, "pipe"));
    await expect(
      resolveConnection({ ...flags, tokenFile: join(dir, "pipe") }, io()),
    ).rejects.toThrow(/token file .*pipe: it is a FIFO \(named pipe\), not a regular file/);
    await expect(readSavedPlan(join(dir, "pipe"))).rejects.toThrow(
      /plan file .*pipe: it is a FIFO \(named pipe\), not a regular file/,
    );
  });

  it("a token file that is not a token (over 64 KiB) is refused", async () => {
    await writeFile(join(dir, "big"), "t".repeat(70 * 1024), { mode: 0o600 });
    await expect(
      resolveConnection({ ...flags, tokenFile: join(dir, "big") }, io()),
    ).rejects.toThrow(/over 64 KiB/);
  });
});
