/**
 * `waybill completion bash|zsh|fish` (issue 20). The bash script is loaded into a real bash
 * and asked to complete, as the shell would (COMP_WORDS/COMP_CWORD, then the function); zsh
 * and fish scripts are parsed by those shells and fish is asked to complete too, when the
 * shell is installed (`apt-get install zsh fish`: the test says when it skipped them). The
 * scripts come from the registered commands, so every command and option is in them.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { loadCommands } from "../../src/cli/commands.js";
import { buildProgram } from "../../src/cli/main.js";
import { makeTempDir } from "../helpers/cli.js";
import { runInProcess } from "../helpers/in-process.js";

const has = (shell: string): boolean => spawnSync(shell, ["-c", "exit 0"]).status === 0;

const script = async (shell: string): Promise<string> => {
  const r = await runInProcess(["completion", shell], {});
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

/** Every command name and long option the program registers (what the scripts must offer). */
const registered = async (): Promise<{ commands: string[]; options: string[] }> => {
  const sink = { write: () => true } as unknown as NodeJS.WritableStream;
  const program = buildProgram(
    { stdin: process.stdin, stdout: sink, stderr: sink, env: {} },
    () => undefined,
    await loadCommands(),
  );
  const commands = program.commands.map((c) => c.name()).filter((n) => n !== "help");
  const options = program.commands.flatMap((c) => c.options.map((o) => o.long ?? ""));
  return { commands, options };
};

describe("waybill completion", () => {
  it("bash: completes commands, options, option values and arguments", async () => {
    const tmp = await makeTempDir("waybill-completion-");
    try {
      const file = await tmp.write("waybill.bash", await script("bash"));
      // One bash for every case (a bash start costs seconds on a loaded machine): each
      // case prints its words, then a separator line.
      const cases: string[][] = [];
      const complete = (...words: string[]): number => cases.push(words) - 1;
      const results = (): string[][] => {
        const body = cases
          .map((words) => {
            const quoted = words.map((w) => `'${w}'`).join(" ");
            return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _waybill; printf '%s\\n' "\${COMPREPLY[@]}"; echo '--'`;
          })
          .join("\n");
        const r = spawnSync("bash", ["-c", `source '${file}'\n${body}`], { encoding: "utf8" });
        expect(r.stderr).toBe("");
        return r.stdout
          .split("--\n")
          .slice(0, cases.length)
          .map((chunk) => chunk.split("\n").filter((l) => l !== ""));
      };
      const { commands } = await registered();
      const all = complete("waybill", "");
      const show = complete("waybill", "s");
      const planF = complete("waybill", "plan", "--f");
      const planFormat = complete("waybill", "plan", "--format", "");
      const validateG = complete("waybill", "validate", "--format", "g");
      const shells = complete("waybill", "completion", "");
      const showM = complete("waybill", "show", "--format", "m");
      const path = complete("waybill", "plan", "-c", "");
      const afterOption = complete("waybill", "apply", "--auto-approve", "--allow-mass-d");
      const got = results();
      expect(got[all]).toEqual(expect.arrayContaining([...commands, "--version", "--help"]));
      expect(got[show]).toEqual(["show", "schema"]);
      expect(got[planF]).toEqual(["--format", "--force-secrets"]);
      expect(got[planFormat]).toEqual(["text", "json", "markdown", "github"]);
      expect(got[validateG]).toEqual(["github"]);
      expect(got[shells]).toEqual(["bash", "zsh", "fish"]);
      expect(got[showM]).toEqual(["markdown"]);
      // A free value (a path): no words of ours, so bash falls back to file names.
      expect(got[path]).toEqual([]);
      // Options after the command are not mistaken for it.
      expect(got[afterOption]).toEqual(["--allow-mass-delete"]);
    } finally {
      await tmp.remove();
    }
  });

  it("every script names every command and long option", async () => {
    const { commands, options } = await registered();
    for (const shell of ["bash", "zsh", "fish"]) {
      const text = await script(shell);
      for (const c of commands) expect(text, `${shell}: ${c}`).toContain(c);
      for (const o of options) {
        // fish writes `-l name` for `--name`.
        expect(text, `${shell}: ${o}`).toContain(shell === "fish" ? `-l ${o.slice(2)}` : o);
      }
    }
  });

  it.skipIf(!has("zsh"))("zsh: the script parses, and registers _waybill for waybill", async () => {
    const tmp = await makeTempDir("waybill-completion-");
    try {
      const file = await tmp.write("_waybill", await script("zsh"));
      expect(spawnSync("zsh", ["-n", file], { encoding: "utf8" }).stderr).toBe("");
      const r = spawnSync(
        "zsh",
        [
          "-f",
          "-c",
          `autoload -Uz compinit && compinit -u -D && source '${file}' && print -r -- $_comps[waybill]`,
        ],
        { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: tmp.dir } },
      );
      expect(r.stdout.trim(), r.stderr).toBe("_waybill");
    } finally {
      await tmp.remove();
    }
  });

  it.skipIf(!has("fish"))("fish: the script parses and completes commands and values", async () => {
    const tmp = await makeTempDir("waybill-completion-");
    try {
      const file = await tmp.write("waybill.fish", await script("fish"));
      const complete = (line: string): string[] => {
        const r = spawnSync(
          "fish",
          ["--no-config", "-c", `source '${file}'; complete -C '${line}'`],
          { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: tmp.dir } },
        );
        expect(r.stderr).toBe("");
        return r.stdout
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => l.split("\t")[0] ?? "");
      };
      expect(complete("waybill sh")).toEqual(["show"]);
      expect(complete("waybill sc")).toEqual(["schema"]);
      expect(complete("waybill plan --format ")).toEqual(["json", "markdown", "text"]);
      expect(complete("waybill completion ")).toEqual(["bash", "fish", "zsh"]);
    } finally {
      await tmp.remove();
    }
  });

  it("refuses an unknown shell (exit 1)", async () => {
    const r = await runInProcess(["completion", "powershell"], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
