import { setMaxListeners } from "node:events";
/**
 * `waybill apply [PLANFILE]` (design.md §1 "Commands", "Apply"; issue 5). Without a file:
 * plan, show it, ask `yes` on a TTY (`--auto-approve` required off a TTY). With a saved
 * plan: re-plan and apply only when the changes are the same (exit 3 otherwise). Guards
 * (exit 4) run before any write. Progress goes to stderr, the result to stdout.
 */
import { createInterface } from "node:readline";
import { createApiClient } from "../api/client.js";
import type { Api } from "../api/types.js";
import { indexDesired } from "../apply/desired-index.js";
import { type FirstPlan, keepFirst, sameAsFirst } from "../apply/held-plan.js";
import {
  applyStatus,
  progressNotice,
  renderResultJson,
  renderResultLines,
} from "../apply/render-result.js";
import { type ApplyEvent, runApply } from "../apply/run-apply.js";
import {
  checkStale,
  checkTarget,
  liveFingerprints,
  readSavedPlan,
  type SavedPlan,
} from "../apply/saved-plan.js";
import { stripControls } from "../core/controls.js";
import { GuardError, StalePlanError, UsageError } from "../core/errors.js";
import { kindOf } from "../kinds/registry.js";
import { ConcurrentChangeError } from "../live/errors.js";
import type { HeldLock } from "../lock/org-lock.js";
import { writesConfirmedBy } from "../lock/write-gate.js";
import type { DesiredConfig } from "../model/desired.js";
import { digestDifference, planConfigDigest } from "../plan/digest.js";
import type { PlanScope, ScopedAddress } from "../plan/scope.js";
import type { Plan } from "../plan/types.js";
import { refusedGuards } from "../policy/guards.js";
import { replacedNote } from "../render/common.js";
import { renderTextLines } from "../render/index.js";
import { runPlan } from "../run/plan-run.js";
import { CHANGED_SINCE_OPTION, checkedRef, scopeFor } from "./changed-since.js";
import {
  APPLY_RETRY,
  addCommonOptions,
  type CommonOptionFlags,
  type CommonOptions,
  clientReporting,
  collectSecretValues,
  liveCredentialUrls,
  loadDesired,
  progressReporter,
  resolveCommonOptions,
  resolveConnection,
  type SecretBook,
  secretBook,
  secretScrubber,
} from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import { count, withHeartbeat } from "./heartbeat.js";
import { type CliIO, clockOf, withNewlines, writeChunks } from "./io.js";
import { lockOrgs, parseDuration, parseLockMode, releaseAll, thisRun } from "./lock-options.js";
import { forceSecretsGlobs } from "./plan.js";
import {
  addGuardOptions,
  addPolicyCmdOptions,
  allowedRisky,
  type PolicyCmdFlags,
  policyErrors,
  withPlanPolicies,
} from "./policy-options.js";
import type { RegisterCommand } from "./register-command.js";
import { VERSION } from "./version.js";

interface ApplyFlags extends CommonOptionFlags, PolicyCmdFlags {
  /** Issue 45: let one run through the volume guards. */
  readonly allowMassChange?: boolean;
  /** Issue 45: risky transitions allowed for this run (rule ids). */
  readonly allowRisky?: string[];
  readonly autoApprove?: boolean;
  readonly allowMassDelete?: boolean;
  /** Issue 18: a plan that deletes a project (`delete: true`) needs it. */
  readonly allowProjectDelete?: boolean;
  /** `--force-secrets` alone is true; with a value it is a glob (as plan's). */
  readonly forceSecrets?: string | boolean;
  /** `--lock MODE`; `--no-lock` sets it false (design.md §4 "The org lock"). */
  readonly lock?: string | boolean;
  readonly lockTimeout?: string;
  /** `--expect-digest D` (design.md §5 "Scoped plans and the reviewed plan"). */
  readonly expectDigest?: string;
  /** `--changed-since REF` (design.md §5): plan and apply only what changed since REF. */
  readonly changedSince?: string;
}

const EXAMPLES = `
Examples:
  # In CI after merge: plan and apply without a prompt, waiting up to 10 minutes when
  # another run holds the org's lock (two merges close together; the default wait is 2m)
  $ SERVICE_TOKEN=... waybill apply -c infra/waybill.yaml --auto-approve --lock-timeout 10m

  # Apply exactly the plan that was reviewed (exit 3 if the service or config moved since)
  $ waybill plan -c infra/waybill.yaml --out plan.json
  $ waybill apply -c infra/waybill.yaml plan.json

Apply plans without a lock; when the plan writes, it takes a lock on each org (an empty
context named waybill-lock--<run>--…, never planned, exported or deleted by a config),
checks under it that the live state is still what it planned from, and applies, so two
applies never write at once. The lock is judged by the service's clock: a claim lapses
60 s after its last renewal, and apply waits that long by default, so a run killed with
SIGKILL never makes the next one fail. --lock auto (the default) applies without the lock,
with a warning, when the token may not create contexts; --lock required refuses then.

Exit codes: 0 applied (or nothing to do), 1 error or partial failure (the summary lists
done, failed and skipped; a re-run converges unless the service refused a request with a
4xx; after a 401 or 403 nothing new is started), 3 the saved plan is stale (or the plan's
digest is not --expect-digest's: nothing is written), 4 blocked by a
safety guard (a mass delete or a group's delete: --allow-mass-delete; a project's delete:
--allow-project-delete; updates of more than 30% of a collection or more than 20 secret
re-sets: --allow-mass-change; a risky transition: --allow-risky RULE) or by a policy rule of
level error, 5 another run held the org's lock for all of --lock-timeout
(nothing was changed), or another party wrote the org under this run: the lock was lost
(nothing new was started after it) or the live state changed while it was read (nothing
was changed); run again, 130 interrupted by Ctrl-C (SIGINT), 143 stopped by SIGTERM (both:
running calls finish, nothing new starts, the summary is printed, the lock is released).
`;

export type StopSignal = "SIGINT" | "SIGTERM";

/** The process-level hooks apply needs, injectable so tests can drive them in-process. */
export interface ApplySignals {
  /**
   * Call `onStop` on SIGINT and on SIGTERM (what CI systems send on cancel); returns a
   * function that removes the handlers.
   */
  readonly onStop: (onStop: (signal: StopSignal) => void) => () => void;
  /** Leave at once (a second signal). */
  readonly exitNow: (code: number) => void;
}

const processSignals: ApplySignals = {
  onStop: (handler) => {
    const onSigint = (): void => handler("SIGINT");
    const onSigterm = (): void => handler("SIGTERM");
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
    return () => {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
    };
  },
  exitNow: (code) => process.exit(code),
};

/** The exit code of a run stopped by a signal: 128 + the signal's number, as shells report. */
const exitCodeForSignal = (signal: StopSignal): number =>
  signal === "SIGTERM" ? EXIT.terminated : EXIT.interrupted;

export const registerApply: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("apply")
    .argument("[planfile]", "a plan saved with `waybill plan --out FILE`")
    .description(
      "Make the changes the plan shows, in dependency order and in parallel; re-plans first.",
    );
  addGuardOptions(addPolicyCmdOptions(addCommonOptions(command, { formats: ["text", "json"] })))
    .option("--auto-approve", "do not ask for `yes` (required when stdin is not a terminal)")
    .option(
      "--allow-mass-delete",
      "allow a plan that deletes more than 3 items and more than 25% of a collection, or deletes or re-creates a group",
    )
    .option(
      "--allow-project-delete",
      "allow a plan that deletes a project (`delete: true` in the config)",
    )
    .option(
      "--force-secrets [glob]",
      "re-set secrets whose last four characters match (all, or those whose address matches GLOB); as plan's",
    )
    .option(
      "--lock <mode>",
      "the org lock: auto (take it when the plan writes; without it, with a warning, when the token may not create contexts), required, or off",
      "auto",
    )
    .option(
      "--lock-timeout <duration>",
      "how long to wait for another run's lock on an org (e.g. 30s, 10m; 0: fail at once; default 2m, longer than a killed run's claim lives)",
    )
    .option("--no-lock", "the same as --lock off")
    .option(
      "--expect-digest <digest>",
      "apply only when the plan's digest (printed by `waybill plan`) is DIGEST, the reviewed plan's: checked before the lock and again under it; otherwise exit 3 and nothing is written. It approves the plan, as a plan file does",
    )
    .option(...CHANGED_SINCE_OPTION)
    .addHelpText("after", EXAMPLES)
    .action(async (planfile: string | undefined, flags: ApplyFlags) => {
      setExit(await withHeartbeat(io, (run) => applyCommand(planfile, flags, run, processSignals)));
    });
};

/** Like `connect` (src/cli/common-options.ts), with apply's retry budget. */
const connectForApply = (
  baseUrl: string,
  token: Awaited<ReturnType<typeof resolveConnection>>["token"],
  options: CommonOptions,
  io: CliIO,
  book: SecretBook,
): Api =>
  createApiClient({
    baseUrl,
    token,
    maxConcurrentRequests: options.parallelism,
    retry: APPLY_RETRY,
    ...clientReporting(options, io),
    scrub: secretScrubber(book, token),
  });

const ask = (io: CliIO, question: string, signal: AbortSignal): Promise<string> =>
  new Promise((resolve) => {
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
    io.stderr.write(question);
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(line.trim());
    });
    rl.once("close", () => {
      signal.removeEventListener("abort", onAbort);
      if (!answered) resolve("");
    });
    // Ctrl-C or SIGTERM at the prompt: no answer (the caller then reports the stop).
    const onAbort = (): void => rl.close();
    signal.addEventListener("abort", onAbort, { once: true });
  });

/**
 * What apply will do right after the creates of this plan besides their calls: each
 * kind's after-create step (src/kinds/contract.ts), the same one the executor runs, so the
 * promise and the deed cannot differ (the default restriction of a new context whose org is
 * named by id in the config, for one).
 */
const afterCreateNotes = (plan: Plan, io: ReturnType<typeof indexDesired>): string[] =>
  plan.changes.flatMap((c) => {
    if (c.action !== "create") return [];
    const d = io.get(c.org, c.address);
    const orgId = plan.orgs.find((o) => o.slug === c.org)?.id;
    if (d === undefined || d.type !== c.resource_type || orgId === undefined) return [];
    const step = kindOf(c.resource_type).afterCreate?.(d.item, orgId);
    return step === undefined ? [] : [`Note: ${c.address}: ${step.note}.`];
  });

export const applyCommand = async (
  planfile: string | undefined,
  flags: ApplyFlags,
  io: CliIO,
  signals: ApplySignals,
): Promise<number> => {
  const options = resolveCommonOptions(flags, io);
  allowedRisky(flags.allowRisky);
  const expected = parseExpectDigest(flags.expectDigest);
  if (
    planfile === undefined &&
    expected === undefined &&
    io.stdin.isTTY !== true &&
    !flags.autoApprove
  ) {
    // Decision: refused before any request at all (not only before the first write): an
    // unattended apply must say so explicitly, and a CI log then shows the fix at once.
    // A plan file is the approval (it was reviewed), as in Terraform: no prompt for it.
    throw new UsageError(
      "stdin is not a terminal, so apply cannot ask for approval: pass --auto-approve (or apply a reviewed plan: a plan file, or --expect-digest with its digest)",
    );
  }
  // Issue 21: apply's own output suggests --force-secrets (the unverified-secrets line); it
  // has plan's meaning. Decision: with a plan file it is refused like --target, since the
  // saved plan carries its own force-secrets globs.
  if (planfile !== undefined && flags.forceSecrets !== undefined) {
    throw new UsageError(
      "--force-secrets cannot be combined with a plan file: the plan file has its own (plan --force-secrets --out FILE)",
    );
  }
  if (planfile !== undefined && options.excludes.length > 0) {
    throw new UsageError(
      "--exclude cannot be combined with a plan file: the plan file has its own",
    );
  }
  if (planfile !== undefined && flags.changedSince !== undefined) {
    throw new UsageError(
      "--changed-since cannot be combined with a plan file: the plan file has its own scope",
    );
  }
  const since = checkedRef(flags.changedSince);
  if (planfile !== undefined && options.targets.length > 0) {
    // Decision: a saved plan carries its own --target globs; others would make it stale.
    throw new UsageError("--target cannot be combined with a plan file: the plan file has its own");
  }
  const saved: SavedPlan | undefined =
    planfile === undefined ? undefined : await readSavedPlan(planfile);
  const desired = await loadDesired(options, io, true);
  if (!desired) return EXIT.error;
  const scoping = await scopeFor(since, options.configPath, desired, io);
  const mode = parseLockMode(flags.lock);
  const waitMs =
    flags.lockTimeout === undefined
      ? undefined
      : parseDuration(flags.lockTimeout, "--lock-timeout");
  const { baseUrl, token } = await resolveConnection(flags, io);
  // Issue 43: service errors are scrubbed of the config's values and, once read, the live
  // state's credential URLs (readPlan adds them).
  const book = secretBook(() => collectSecretValues(desired));
  const api = connectForApply(baseUrl, token, options, io, book);
  const controller = new AbortController();
  // Every call in flight listens on this one signal: up to --parallelism of them, more than
  // Node's default of 10 listeners (which would print MaxListenersExceededWarning).
  setMaxListeners(0, controller.signal);
  // Issue 15: SIGTERM is handled like Ctrl-C, from the first read until the lock is
  // released, so a cancelled CI job drains, summarises and releases the lock.
  let stoppedBy: StopSignal | undefined;
  const removeSignals = signals.onStop((signal) => {
    if (controller.signal.aborted) {
      // Decision: a second signal leaves at once, as Terraform does; the calls in flight
      // may or may not have been made, and a re-plan shows what is left. The lock lapses.
      io.stderr.write(
        "\nSecond interrupt: exiting now; calls in flight may or may not have been made. Run `waybill plan` to see what is left.\n",
      );
      signals.exitNow(exitCodeForSignal(stoppedBy ?? signal));
      return;
    }
    stoppedBy = signal;
    io.stderr.write(
      `\n${signal === "SIGTERM" ? "Terminated (SIGTERM)" : "Interrupted"}: starting nothing new; waiting for running calls to finish…\n`,
    );
    controller.abort();
  });
  let locks: HeldLock[] = [];
  const control: RunControl = {
    signal: controller.signal,
    stoppedBy: () => stoppedBy,
    lockLost: () => locks.some((l) => l.lost.aborted),
    locked: () => locks.length > 0,
    confirmLocks: async () => {
      await Promise.all(locks.map((l) => l.confirm()));
    },
  };
  const ctx: ApplyContext = {
    flags,
    io,
    options,
    desired,
    saved,
    api,
    book,
    baseUrl,
    control,
    ...(expected === undefined ? {} : { expected }),
    ...scoping.options,
    note: scoping.note,
    probed: new Map(),
    configDigest: planConfigDigest(desired.orgs),
  };
  try {
    // Issue 29: lock only to write. The plan, its guards and the stale check run without
    // the lock, so an apply that changes nothing, is refused or cannot read writes nothing.
    let checked: Checked | undefined = await planChecked(ctx);
    if (checked.exit !== undefined) return checked.exit;
    const asked = checked.asked;
    let plan: Plan | undefined = checked.plan;
    checked = undefined;
    if (mode !== "off" && !controller.signal.aborted) {
      // Issue 44 (peak RSS): what the re-read under the lock needs of the first plan, made
      // before the lock is taken (it hashes every change: ~1 s at 38,000). Once the lock is
      // held the plan itself is let go (src/apply/held-plan.ts); without a lock it is applied.
      // Both are let go too once the re-read is done, before the writes.
      let touched: ScopedAddress[] | undefined = plan.changes.map((c) => ({
        org: c.org,
        address: c.address,
      }));
      let first: FirstPlan | undefined = keepFirst(plan);
      try {
        const outcome = await lockOrgs(
          api,
          desired.orgs.map((o) => o.slug),
          io,
          {
            ...(waitMs !== undefined ? { waitMs } : {}),
            signal: controller.signal,
            holder: thisRun(io),
            mode,
          },
        );
        locks = outcome.held;
      } catch (err) {
        if (stoppedBy !== undefined && controller.signal.aborted) {
          io.stderr.write("Stopped while waiting for the lock: nothing was changed.\n");
          return exitCodeForSignal(stoppedBy);
        }
        throw err;
      }
      // A lock lost (or whose renewal failed for too long): stop starting work, as on Ctrl-C.
      for (const lock of locks) {
        lock.lost.addEventListener(
          "abort",
          () => {
            if (controller.signal.aborted) return;
            const reason: unknown = lock.lost.reason;
            io.stderr.write(
              `\nError: ${reason instanceof Error ? reason.message : String(reason)}: starting nothing new; waiting for running calls to finish…\n`,
            );
            controller.abort();
          },
          { once: true },
        );
      }
      if (locks.length > 0) {
        plan = undefined;
        const again = await replanUnderLock(ctx, first, touched, asked);
        first = undefined;
        touched = undefined;
        if (again.exit !== undefined) return again.exit;
        plan = again.plan;
      }
    }
    return await applyPlan(ctx, plan);
  } catch (err) {
    // Issue 42: a read that would not settle because another party was writing the org is
    // the lock's kind of outcome (exit 5: try again when it is done), not an error of this
    // run. Decision: only apply maps it so; plan and drift keep their documented 0/1/2.
    if (err instanceof ConcurrentChangeError) {
      io.stderr.write(`Error: ${stripControls(err.message)}\n`);
      return EXIT.locked;
    }
    throw err;
  } finally {
    await releaseAll(locks, io);
    removeSignals();
    await api.close();
  }
};

interface RunControl {
  readonly signal: AbortSignal;
  readonly stoppedBy: () => StopSignal | undefined;
  readonly lockLost: () => boolean;
  /** Issue 42: resolves while every lock held is still ours (checked before writes). */
  readonly confirmLocks: () => Promise<void>;
  readonly locked: () => boolean;
}

interface ApplyContext {
  readonly flags: ApplyFlags;
  readonly io: CliIO;
  readonly options: CommonOptions;
  readonly desired: DesiredConfig;
  readonly saved: SavedPlan | undefined;
  readonly api: Api;
  readonly book: SecretBook;
  readonly baseUrl: string;
  readonly control: RunControl;
  /** `--expect-digest`: the reviewed plan's digest. */
  readonly expected?: string;
  /** `--changed-since`'s scope (a saved plan's is in the file). */
  readonly scope?: PlanScope;
  /** What `--changed-since` adds to a plan made in full instead (its reason). */
  readonly note: (plan: Plan) => Plan;
  /**
   * Pipelines probed for the synthetic OAuth one (src/live/synthetic.ts): an id's answer
   * never changes, so the re-read under the lock asks only about new ids.
   */
  readonly probed: Map<string, boolean>;
  /**
   * The config half of the plan digest (src/plan/digest.ts), once for both plans: the config
   * does not change between them, and its canonical copy is the whole config's (0.1 s and a
   * copy of the config at 2,000 projects).
   */
  readonly configDigest: string;
}

/** A plan to apply, or the exit code of a run that ends here (no change, cancelled). */
type Checked =
  | { readonly exit: number; readonly plan?: undefined; readonly asked?: undefined }
  | { readonly exit?: undefined; readonly plan: Plan; readonly asked: boolean };

/**
 * Read the live state and plan (a read failure throws: nothing was written). `within`: read
 * and plan only these addresses (apply's re-read under the lock: what its plan touches).
 */
const readPlan = async (
  ctx: ApplyContext,
  label: string,
  within?: readonly ScopedAddress[],
): Promise<{ plan: Plan; live: Awaited<ReturnType<typeof runPlan>>["live"] }> => {
  const { saved, options, flags, io, desired, api, book } = ctx;
  const progress = progressReporter(io, label);
  const targets = saved ? (saved.plan.targets ?? []) : options.targets;
  const excludes = saved ? (saved.plan.excludes ?? []) : options.excludes;
  // design.md §5: a saved partial plan applies only its scope.
  const scope = saved ? saved.plan.scope : ctx.scope;
  try {
    const read = await runPlan(api.readOnly(), desired, {
      ...(targets.length > 0 ? { targets } : {}),
      ...(excludes.length > 0 ? { excludes } : {}),
      ...(scope === undefined ? {} : { scope }),
      ...(within === undefined ? {} : { within }),
      probed: ctx.probed,
      configDigest: ctx.configDigest,
      forceSecrets: saved?.force_secrets ?? forceSecretsGlobs(flags.forceSecrets),
      skipSecrets: false,
      onProgress: progress.onProgress,
    });
    book.add(liveCredentialUrls(read.live));
    return { ...read, plan: ctx.note(read.plan) };
  } finally {
    progress.finish();
  }
};

/** The guards (exit 4), before any write. */
const checkGuards = (flags: ApplyFlags, plan: Plan): void => {
  if (plan.guards.mass_delete_exceeded && !flags.allowMassDelete) {
    const over = plan.guards.mass_delete
      .filter((g) => g.exceeds)
      .map((g) => `${g.collection} (${g.delete_count} of ${g.live_count}${replacedNote(g)})`);
    throw new GuardError(
      `the plan deletes (or re-creates) more than 3 items and more than 25% of ${over.join(", ")}; review it and pass --allow-mass-delete to apply it`,
    );
  }
  const projectDeletes = plan.changes.filter(
    (c) => c.resource_type === "project" && c.action === "delete",
  );
  if (projectDeletes.length > 0 && !flags.allowProjectDelete) {
    throw new GuardError(
      `the plan deletes ${projectDeletes.map((c) => c.address).join(", ")} with everything in it (delete: true in the config); review it and pass --allow-project-delete to apply it`,
    );
  }
  const destroying = plan.guards.destroys ?? [];
  if (destroying.length > 0 && !flags.allowMassDelete) {
    throw new GuardError(
      `the plan ${destroying.map((g) => `${g.action === "delete" ? "deletes" : "re-creates"} ${g.address}`).join(", ")}: ${destroying[0]?.destroys}; review it and pass --allow-mass-delete to apply it`,
    );
  }
  // Issue 45: a policy rule of level error, and the volume and risky-transition guards.
  const errors = policyErrors(plan);
  if (errors.length > 0) {
    throw new GuardError(
      `the plan violates ${errors.length} polic${errors.length === 1 ? "y rule" : "y rules"} of level error (${[...new Set(errors.map((v) => v.rule))].join(", ")}); nothing was changed`,
    );
  }
  const refused = refusedGuards(plan.guards.blocked ?? [], {
    allowMassChange: flags.allowMassChange === true,
    allowRisky: allowedRisky(flags.allowRisky),
  });
  if (refused.length > 0) {
    throw new GuardError(
      `${refused.map((b) => `${b.message} (${b.allow_with})`).join("; ")}; review the plan and pass the flag to apply it; nothing was changed`,
    );
  }
};

/**
 * `--expect-digest` (design.md §5 "Scoped plans and the reviewed plan"): decision: a digest
 * is 32 hex digits (src/plan/digest.ts); anything else is refused before any request, so a
 * truncated copy from a comment is not taken for a mismatch of the plan.
 */
const parseExpectDigest = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  const d = value.trim().toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(d)) {
    throw new UsageError(
      `--expect-digest ${JSON.stringify(stripControls(value))} is not a plan digest: it is the 32 hex digits after "Plan digest:" in the output of \`waybill plan\``,
    );
  }
  return d;
};

/**
 * Refuse (exit 3) a plan whose digest is not the expected one, saying which half differs.
 * Decision: also when the plan now has no change (the reviewed one had some, done by hand
 * meanwhile): nothing would be written, but the run is not the reviewed one, and the merge's
 * job should say so rather than pass.
 */
const checkDigest = (ctx: ApplyContext, plan: Plan, when: string): void => {
  const expected = ctx.expected;
  if (expected === undefined || plan.digest === expected) return;
  throw new StalePlanError(
    `the plan ${when} is not the reviewed one: its digest is ${plan.digest}, not ${expected} (--expect-digest): ${digestDifference(plan.digest, expected)}. Nothing was changed; plan again and review the new plan${ctx.options.format === "text" ? " (above: what apply would do now)" : ""}`,
  );
};

/** Show a plan; end the run when it has no change; check its digest and its guards. */
const showAndGuard = async (
  ctx: ApplyContext,
  plan: Plan,
  when: string,
): Promise<number | undefined> => {
  const { options, io, flags } = ctx;
  // Decision: with --format json stdout holds only the result document (plan summary
  // included), so a machine can parse it; the plan text is for people.
  if (options.format === "text") {
    await writeChunks(io.stdout, withNewlines(renderTextLines(plan, { color: options.color })));
  }
  checkDigest(ctx, plan, when);
  if (plan.changes.length === 0) {
    if (options.format === "json") {
      io.stdout.write(
        renderResultJson(
          { outcomes: [], done: 0, failed: 0, skipped: 0, interrupted: false },
          plan,
        ),
      );
    }
    return EXIT.ok;
  }
  checkGuards(flags, plan);
  return undefined;
};

/** Ask `yes` (no plan file, no --auto-approve); the exit code when the answer is no. */
const approve = async (ctx: ApplyContext, plan: Plan): Promise<number | undefined> => {
  const { io, desired, control } = ctx;
  const index = indexDesired(desired);
  for (const note of afterCreateNotes(plan, index)) io.stderr.write(`${note}\n`);
  if (!needsPrompt(ctx) || control.signal.aborted) return undefined;
  const answer = await ask(
    io,
    "\nDo you want to perform these actions? Only 'yes' will be accepted: ",
    control.signal,
  );
  // Decision: anything but `yes` cancels with exit 1 (nothing was applied). Stopped by a
  // signal at the prompt, the run goes on below: nothing starts, and it exits 130 / 143.
  if (answer !== "yes" && !control.signal.aborted) {
    io.stderr.write("Apply cancelled: nothing was changed.\n");
    return EXIT.error;
  }
  return undefined;
};

const needsPrompt = (ctx: ApplyContext): boolean =>
  ctx.saved === undefined && ctx.expected === undefined && !ctx.flags.autoApprove;

/** A plan made without some secret values is shown, never applied. */
const refuseUnresolved = (plan: Plan): void => {
  if (!plan.saveable || plan.changes.some((c) => (c.unresolved_secrets ?? []).length > 0)) {
    throw new UsageError("the plan was made without some secret values, so it cannot be applied");
  }
};

/** The first plan, without the lock: read, checks, show, guards, approval. */
const planChecked = async (ctx: ApplyContext): Promise<Checked> => {
  const { saved, io, baseUrl, desired } = ctx;
  const read = await readPlan(ctx, "Reading live state");
  const live = read.live;
  refuseUnresolved(read.plan);
  // Issue 45: the plan's policies and guards, checked (showAndGuard) before any write.
  const plan = await withPlanPolicies(read.plan, ctx.desired, live, io, ctx.flags);
  if (saved) {
    // Decision: a plan saved by another Waybill version is still applied when its
    // changes are the same (the re-plan is what runs), with a warning.
    if (saved.waybill_version !== VERSION) {
      io.stderr.write(
        `Warning: the plan was saved by Waybill ${saved.waybill_version}; this is ${VERSION}\n`,
      );
    }
    checkTarget(saved, baseUrl, plan);
    checkStale(saved, plan, liveFingerprints(live), indexDesired(desired));
  }
  const shown = await showAndGuard(ctx, plan, "made before the lock");
  if (shown !== undefined) return { exit: shown };
  const refused = await approve(ctx, plan);
  if (refused !== undefined) return { exit: refused };
  return { plan, asked: needsPrompt(ctx) };
};

/**
 * Issue 29: under the lock, read again what the plan was made from (a change may have
 * landed between the plan and the lock: the run that held it). The same plan is applied;
 * a different one is planned once more here (under the lock nothing else writes), shown,
 * guarded and, when the first was approved at the prompt, asked for again; a saved plan is
 * refused as stale instead (exit 3), as its reviewers approved only the one.
 */
const replanUnderLock = async (
  ctx: ApplyContext,
  first: FirstPlan,
  touched: readonly ScopedAddress[],
  asked: boolean,
): Promise<Checked> => {
  const { saved, io, desired } = ctx;
  // design.md §5 "Scoped plans and the reviewed plan": only what the plan writes (`touched`:
  // the first plan's addresses) is read again (with the parents it needs), not the whole
  // org: a change there is what would make this plan wrong. The re-plan keeps the first
  // plan's scope, so its digest is comparable.
  const read = await readPlan(ctx, "Reading live state under the lock", touched);
  const live = read.live;
  refuseUnresolved(read.plan);
  // Compared again on what was read under the lock, before any change is written.
  checkDigest(ctx, read.plan, "made again under the lock");
  const same = sameAsFirst(first, read.plan);
  if (same !== undefined) return { plan: same, asked };
  const plan = await withPlanPolicies(read.plan, ctx.desired, live, io, ctx.flags);
  if (saved) {
    checkStale(saved, plan, liveFingerprints(live), indexDesired(desired));
    return { plan, asked };
  }
  io.stderr.write(
    "The live state changed between the plan and the lock (another run applied meanwhile): planned again under the lock.\n",
  );
  const shown = await showAndGuard(ctx, plan, "made again under the lock");
  if (shown !== undefined) return { exit: shown };
  if (asked) {
    const refused = await approve(ctx, plan);
    if (refused !== undefined) return { exit: refused };
  }
  return { plan, asked };
};

/** Run the operations, print the result, and say how the run ended. */
const applyPlan = async (ctx: ApplyContext, plan: Plan): Promise<number> => {
  const { io, options, api, desired, control } = ctx;
  const tty = io.stderr.isTTY === true;
  let finished = 0;
  // Issue 46: what the heartbeat says while calls run (off a terminal; heartbeat.ts). The
  // operations can outnumber the changes (a replace is two), so the total is runApply's.
  let total = plan.changes.length;
  io.heartbeat?.doing(() => `Applying: ${count(finished)} of ${count(total)} operations done`);
  const onEvent = (e: ApplyEvent): void => {
    total = e.total;
    if (e.type !== "finished") return;
    finished += 1;
    if (tty) io.stderr.write(`\rApplying ${finished}/${e.total}…`);
    // Issue 30: an address holds live names; no control character reaches the terminal.
    else if (e.outcome.status !== "skipped")
      io.stderr.write(`${stripControls(progressNotice(e.outcome))}\n`);
  };
  let result: Awaited<ReturnType<typeof runApply>>;
  try {
    // Stopped while planning, asking or waiting: runApply starts nothing and reports every
    // operation as skipped, so the summary still says what was left.
    const clock = clockOf(io);
    // Issue 42: every write batch first checks that the locks are still ours
    // (src/lock/write-gate.ts): one claims listing per batch, none without a lock.
    const writer = control.locked()
      ? writesConfirmedBy(api, control.confirmLocks, options.parallelism)
      : api;
    result = await runApply(writer, plan, desired, {
      parallelism: options.parallelism,
      signal: control.signal,
      onEvent,
      sleep: (ms) => clock.sleep(ms),
    });
  } finally {
    if (tty) io.stderr.write("\n");
  }
  // Issue 30: no control character of a live name reaches the terminal (in JSON a raw C1
  // character becomes its `\u` escape: the same value).
  if (options.format === "json") io.stdout.write(stripControls(renderResultJson(result, plan)));
  else
    await writeChunks(io.stdout, withNewlines(mapLines(renderResultLines(result), stripControls)));
  const status = applyStatus(result);
  // Issue 42: a lost lock stopped the run as Ctrl-C would: the lock's exit code.
  if (control.lockLost()) return EXIT.locked;
  const stoppedBy = control.stoppedBy();
  if (status === "interrupted") return stoppedBy ? exitCodeForSignal(stoppedBy) : EXIT.interrupted;
  return status === "applied" ? EXIT.ok : EXIT.error;
};

function* mapLines(lines: Iterable<string>, f: (line: string) => string): Generator<string> {
  for (const line of lines) yield f(line);
}
