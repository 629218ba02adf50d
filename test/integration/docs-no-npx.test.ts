/**
 * No doc, help text, example or test tells anyone to run Waybill through npx: one folder
 * away from a checkout, npx fetches the registry's package of that name (not this
 * project's) and runs it with the org token in the environment. The repository is read
 * as git lists it (tracked and untracked files, ignored ones aside), so the build output
 * and node_modules are not scanned. The needle is built by concatenation so this file does
 * not hold it.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";

const NEEDLE = new RegExp(["np", "x"].join("") + String.raw`\s+(?:-y\s+|--yes\s+)?waybill\b`, "i");

describe("no npx in what users read", () => {
  it("no file of the repository says it", async () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f !== "" && f !== "node_modules" && !f.endsWith(".tgz"));
    expect(files).toContain("README.md");
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(join(REPO_ROOT, file), "utf8").catch(() => "");
      if (NEEDLE.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
    // The pattern catches what the README used to say.
    expect(NEEDLE.test(["np", "x waybill plan -c waybill.yaml"].join(""))).toBe(true);
  });

  it("no help text says it", async () => {
    for (const args of [
      ["--help"],
      ["plan", "--help"],
      ["apply", "--help"],
      ["emulator", "--help"],
    ]) {
      const r = await runCli(args);
      expect(NEEDLE.test(r.stdout + r.stderr), args.join(" ")).toBe(false);
    }
  });
});
