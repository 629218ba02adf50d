/**
 * Issue 45: the config's `on: config` and `on: live` rules for validate and drift. Apart
 * from policy-options.ts so that validate loads neither the renderers nor the API client.
 */
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import type { PolicyViolation } from "../model/policy.js";
import { evaluatePolicies, utcDate } from "../policy/evaluate.js";
import { desiredLocator, liveSubjects, type Subject } from "../policy/subjects.js";
import { type CliIO, clockOf } from "./io.js";

/**
 * Issue 45: the config's rules of one `on` against its subjects — `config` (validate: the
 * declared items), `live` (drift: the live state read) — or none when the config has no
 * such rule (the subjects are then never built). Exceptions expire by the local clock:
 * data from the machine running the check (src/policy/evaluate.ts).
 */
export const violationsOn = (
  on: "config" | "live",
  desired: DesiredConfig,
  subjects: () => readonly Subject[],
  io: CliIO,
): PolicyViolation[] => {
  const policies = desired.policies;
  if (policies === undefined || !policies.rules.some((r) => r.on === on)) return [];
  return evaluatePolicies({
    on,
    rules: policies.rules,
    exceptions: policies.exceptions,
    subjects: subjects(),
    today: utcDate(clockOf(io).now()),
    ...(on === "live" ? { locate: desiredLocator(desired) } : {}),
  });
};

/** The live rules (drift): a webhook the service disabled, a project passing fork secrets. */
export const liveViolations = (
  desired: DesiredConfig,
  live: LiveState,
  io: CliIO,
): PolicyViolation[] => violationsOn("live", desired, () => liveSubjects(live), io);
