import { WaybillError } from "../core/errors.js";

/** design.md §1 "Commands": the exit codes users' CI scripts depend on. */
export const EXIT = {
  ok: 0,
  error: 1,
  /** `plan --detailed-exitcode` with changes; `drift` with drift. */
  changes: 2,
  stalePlan: 3,
  guard: 4,
  /** apply: another run holds an org's lock (issue 15); nothing was changed. */
  locked: 5,
  /** apply: stopped by Ctrl-C (SIGINT): 128 + 2. */
  interrupted: 130,
  /** apply: stopped by SIGTERM (what CI systems send on cancel): 128 + 15. */
  terminated: 143,
} as const;

/** The one place that maps an error to an exit code (conventions.md §7). */
export const exitCodeFor = (err: unknown): number => {
  if (err instanceof WaybillError) {
    switch (err.code) {
      case "plan_stale":
        return EXIT.stalePlan;
      case "guard_blocked":
        return EXIT.guard;
      case "org_locked":
        return EXIT.locked;
      default:
        return EXIT.error;
    }
  }
  return EXIT.error;
};
