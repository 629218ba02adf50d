import type { Command } from "commander";
import type { CliIO } from "./io.js";

/**
 * A command registers itself on the program; its action reports its exit code. Its own file,
 * so a command module and the list of commands (commands.ts) do not import each other.
 */
export type RegisterCommand = (
  program: Command,
  io: CliIO,
  setExit: (code: number) => void,
) => void;
