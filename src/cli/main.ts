import { Command, CommanderError } from "commander";
import { stripControls } from "../core/controls.js";
import { WaybillError } from "../core/errors.js";
import { loadCommands } from "./commands.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";
import { VERSION } from "./version.js";

// The examples are run by test/integration/docs-help.test.ts, like every command's.
const ROOT_HELP = `
Examples:
  # Check a config offline, then see what would change (exit 2 when something would)
  $ waybill validate -c infra/waybill.yaml
  $ waybill plan -c infra/waybill.yaml --detailed-exitcode

  # Start from what exists today: the org's live configuration as YAML, one file per project
  $ waybill export --org gh/acme --all-projects -o infra/waybill/

The service: env SERVICE_BASE_URL (its root URL) and SERVICE_TOKEN (or --token-file PATH).
Run 'waybill <command> --help' for a command's options, examples and exit codes.
`;

/**
 * Build the commander program. Each command lives in its own file and registers itself
 * (src/cli/commands.ts, `loadCommands`); a command's action resolves with its exit code
 * through `setExit`.
 */
export const buildProgram = (
  io: CliIO,
  setExit: (code: number) => void,
  commands: readonly RegisterCommand[],
): Command => {
  const program = new Command("waybill")
    .description(
      "Keep a CI/CD service's configuration in Git: validate, plan, apply, audit drift, export.",
    )
    .version(VERSION, "-V, --version")
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText("after", ROOT_HELP);
  for (const register of commands) register(program, io, setExit);
  return program;
};

/** Run the CLI; resolves with the process exit code. Never throws. */
export const main = async (argv: readonly string[], io: CliIO): Promise<number> => {
  let exitCode: number = EXIT.ok;
  try {
    const commands = await loadCommands(argv.slice(2));
    const program = buildProgram(
      io,
      (code) => {
        exitCode = code;
      },
      commands,
    );
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0 through commander; usage errors were already printed.
      return err.exitCode === 0 ? EXIT.ok : EXIT.error;
    }
    if (err instanceof WaybillError) {
      // Issue 30: a message may quote a live name or a file's text: no control characters.
      io.stderr.write(`Error: ${stripControls(err.message)}\n`);
      return exitCodeFor(err);
    }
    // An unexpected failure: say so plainly, without a stack trace unless asked for.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`Error: unexpected failure: ${stripControls(message)}\n`);
    if (io.env.WAYBILL_DEBUG && err instanceof Error && err.stack)
      io.stderr.write(`${err.stack}\n`);
    return EXIT.error;
  }
};
