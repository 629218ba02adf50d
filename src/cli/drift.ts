import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerDrift: RegisterCommand = (program, io, setExit) => {
  program
    .command("drift")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill drift: not built yet\n");
      setExit(1);
    });
};
