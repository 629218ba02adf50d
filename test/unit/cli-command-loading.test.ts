/**
 * The CLI loads the command it runs, not every command (src/cli/commands.ts): a run of
 * `validate` does not load the planner, the API client or the renderers. Help, completion
 * and an unknown word load them all, so the lists and suggestions stay whole.
 */
import { describe, expect, it } from "vitest";
import { COMMANDS, loadCommands } from "../../src/cli/commands.js";
import { runInProcess } from "../helpers/in-process.js";

describe("loading the CLI's commands", () => {
  it("loads only the command named on the command line", async () => {
    expect(await loadCommands(["validate", "-c", "x.yaml"])).toHaveLength(1);
    expect(await loadCommands(["plan", "--help"])).toHaveLength(1);
    expect(await loadCommands(["--version"])).toHaveLength(0);
    const version = await runInProcess(["--version"], {});
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("loads every command for help, completion and a word it does not know", async () => {
    for (const args of [
      [],
      ["--help"],
      ["--version", "--help"],
      ["help", "plan"],
      ["completion", "bash"],
      ["plna"],
    ]) {
      expect(await loadCommands(args), args.join(" ")).toHaveLength(COMMANDS.length);
    }
  });

  it("still lists every command in the root help and suggests one for a typo", async () => {
    const help = await runInProcess(["--help"], {});
    for (const { name } of COMMANDS) expect(help.stdout).toContain(`  ${name}`);
    const typo = await runInProcess(["plna"], {});
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("(Did you mean plan?)");
  });

  it("names each command once, as its module registers it", async () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const entry of COMMANDS) {
      const registered: string[] = [];
      const register = await entry.load();
      register(
        { command: (name: string) => registered.push(name.split(" ")[0] ?? "") && stub } as never,
        {} as never,
        () => undefined,
      );
      expect(registered, entry.name).toEqual([entry.name]);
    }
  });
});

/** A commander Command stand-in whose every method returns itself. */
const stub: unknown = new Proxy(() => stub, { get: () => () => stub });
