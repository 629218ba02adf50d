/**
 * Issue 45 (design.md §5 "Rules and guards"): the policies and guards of plan and apply —
 * the config's `on: plan` rules, `--policy-cmd`, and the volume and risky-transition guards
 * — added to a plan; and the flags that let one apply run through a guard.
 */
import { spawn } from "node:child_process";
import type { Command } from "commander";
import { PolicyCommandError, UsageError } from "../core/errors.js";
import type { Secret } from "../core/secret.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import { type PolicyViolation, RISKY_RULES } from "../model/policy.js";
import type { Plan } from "../plan/types.js";
import { readCommandAnswer } from "../policy/command.js";
import { evaluatePolicies, sortViolations, utcDate } from "../policy/evaluate.js";
import { blockedGuards } from "../policy/guards.js";
import { desiredLocator, planSubjects } from "../policy/subjects.js";
import { renderJson } from "../render/index.js";
import { collect, collectSecretValues, secretScrubber } from "./common-options.js";
import { type CliIO, clockOf } from "./io.js";
import { parseDuration } from "./lock-options.js";

export interface PolicyCmdFlags {
  readonly policyCmd?: string;
  readonly policyCmdTimeout?: string;
}

/** Decision: a minute; a policy engine that takes longer is stuck, and stuck is a failure. */
const DEFAULT_POLICY_CMD_TIMEOUT_MS = 60_000;
/** Its answer is read whole; more than this is not a list of violations. */
const MAX_POLICY_CMD_OUTPUT = 8 * 1024 * 1024;

export const addPolicyCmdOptions = (command: Command): Command =>
  command
    .option(
      "--policy-cmd <command>",
      'run this program (through the shell) with the masked JSON plan on stdin; it answers { "violations": [{ "rule", "message", "level", "address" }] } on stdout. A crash, a timeout or an answer that cannot be read is an error, never a pass',
    )
    .option(
      "--policy-cmd-timeout <duration>",
      "how long --policy-cmd may run (e.g. 30s, 2m; default 60s)",
    );

export const addGuardOptions = (command: Command): Command =>
  command
    .option(
      "--allow-mass-change",
      "allow, for this run, a plan over the volume guards (updates of more than 30% of a collection of 10 or more items, more than 20 secret re-sets; thresholds under guards: in the config)",
    )
    .option(
      "--allow-risky <rule>",
      `allow, for this run, a risky transition (repeatable): ${RISKY_RULES.join(", ")}`,
      collect,
    );

/** `--allow-risky` values, checked against the rule ids (a typo would allow nothing). */
export const allowedRisky = (values: readonly string[] | undefined): readonly string[] => {
  for (const v of values ?? []) {
    if (!(RISKY_RULES as readonly string[]).includes(v)) {
      throw new UsageError(`--allow-risky ${v}: no such rule (rules: ${RISKY_RULES.join(", ")})`);
    }
  }
  return values ?? [];
};

const withoutToken = (env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env))
    if (k !== "SERVICE_TOKEN" && v !== undefined) out[k] = v;
  return out;
};

/**
 * Run `--policy-cmd` with the masked JSON plan on stdin; its violations, its text passed
 * through the redactor (it may echo what it was given, and it is another party's output).
 */
export const runPolicyCommand = (
  command: string,
  plan: Plan,
  timeoutMs: number,
  scrub: (text: string) => string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PolicyViolation[]> =>
  new Promise((resolve, reject) => {
    const fail = (why: string): void => reject(new PolicyCommandError(`--policy-cmd ${why}`));
    // Its own process group, so a timeout ends the program and whatever the shell started.
    const child = spawn(command, {
      shell: true,
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      // Decision: the program gets the environment but the token: it judges a plan, it
      // has no business with the service.
      env: withoutToken(env),
    });
    let out = "";
    let err = "";
    let size = 0;
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const kill = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== "win32")
          process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      kill();
      settle(() => fail(`did not finish within ${timeoutMs / 1000} s: the policy check failed`));
    }, timeoutMs);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      size += chunk.length;
      if (size > MAX_POLICY_CMD_OUTPUT) {
        kill();
        settle(() => fail("wrote more than 8 MiB: the policy check failed"));
        return;
      }
      out += chunk;
    });
    child.stderr.on("data", (chunk: string) => {
      if (err.length < 4096) err += chunk;
    });
    // A program that does not read its stdin (or exits early) closes the pipe: its exit
    // status decides, not the write's EPIPE.
    child.stdin.on("error", () => {});
    child.on("error", (e) => settle(() => fail(`could not be started: ${scrub(e.message)}`)));
    child.on("close", (code, signal) => {
      settle(() => {
        if (code !== 0) {
          const said = scrub(err.trim()).slice(0, 1000);
          fail(
            `${signal !== null ? `was killed by ${signal}` : `exited with status ${code}`}: the policy check failed${said === "" ? "" : `; it said: ${said}`}`,
          );
          return;
        }
        const answer = readCommandAnswer(out);
        if (!answer.ok) {
          fail(`${answer.why}: the policy check failed`);
          return;
        }
        resolve(
          answer.violations.map((v) => ({
            ...v,
            rule: scrub(v.rule),
            message: scrub(v.message),
            ...(v.address === undefined ? {} : { address: scrub(v.address) }),
            ...(v.org === undefined ? {} : { org: scrub(v.org) }),
          })),
        );
      });
    });
    child.stdin.end(renderJson(plan));
  });

/**
 * The plan with its policy violations (the config's `on: plan` rules, then `--policy-cmd`'s)
 * and its blocked guards. The same plan when there is nothing to add.
 */
export const withPlanPolicies = async (
  plan: Plan,
  desired: DesiredConfig,
  live: LiveState | undefined,
  io: CliIO,
  flags: PolicyCmdFlags,
  token?: Secret,
): Promise<Plan> => {
  const policies = desired.policies;
  const found: PolicyViolation[] =
    policies === undefined
      ? []
      : evaluatePolicies({
          on: "plan",
          rules: policies.rules,
          exceptions: policies.exceptions,
          subjects: planSubjects(plan.changes),
          // The local clock: data from the machine running the check (src/policy/evaluate.ts).
          today: utcDate(clockOf(io).now()),
          locate: desiredLocator(desired),
        });
  if (flags.policyCmd !== undefined) {
    const timeout =
      flags.policyCmdTimeout === undefined
        ? DEFAULT_POLICY_CMD_TIMEOUT_MS
        : parseDuration(flags.policyCmdTimeout, "--policy-cmd-timeout");
    const scrub = secretScrubber(() => collectSecretValues(desired), token);
    for (const v of await runPolicyCommand(flags.policyCmd, plan, timeout, scrub, io.env)) {
      found.push(v);
    }
  }
  const blocked = blockedGuards(plan, live, desired);
  if (found.length === 0 && blocked.length === 0) return plan;
  return {
    ...plan,
    ...(found.length === 0 ? {} : { policy_violations: sortViolations(found) }),
    guards: { ...plan.guards, ...(blocked.length === 0 ? {} : { blocked }) },
  };
};

export const policyErrors = (plan: Plan): readonly PolicyViolation[] =>
  (plan.policy_violations ?? []).filter((v) => v.level === "error");
