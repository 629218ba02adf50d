/**
 * A user's file is written whole or not at all (src/core/write-atomic.ts, the one writer of
 * pull, fmt and export): a write that fails half-way (a full disk, made to fail through the
 * writer's one seam on the real path) leaves the file as it was and no temporary file; the
 * mode is kept; a config file that is a symlink stays one.
 */
import { lstat, readdir, readFile, readlink, stat, symlink } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { writeFileAtomic, writeUserFile } from "../../src/core/write-atomic.js";
import { makeTempDir } from "../helpers/cli.js";

const ORIGINAL = `org: gh/acme\ncontexts:\n${Array.from({ length: 200 }, (_, i) => `  c${i}: {}\n`).join("")}`;

describe("the atomic writer", () => {
  it("leaves the original whole when the disk fills half-way through the write", async () => {
    const tmp = await makeTempDir("waybill-atomic-");
    try {
      const file = await tmp.write("waybill.yaml", ORIGINAL, 0o640);
      const next = ORIGINAL.replace("c0: {}", "c0: { env: {} }");
      const diskFull = new Error("ENOSPC: no space left on device, write") as Error & {
        code: string;
      };
      diskFull.code = "ENOSPC";
      let wrote = 0;
      await expect(
        writeUserFile(file, next, async (handle, bytes) => {
          // Half the bytes reach the disk, then it is full.
          const half = bytes.subarray(0, Math.floor(bytes.length / 2));
          wrote = (await handle.write(half)).bytesWritten;
          throw diskFull;
        }),
      ).rejects.toThrow(/ENOSPC/);
      expect(wrote).toBeGreaterThan(0);
      expect(await readFile(file, "utf8")).toBe(ORIGINAL);
      expect((await stat(file)).mode & 0o777).toBe(0o640);
      expect(await readdir(tmp.dir)).toEqual(["waybill.yaml"]);
    } finally {
      await tmp.remove();
    }
  });

  it("keeps the file's mode, gives a new one the usual mode, and a fixed mode when asked", async () => {
    const tmp = await makeTempDir("waybill-atomic-");
    try {
      const file = await tmp.write("a.yaml", "org: x\n", 0o604);
      await writeFileAtomic(file, "org: y\n");
      expect(await readFile(file, "utf8")).toBe("org: y\n");
      expect((await stat(file)).mode & 0o777).toBe(0o604);
      await writeFileAtomic(tmp.path("plan.json"), "{}", { mode: 0o600 });
      expect((await stat(tmp.path("plan.json"))).mode & 0o777).toBe(0o600);
      await writeFileAtomic(tmp.path("new.yaml"), "org: z\n");
      expect((await stat(tmp.path("new.yaml"))).mode & 0o600).toBe(0o600);
    } finally {
      await tmp.remove();
    }
  });

  it("writes a config file that is a symlink where it points, and the link stays a link", async () => {
    const tmp = await makeTempDir("waybill-atomic-");
    try {
      const real = await tmp.write("parts/real.yaml", "org: x\n");
      await symlink(real, tmp.path("link.yaml"));
      await writeUserFile(tmp.path("link.yaml"), "org: y\n");
      expect((await lstat(tmp.path("link.yaml"))).isSymbolicLink()).toBe(true);
      expect(await readlink(tmp.path("link.yaml"))).toBe(real);
      expect(await readFile(real, "utf8")).toBe("org: y\n");
    } finally {
      await tmp.remove();
    }
  });
});
