import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerApply: RegisterCommand = (program, io, setExit) => {
  program
    .command("apply")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill apply: not built yet\n");
      setExit(1);
    });
};
