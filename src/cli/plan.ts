import type { RegisterCommand } from "./commands.js";

/** Placeholder until its issue lands; prints that it is not built yet. */
export const registerPlan: RegisterCommand = (program, io, setExit) => {
  program
    .command("plan")
    .description("(not built yet)")
    .action(() => {
      io.stderr.write("waybill plan: not built yet\n");
      setExit(1);
    });
};
