import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli.js";
import { LONG_FILES } from "../helpers/long-files.js";

describe("the long-first sequencer (vitest.config.ts)", () => {
  it("names only test files that exist: a renamed file would silently start late again", () => {
    expect(LONG_FILES.size).toBeGreaterThan(0);
    expect([...LONG_FILES].filter((f) => !existsSync(join(REPO_ROOT, f)))).toEqual([]);
  });
});
