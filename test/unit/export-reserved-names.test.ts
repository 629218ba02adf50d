/**
 * A live item named `__proto__` (or `constructor`, `prototype`) cannot be a key in the config
 * (issue 28: the loader refuses it). Export leaves it under `ignore` with why, instead of
 * writing `contexts["__proto__"] = …`, which set the map's prototype and dropped the context
 * without a word (found by the export property test).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { buildExport, renderSingle } from "../../src/export/index.js";
import { type NestedSnapshot, snapshotOf } from "../helpers/export-snapshot.js";

const snapshot = {
  org: { id: "00000000-0000-4000-8000-000000000001", slug: "gh/p" },
  settings: { enable_private_orbs: true },
  contexts: [
    { id: "c0", name: "__proto__", env: ["TOKEN"], restrictions: [] },
    { id: "c1", name: "constructor", env: [], restrictions: [] },
    { id: "c2", name: "deploy", env: ["__proto__", "KEY"], restrictions: [] },
  ],
  projects: [
    {
      id: "p",
      slug: "gh/p/app",
      settings: {},
      env: [],
      webhooks: [],
      pipelines: [
        {
          id: "pl",
          name: "build",
          description: "d",
          config: { type: "hosted", file_path: ".x/config.yml", hosted: { provider: "x" } },
          checkout: { vcs: { provider: "github_app", repo_id: "1", repo_full_name: "a/b" } },
          synthetic: false,
        },
      ],
      triggers: [
        {
          id: "t",
          pipeline_id: "pl",
          synthetic: false,
          is_disabled: false,
          config: { ref: "main" },
          checkout: { ref: "main" },
          event: {
            type: "schedule",
            schedule: { name: "constructor", cron_expression: "0 1 * * *" },
          },
          parameters: {},
        },
      ],
    },
  ],
} as unknown as NestedSnapshot;

describe("export of live names the config reserves", () => {
  it("leaves them under ignore, says why, and writes a config that loads", async () => {
    const result = buildExport(snapshotOf(snapshot), { inlineUrls: true });
    const yaml = renderSingle(result, { exportedAt: new Date(0), baseUrl: "https://x" });
    expect(result.warnings.join("\n")).toMatch(/"__proto__" as a key/);
    expect(result.warnings.join("\n")).toMatch(/"constructor" as a key/);
    expect(yaml).toContain('  - context["__proto__"]');
    expect(yaml).toContain('  - context["constructor"]');
    const dir = await mkdtemp(join(tmpdir(), "waybill-reserved-"));
    try {
      const file = join(dir, "e.yaml");
      await writeFile(file, yaml);
      const env = Object.fromEntries(result.envVars.map((v) => [v.name, "value"]));
      const loaded = await loadConfig(file, { env });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
      const contexts = loaded.config.orgs[0]?.contexts;
      expect([...(contexts?.keys() ?? [])]).toEqual(["deploy"]);
      expect([...(contexts?.get("deploy")?.env?.keys() ?? [])]).toEqual(["KEY"]);
      expect(loaded.config.orgs[0]?.ignore).toEqual(
        expect.arrayContaining([
          'context["__proto__"]',
          'context["constructor"]',
          'context["deploy"].env["__proto__"]',
          'project["gh/p/app"].pipeline["build"].trigger["constructor"]',
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
