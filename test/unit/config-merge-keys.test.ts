/**
 * Issue 19: YAML merge keys (`<<`) and top-level `x-` keys, for reuse inside one file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-merge-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const load = async (text: string) => {
  const path = join(dir, "waybill.yaml");
  await writeFile(path, text);
  return loadConfig(path, { env: {} });
};

describe("merge keys and x- keys", () => {
  it("merges an anchored map; keys written beside the merge key win", async () => {
    const r = await load(`x-common: &common
  enable_auto_cancel_redundant_workflows: true
x-hook: &hook
  url: https://hooks.example.com/services/T0
  events: [workflow-completed]
org: gh/acme
projects:
  gh/acme/api:
    settings: { <<: *common }
    webhooks:
      slack:
        <<: *hook
        events: [job-completed]
`);
    expect(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics)).toBe(true);
    if (!r.ok) return;
    const project = r.config.orgs[0]?.projects.get("gh/acme/api");
    expect(project?.settings).toMatchObject({ enable_auto_cancel_redundant_workflows: true });
    const hook = project?.webhooks?.get("slack");
    expect(hook?.url).toBe("https://hooks.example.com/services/T0");
    expect(hook?.events).toEqual(["job-completed"]);
  });

  it("a merge key that is not a map is an error at its line", async () => {
    const r = await load("org: gh/acme\nx-a:\n  <<: 5\n");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        line: 3,
        col: 3,
        message: expect.stringContaining("a merge key (<<) takes a map"),
      }),
    ]);
  });

  it("a top-level key that starts with x- is ignored; any other unknown key is still an error", async () => {
    expect((await load("org: gh/acme\nx-anything: [1, {a: b}]\n")).ok).toBe(true);
    const r = await load("org: gh/acme\ny-anything: 1\n");
    expect(r.ok).toBe(false);
  });

  it("a merged value that breaks the schema is reported inside the item that merges it", async () => {
    const r = await load(`x-hook: &hook
  url: not-a-url
  events: [workflow-completed]
org: gh/acme
projects:
  gh/acme/api:
    webhooks:
      slack:
        <<: *hook
`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics[0]).toMatchObject({ line: 8, path: expect.stringContaining("slack") });
  });
});
