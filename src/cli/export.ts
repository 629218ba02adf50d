import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerExport: RegisterCommand = (program, io, setExit) => {
  program
    .command("export")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill export: not built yet\n");
      setExit(1);
    });
};
