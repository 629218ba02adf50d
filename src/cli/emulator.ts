import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerEmulator: RegisterCommand = (program, io, setExit) => {
  program
    .command("emulator")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill emulator: not built yet\n");
      setExit(1);
    });
};
