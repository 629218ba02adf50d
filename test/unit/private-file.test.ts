/** Issue 21: `plan --out` / `export -o` never write through a planted temp-file symlink. */
import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { writePrivateFile } from "../../src/apply/private-file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-private-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("writePrivateFile", () => {
  it("ignores symlinks planted under the old predictable temp names", async () => {
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "untouched");
    // The names the old writer used, for this process and its neighbours.
    for (const pid of [process.pid, process.pid + 1, process.pid - 1]) {
      await symlink(victim, join(dir, `.plan.json.${pid}.tmp`));
    }
    await writePrivateFile(join(dir, "plan.json"), "the plan");
    expect(await readFile(victim, "utf8")).toBe("untouched");
    expect(await readFile(join(dir, "plan.json"), "utf8")).toBe("the plan");
    expect((await stat(join(dir, "plan.json"))).mode & 0o777).toBe(0o600);
    expect((await lstat(join(dir, "plan.json"))).isSymbolicLink()).toBe(false);
    // No temp file is left behind; the planted links are left alone.
    const left = (await readdir(dir)).filter((n) => n.endsWith(".tmp"));
    expect(left).toHaveLength(3);
  });

  it("uses a fresh random temp name each time, in the target's folder", async () => {
    const names = new Set<string>();
    for (let i = 0; i < 5; i++) {
      await writePrivateFile(join(dir, "out.yaml"), `v${i}`);
    }
    expect(await readFile(join(dir, "out.yaml"), "utf8")).toBe("v4");
    for (const n of await readdir(dir)) names.add(n);
    expect([...names]).toEqual(["out.yaml"]);
  });
});
