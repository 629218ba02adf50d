/**
 * The layers of docs/architecture.md are enforced by biome's `noRestrictedImports`, one
 * override per folder in biome.json. This runs the real biome, with the repository's own
 * biome.json, on probe files laid out like src/: every wrong-way import must be reported and
 * every right-way one must pass, so a rule that stops matching (a pattern typo, a folder
 * renamed) fails here instead of silently letting a cycle back in.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(new URL(import.meta.url).pathname), "..", "..");
const biome = createRequire(join(root, "package.json")).resolve("@biomejs/biome/bin/biome");

/** probe file (under src/; `../emulator/src/…` for the emulator) → its one import line. */
const wrongWay: Record<string, string> = {
  "core/probe.ts": `import { x } from "../model/desired.js";`,
  "model/probe.ts": `import { x } from "../cli/main.js";`,
  "model/probe-api.ts": `import type { x } from "../api/types.js";`,
  "api/probe.ts": `import { x } from "../model/desired.js";`,
  "kinds/probe.ts": `import { x } from "../plan/plan.js";`,
  "plan/probe.ts": `import type { x } from "../api/types.js";`,
  "config/probe.ts": `import { x } from "../live/resolve.js";`,
  "render/probe.ts": `import { x } from "../api/client.js";`,
  "lock/probe.ts": `import { x } from "../live/resolve.js";`,
  "live/probe.ts": `import { x } from "../config/diagnostic.js";`,
  "live/probe-apply.ts": `import { x } from "../apply/executor.js";`,
  "apply/probe.ts": `import { x } from "../config/digest.js";`,
  "apply/probe-live.ts": `import { x } from "../live/read-live-state.js";`,
  "export/probe.ts": `export { x } from "../cli/main.js";`,
  "run/probe.ts": `import { x } from "../cli/main.js";`,
  "pull/probe.ts": `import { x } from "../run/plan-run.js";`,
  "policy/probe.ts": `import { x } from "../render/policy.js";`,
  "policy/probe-config.ts": `import { x } from "../config/policies.js";`,
  "pull/probe-api.ts": `import type { x } from "../api/types.js";`,
  "../emulator/src/probe.ts": `import { x } from "../../src/model/errors.js";`,
  "../emulator/src/probe-core.ts": `import type { x } from "../../src/core/wire.js";`,
  "../emulator/src/families/probe.ts": `import type { x } from "../../../src/api/types.js";`,
  "cli/probe-emulator.ts": `import { x } from "#emulator";`,
  "cli/probe-emulator-path.ts": `import { x } from "../../emulator/src/index.js";`,
  "plan/probe-emulator.ts": `import type { x } from "#emulator";`,
  "main-probe.ts": `import { x } from "#emulator";`,
  "model/sub/probe.ts": `import { x } from "../../cli/main.js";`,
};

const rightWay: Record<string, string> = {
  "core/ok.ts": `import { x } from "./errors.js";`,
  "model/ok.ts": `import { x } from "../core/secret.js";`,
  "api/ok.ts": `import type { x } from "../core/wire.js";`,
  "kinds/ok.ts": `import type { x } from "../api/types.js";`,
  "plan/ok.ts": `import { x } from "../kinds/registry.js";`,
  "config/ok.ts": `import { x } from "../kinds/registry.js";`,
  "render/ok.ts": `import { x } from "../plan/types.js";`,
  "live/ok.ts": `import { x } from "../lock/claim.js";`,
  "apply/ok.ts": `import { x } from "../plan/types.js";`,
  "export/ok.ts": `import { x } from "../live/resolve.js";`,
  "run/ok.ts": `import { x } from "../config/diagnostic.js";`,
  "policy/ok.ts": `import { x } from "../plan/types.js";\nimport { y } from "../kinds/registry.js";`,
  "pull/ok.ts": `import { x } from "../export/build.js";\nimport { y } from "../config/schema-check.js";`,
  "cli/emulator.ts": `import { x } from "#emulator";`,
  "../emulator/src/ok.ts": `import type { VcsRepoWire } from "./wire.js";`,
  "../emulator/src/families/ok.ts": `import { x } from "../store.js";\nimport type { y } from "../wire.js";`,
};

let dir: string;
let reported: Set<string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-layers-"));
  // The repository's config as it is; only VCS is off (the probe folder is not a git tree).
  const config = JSON.parse(await readFile(join(root, "biome.json"), "utf8"));
  config.$schema = undefined;
  config.vcs = { enabled: false };
  await writeFile(join(dir, "biome.json"), JSON.stringify(config));
  for (const [file, line] of Object.entries({ ...wrongWay, ...rightWay })) {
    const path = join(dir, "src", file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${line}\n`);
  }
  const run = await promisify(execFile)(
    process.execPath,
    [biome, "lint", "--reporter=json", "--only=style/noRestrictedImports", "src", "emulator"],
    { cwd: dir },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
  const out = JSON.parse(run.stdout) as {
    diagnostics: { category: string; location: { path: string } }[];
  };
  reported = new Set(
    out.diagnostics
      .filter((d) => d.category === "lint/style/noRestrictedImports")
      .map((d) => d.location.path.replace(/^src\//, "").replace(/^emulator\//, "../emulator/")),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const normal = (file: string): string => join(file).replace(/\\/g, "/");

describe("layers enforced by lint (biome.json overrides)", () => {
  it.each(Object.keys(wrongWay))("reports the wrong-way import in src/%s", (file) => {
    expect(reported).toContain(normal(file));
  });

  it("reports nothing for the imports the layers allow", () => {
    expect(Object.keys(rightWay).filter((f) => reported.has(normal(f)))).toEqual([]);
  });
});
