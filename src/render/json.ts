/**
 * The plan as JSON, per schemas/plan.schema.json. The plan is already plain, masked data,
 * so this is its serialisation; a test validates every JSON plan against the schema.
 */
import type { Plan } from "../plan/types.js";
import { sanitizePlan } from "./sanitize.js";

/**
 * JSON escapes C0 controls itself, not C1 ones (U+009B is a CSI to some terminals that
 * `cat` the file): every string is cleaned first (src/render/sanitize.ts).
 */
export const renderJson = (plan: Plan): string =>
  `${JSON.stringify(sanitizePlan(plan), null, 2)}\n`;
