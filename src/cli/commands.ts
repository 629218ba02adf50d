import type { Command } from "commander";
import { registerApply } from "./apply.js";
import { registerCompletion } from "./completion.js";
import { registerDrift } from "./drift.js";
import { registerEmulator } from "./emulator.js";
import { registerExport } from "./export.js";
import { registerForceUnlock } from "./force-unlock.js";
import type { CliIO } from "./io.js";
import { registerPlan } from "./plan.js";
import { registerSchema } from "./schema.js";
import { registerShow } from "./show.js";
import { registerValidate } from "./validate.js";
import { registerVersion } from "./version.js";

/** A command registers itself on the program; its action reports its exit code. */
export type RegisterCommand = (
  program: Command,
  io: CliIO,
  setExit: (code: number) => void,
) => void;

export const COMMANDS: readonly RegisterCommand[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerDrift,
  registerExport,
  registerForceUnlock,
  registerEmulator,
  registerShow,
  registerSchema,
  registerCompletion,
  registerVersion,
];
