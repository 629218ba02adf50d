import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerValidate: RegisterCommand = (program, io, setExit) => {
  program
    .command("validate")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill validate: not built yet\n");
      setExit(1);
    });
};
