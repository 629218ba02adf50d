/**
 * Issue 46: a `moved` entry's `to` must be an item the config declares, in any file of the
 * config's folder (the planner matches the live `from` item with that declared item).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";

const P = 'project["gh/acme/api"]';
const HOOKS = `org: gh/acme
projects:
  gh/acme/api:
    webhooks:
      slack-alerts:
        url: https://hooks.example.com/services/T1
        events: [workflow-completed]
`;

/** The hooks file (with `extra` lines under its webhook) and a file of `org` that moves it. */
const writeFolder = async (dir: string, org: string, extra = ""): Promise<string> => {
  await writeFile(join(dir, "hooks.yaml"), `${HOOKS}${extra}`);
  const moves = join(dir, "moves.yaml");
  await writeFile(
    moves,
    `org: ${org}\nmoved:\n  - from: ${P}.webhook["slack"]\n    to: ${P}.webhook["slack-alerts"]\n`,
  );
  return moves;
};

describe("moved: the `to` the config declares", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "waybill-moved-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is found in another file of the folder", async () => {
    await writeFolder(dir, "gh/acme");
    const r = await loadConfig(dir, { env: {} });
    expect(r.ok ? [] : r.diagnostics).toEqual([]);
  });

  it("is checked in the org of the entry: an item of another org does not count", async () => {
    const moves = await writeFolder(dir, "gh/other");
    const r = await loadConfig(dir, { env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.map((d) => [d.file, d.line, d.col, d.code])).toEqual([
      [moves, 4, 9, "invalid_moved"],
    ]);
    expect(r.diagnostics[0]?.message).toContain("is not declared in the config of org gh/other");
  });

  it("is not reported while a file has other problems (its items would look undeclared)", async () => {
    await writeFolder(dir, "gh/acme", "        nonsense: 1\n");
    const r = await loadConfig(dir, { env: {} });
    expect(r.ok ? [] : r.diagnostics.map((d) => d.code)).not.toContain("invalid_moved");
    expect(r.ok).toBe(false);
  });
});
