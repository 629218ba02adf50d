/** Issue 21: a value like `$NAME` (shell habit) is stored literally: validate and plan warn. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { shellVariableWarnings } from "../../src/config/shell-vars.js";

describe("shell-style values", () => {
  it("warn with the place and the fix; ${env:} values and ordinary text do not", async () => {
    const dir = await mkdtemp(join(tmpdir(), "waybill-shell-"));
    try {
      const file = join(dir, "w.yaml");
      await writeFile(
        file,
        "org: gh/acme\ncontexts:\n  c:\n    env:\n      A: $AWS_KEY\n      B: ${env:REAL}\n      C: price is $5\nprojects:\n  gh/acme/api:\n    env:\n      D: $NPM\n",
      );
      const r = await loadConfig(file, { env: { REAL: "real-value-123" } });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const warnings = shellVariableWarnings(r.config);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('the value "$AWS_KEY" is stored as written');
      expect(warnings[0]).toContain("${env:AWS_KEY}");
      expect(warnings[0]).toMatch(/w\.yaml:\d+:\d+: /);
      expect(warnings[1]).toContain("${env:NPM}");
      // ${NAME} is refused by the loader already (a reference must name env: or file:).
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
