export { exceedsMassDelete } from "./finish.js";
export { keyedDiff } from "./keyed-diff.js";
export { type Operation, type OperationGraph, orderOperations } from "./order.js";
export { globMatcher, planChanges } from "./plan.js";
export { desiredSecrets } from "./secrets.js";
export type * from "./types.js";
