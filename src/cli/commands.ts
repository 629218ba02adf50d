import type { RegisterCommand } from "./register-command.js";

/**
 * The commands, in the order `waybill --help` lists them, each loaded when it is needed.
 *
 * Why lazily: a run uses one command, and loading every command's modules (the planner, the
 * API client, the renderers, the lock…) cost ~80 ms of start-up on 2 cores that `validate`,
 * `fmt` or `--version` never use (issue 33: large-org start-up; issue 31: the test suite
 * starts the CLI as a process about 30 times). `main` loads only the command named on the
 * command line; help, completion and anything it does not recognise load them all.
 */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "validate", load: async () => (await import("./validate.js")).registerValidate },
  { name: "plan", load: async () => (await import("./plan.js")).registerPlan },
  { name: "apply", load: async () => (await import("./apply.js")).registerApply },
  { name: "drift", load: async () => (await import("./drift.js")).registerDrift },
  { name: "export", load: async () => (await import("./export.js")).registerExport },
  { name: "pull", load: async () => (await import("./pull.js")).registerPull },
  { name: "fmt", load: async () => (await import("./fmt.js")).registerFmt },
  {
    name: "force-unlock",
    load: async () => (await import("./force-unlock.js")).registerForceUnlock,
  },
  { name: "emulator", load: async () => (await import("./emulator.js")).registerEmulator },
  { name: "show", load: async () => (await import("./show.js")).registerShow },
  { name: "schema", load: async () => (await import("./schema.js")).registerSchema },
  // Completion describes every command: named alone, it still loads them all (below).
  { name: "completion", load: async () => (await import("./completion.js")).registerCompletion },
  { name: "version", load: async () => (await import("./version.js")).registerVersion },
];

/** Commands that need every other command registered to do their work. */
const NEEDS_ALL = new Set(["completion"]);

/**
 * The register functions for a command line: the named command's alone when the first
 * argument names one, none for `--version`, else every command's (root help, `help
 * <command>`, a typo, which commander answers with the list and a suggestion).
 */
export const loadCommands = async (args: readonly string[] = []): Promise<RegisterCommand[]> => {
  const first = args.find((a) => !a.startsWith("-"));
  // `waybill --version` is the program's own option: no command is needed.
  const versionOnly =
    first === undefined &&
    args.some((a) => a === "-V" || a === "--version") &&
    !args.some((a) => a === "-h" || a === "--help");
  if (versionOnly) return [];
  const named = COMMANDS.find((c) => c.name === first);
  const wanted = named === undefined || NEEDS_ALL.has(named.name) ? COMMANDS : [named];
  return Promise.all(wanted.map((c) => c.load()));
};
