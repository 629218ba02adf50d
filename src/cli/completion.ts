/**
 * `waybill completion bash|zsh|fish` (design.md §3 "Distribution and integration"): print a
 * completion script for the shell, built from the commands and options registered on the
 * program, so it can never fall behind them.
 */
import { Argument, type Command, type Option } from "commander";
import {
  type CompletionOption,
  type CompletionSpec,
  completionScript,
  SHELLS,
  type Shell,
} from "./completion-scripts.js";
import { EXIT } from "./exit-codes.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # bash: write the script, then source it from ~/.bashrc
  $ waybill completion bash > waybill.bash

  # zsh: save it as _waybill in a folder of your $fpath
  $ waybill completion zsh > _waybill

Exit codes: 0.
`;

const optionSpec = (o: Option): CompletionOption => ({
  ...(o.short ? { short: o.short } : {}),
  long: o.long ?? o.flags,
  description: o.description,
  value:
    !o.required && !o.optional
      ? "none"
      : o.argChoices
        ? { choices: o.argChoices }
        : o.optional
          ? // `--force-secrets [glob]`: a value is allowed, not needed; no file names.
            "none"
          : "free",
});

/** The completion description of a program: its commands (but `help`), options, arguments. */
export const completionSpec = (program: Command): CompletionSpec => ({
  program: program.name(),
  rootOptions: [
    ...program.options.map(optionSpec),
    { short: "-h", long: "--help", description: "display help", value: "none" },
  ],
  commands: program.commands
    .filter((c) => c.name() !== "help")
    .map((c) => ({
      name: c.name(),
      description: c.description(),
      options: c.options.map(optionSpec),
      args: c.registeredArguments.map((a) => ({
        name: a.name(),
        required: a.required,
        ...(a.argChoices ? { choices: a.argChoices } : {}),
      })),
    })),
});

export const registerCompletion: RegisterCommand = (program, io, setExit) => {
  program
    .command("completion")
    .description(
      "Print a shell completion script (commands, options, option values) for bash, zsh or fish.",
    )
    .addArgument(new Argument("<shell>", "the shell to complete in").choices(SHELLS))
    .addHelpText("after", EXAMPLES)
    .action((shell: Shell) => {
      io.stdout.write(completionScript(shell, completionSpec(program)));
      setExit(EXIT.ok);
    });
};
