/**
 * `--exclude ADDRESS_GLOB` (design.md §5 "Scoped plans and the reviewed plan"), beside
 * `--target`: plan and apply leave out what a glob matches (and what needs it first); a
 * saved plan whose changes its own globs would leave out is refused; drift leaves the
 * unmanaged items a glob matches out of its list; a malformed glob is refused before any
 * request. CLI in-process against the emulator.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const URL_ = "https://hooks.example.com/services/T44/B44/excludePath";
const seed = (): Seed => ({
  orgs: [
    {
      slug: "gh/acme",
      name: "acme",
      projects: [{ slug: "gh/acme/api" }, { slug: "gh/acme/web" }],
    },
  ],
});
const config = [
  "org: gh/acme",
  "projects:",
  ...["api", "web"].flatMap((p) => [
    `  gh/acme/${p}:`,
    "    webhooks:",
    "      slack:",
    `        url: ${URL_}`,
    "        events: [workflow-completed]",
  ]),
  "",
].join("\n");

describe("--exclude", () => {
  const suite = useEmulatorSuite(seed, { config: { name: "waybill.yaml", content: config } });
  const run = (args: readonly string[]) =>
    runInProcess(args, {
      SERVICE_BASE_URL: suite.emulator.url,
      SERVICE_TOKEN: suite.emulator.token,
      NO_COLOR: "1",
    });
  const webhookWrites = async () =>
    (await suite.emulator.requests()).filter(
      (r) => r.method === "POST" && r.route.includes("webhooks"),
    );

  it("plan leaves out what the glob matches, says so, and records the glob in JSON", async () => {
    const r = await run([
      "plan",
      "-c",
      suite.files.config,
      "--format",
      "json",
      "--exclude",
      'project["gh/acme/web"]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      changes: { address: string }[];
      excludes: string[];
      warnings: string[];
    };
    expect(plan.changes.map((c) => c.address)).toEqual(['project["gh/acme/api"].webhook["slack"]']);
    expect(plan.excludes).toEqual(['project["gh/acme/web"]']);
    expect(plan.warnings.join("\n")).toContain("--exclude");
  });

  it("apply writes nothing the glob matches", async () => {
    const r = await run([
      "apply",
      "-c",
      suite.files.config,
      "--auto-approve",
      "--exclude",
      'project["*/api"].webhook["*"]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(await webhookWrites()).toHaveLength(1);
    const state = await suite.emulator.state();
    const hooks = (slug: string) =>
      state.orgs?.[0]?.projects?.find((p) => p.slug === slug)?.webhooks ?? [];
    expect(hooks("gh/acme/api")).toEqual([]);
    expect(hooks("gh/acme/web").map((w) => w.name)).toEqual(["slack"]);
  });

  it("apply refuses a saved plan that lists a change its own --exclude leaves out (edited after plan --out)", async () => {
    const file = suite.tmp.path("excluded.json");
    const all = suite.tmp.path("all.json");
    const web = ["--exclude", 'project["gh/acme/web"]'];
    expect((await run(["plan", "-c", suite.files.config, ...web, "--out", file])).code).toBe(0);
    expect((await run(["plan", "-c", suite.files.config, "--out", all])).code).toBe(0);
    type Saved = { plan: { changes: { address: string }[]; summary: { create: number } } };
    const saved = JSON.parse(await readFile(file, "utf8")) as Saved;
    const full = JSON.parse(await readFile(all, "utf8")) as Saved;
    // The web change the glob left out, put back, with the summary to match.
    saved.plan.changes = full.plan.changes;
    saved.plan.summary = full.plan.summary;
    await writeFile(file, JSON.stringify(saved));
    await suite.emulator.clearRequests();
    const r = await run(["apply", "-c", suite.files.config, file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the saved plan disagrees with itself, so it was not written by `waybill plan --out` as it is: its --exclude project["gh/acme/web"] leaves out 1 of its 2 changes',
    );
    expect(await webhookWrites()).toEqual([]);
  });

  it.each([['project["gh/acme/web"'], [""], ['project["a]']])(
    "a malformed glob (%s) is refused before any request",
    async (glob) => {
      const r = await run(["plan", "-c", suite.files.config, "--exclude", glob]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("is not an address glob");
      expect(await suite.emulator.requests()).toEqual([]);
    },
  );
});
