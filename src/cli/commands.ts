import { registerApply } from "./apply.js";
import { registerCompletion } from "./completion.js";
import { registerDrift } from "./drift.js";
import { registerEmulator } from "./emulator.js";
import { registerExport } from "./export.js";
import { registerFmt } from "./fmt.js";
import { registerForceUnlock } from "./force-unlock.js";
import { registerPlan } from "./plan.js";
import { registerPull } from "./pull.js";
import type { RegisterCommand } from "./register-command.js";
import { registerSchema } from "./schema.js";
import { registerShow } from "./show.js";
import { registerValidate } from "./validate.js";
import { registerVersion } from "./version.js";

export const COMMANDS: readonly RegisterCommand[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerDrift,
  registerExport,
  registerPull,
  registerFmt,
  registerForceUnlock,
  registerEmulator,
  registerShow,
  registerSchema,
  registerCompletion,
  registerVersion,
];
