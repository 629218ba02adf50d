/**
 * The plan as JSON, per schemas/plan.schema.json. The plan is already plain, masked data,
 * so this is its serialisation; a test validates every JSON plan against the schema.
 */
import type { Plan } from "../plan/types.js";

export const renderJson = (plan: Plan): string => `${JSON.stringify(plan, null, 2)}\n`;
