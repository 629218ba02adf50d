import { WaybillError } from "../model/errors.js";

/** design.md §1 "Commands": the exit codes users' CI scripts depend on. */
export const EXIT = {
  ok: 0,
  error: 1,
  /** `plan --detailed-exitcode` with changes; `drift` with drift. */
  changes: 2,
  stalePlan: 3,
  guard: 4,
  interrupted: 130,
} as const;

/** The one place that maps an error to an exit code (conventions.md §7). */
export const exitCodeFor = (err: unknown): number => {
  if (err instanceof WaybillError) {
    switch (err.code) {
      case "plan_stale":
        return EXIT.stalePlan;
      case "guard_blocked":
        return EXIT.guard;
      default:
        return EXIT.error;
    }
  }
  return EXIT.error;
};
