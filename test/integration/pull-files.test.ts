/**
 * `pull` never damages the user's files (issue 41 "Files are the user's"), against the
 * emulator: `--into` names one of the config's files (any spelling) or a new file the next
 * plan reads; the config spelled another way is the config, not a new file to create; an
 * existing file that is not config, a file outside the config folder, and a new file beside
 * a `-c FILE` are refused before anything is written.
 */
import { readFile, writeFile } from "node:fs/promises";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import {
  API_ID,
  baseSeed,
  matchingConfig,
  matchingEnv,
  ORG_ID,
  PIPELINE_BUILD_ID,
} from "./plan-fixture.js";

describe("pull --into", () => {
  const suite = useEmulatorSuite(baseSeed, {
    config: { name: "infra/waybill.yaml", content: matchingConfig },
  });
  const cli = (args: string[], cwd?: string) =>
    runCli(args, {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
      ...(cwd !== undefined ? { cwd } : {}),
    });
  beforeEach(async () => {
    await writeFile(suite.files.config, matchingConfig);
  });
  const handMade = async (name: string) => {
    const r = await suite.emulator.call("POST", "/api/v3/contexts", {
      data: { attributes: { name }, references: { org: { id: ORG_ID } } },
    });
    expect(r.status).toBe(201);
  };

  it("the config under another spelling is the config: the item is added to it, nothing else changes", async () => {
    await handMade("made-by-hand");
    const before = await readFile(suite.files.config, "utf8");
    const folder = suite.tmp.path("infra");
    const r = await cli(["pull", "-c", "waybill.yaml", "--into", "./waybill.yaml"], folder);
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.code).toBe(0);
    const after = await readFile(suite.files.config, "utf8");
    expect(after.startsWith(before.split("ignore:")[0] as string)).toBe(true);
    expect(after).toContain("made-by-hand:");
    // What the service gave the new context (all members may use it) is not drift.
    expect(after).not.toContain("restrictions: []");
    expect(after).toContain("deploy-prod:");
    expect(after).toContain("gh/acme/api:");
    const plan = await cli(["plan", "--detailed-exitcode", "-c", suite.files.config]);
    expect(plan.stdout).not.toMatch(/delete/);
    expect(plan.code).toBe(0);
  });

  it("refuses an existing file that is not config, a file outside the config folder, and a new file beside -c FILE; nothing is written", async () => {
    await handMade("made-by-hand");
    const notes = await suite.tmp.write("infra/notes.md", "title: not a config\n");
    const outside = suite.tmp.path("elsewhere.yaml");
    const folder = suite.tmp.path("infra");
    const before = await readFile(suite.files.config, "utf8");
    const cases: [string[], RegExp][] = [
      [["-c", folder, "--into", notes], /exists and is not a file of the config/],
      [["-c", folder, "--into", outside], /outside the config folder/],
      [["-c", suite.files.config, "--into", suite.tmp.path("infra/new.yaml")], /-c names a file/],
    ];
    for (const [args, why] of cases) {
      const r = await cli(["pull", ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/nothing was written/);
    }
    expect(await readFile(notes, "utf8")).toBe("title: not a config\n");
    expect(await readFile(suite.files.config, "utf8")).toBe(before);
    await expect(readFile(outside, "utf8")).rejects.toThrow(/ENOENT/);
    // A new file inside the folder -c names is read by the next plan: accepted.
    const ok = await cli(["pull", "-c", folder, "--into", suite.tmp.path("infra/pulled.yaml")]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await readFile(suite.tmp.path("infra/pulled.yaml"), "utf8")).toContain("made-by-hand");
  });

  it("a multi-line live value is one quoted scalar, the rest of the pull goes on, and live names are escaped on stderr", async () => {
    await writeFile(
      suite.files.config,
      matchingConfig.replace(
        "      build:\n        config:",
        "      build:\n        description: Build and test # the pipeline\n        config:",
      ),
    );
    const hostile = "line one\nline two: [x]\n# not a comment";
    const seeded = await suite.emulator.call(
      "POST",
      `/api/v3/pipelines/${PIPELINE_BUILD_ID}/update`,
      {
        description: hostile,
      },
    );
    expect(seeded.status).toBe(200);
    const settings = await suite.emulator.call(
      "POST",
      `/api/v3/projects/${API_ID}/update-settings`,
      {
        enable_auto_cancel_redundant_workflows: true,
      },
    );
    expect(settings.status).toBe(200);
    const made = await suite.emulator.call("POST", "/api/v3/contexts", {
      data: { attributes: { name: "evil\u202ename" }, references: { org: { id: ORG_ID } } },
    });
    const id = (made.body as { data: { id: string } }).data.id;
    await suite.emulator.call("POST", `/api/v3/contexts/${id}/env-vars/set`, {
      name: "K",
      value: "a-secret-value-0000",
    });
    const r = await cli(["pull", "-c", suite.files.config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("\u202e");
    expect(r.stderr).toContain("evil\\u202ename");
    const after = await readFile(suite.files.config, "utf8");
    expect(after).toContain(`description: ${JSON.stringify(hostile)} # the pipeline`);
    expect(after).toContain("enable_auto_cancel_redundant_workflows: true");
    const plan = await cli([
      "plan",
      "--skip-secrets",
      "--format",
      "json",
      "-c",
      suite.files.config,
    ]);
    const changes = (JSON.parse(plan.stdout) as { changes: { address: string }[] }).changes;
    // Everything pulled, the multi-line description included: nothing left to change.
    expect(changes.map((c) => c.address)).toEqual([]);
  });
});
