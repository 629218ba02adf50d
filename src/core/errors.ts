/**
 * Every error Waybill raises on purpose carries a stable `code`; the CLI maps codes to exit
 * codes in one place (src/cli/exit-codes.ts). Messages never contain a secret value or the
 * token (design.md §1 "Secrets").
 */
export abstract class WaybillError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Where something was written in a config file. Lines and columns are 1-based. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /**
   * Issue 19: when the item (or part of it) is inherited from a template, where the template
   * wrote it: `template "service" at templates.yaml:7:9`.
   */
  readonly via?: string;
}

export const formatLocation = (loc: SourceLocation): string => `${loc.file}:${loc.line}:${loc.col}`;

/**
 * An item's `source` field, as opposed to a field that happens to be named `source` (a
 * trigger's `event.webhook.source`). Checks the members without reading them: a location's
 * line and column may be computed on first read (src/config/build.ts).
 */
export const isSourceLocation = (v: unknown): v is SourceLocation =>
  typeof v === "object" && v !== null && "file" in v && "line" in v && "col" in v;

/** Wrong command-line usage (unknown flag value, conflicting options). Exit 1. */
export class UsageError extends WaybillError {
  readonly code = "usage";
}

/** A safety guard refused the operation (mass delete, ...). Exit 4. */
export class GuardError extends WaybillError {
  readonly code = "guard_blocked";
}

/** A saved plan no longer matches what a fresh plan would do. Exit 3. */
export class StalePlanError extends WaybillError {
  readonly code = "plan_stale";
}

/** The plan cannot be computed (ambiguous identity, unreadable parent, ...). Exit 1. */
export class PlanError extends WaybillError {
  readonly code = "plan_failed";
}

/** The live state could not be read in a way the planner can trust. Exit 1. */
export class LiveReadError extends WaybillError {
  readonly code = "live_read_failed";
}

/**
 * `--policy-cmd` (issue 45) crashed, timed out or answered what cannot be read: the policy
 * check failed, never passed. Exit 1, before any write.
 */
export class PolicyCommandError extends WaybillError {
  readonly code = "policy_command_failed";
}
