/**
 * `waybill plan` (design.md §1 "Commands", issue 4): read the live state, print exactly what
 * apply would change. The plan holds a read-only client, so it cannot write by construction
 * (design.md §2). The plan goes to stdout, progress to stderr.
 */
import { indexDesired } from "../apply/desired-index.js";
import { savedPlanMeta, writeSavedPlan } from "../apply/saved-plan.js";
import { configDigest } from "../config/digest.js";
import { UsageError } from "../core/errors.js";
import type { LiveState } from "../model/live.js";
import type { Plan } from "../plan/types.js";
import { desiredLocator } from "../policy/subjects.js";
import { changeAnnotations, type Locate } from "../render/change-annotations.js";
import { renderJson, renderMarkdown, renderTextLines, sanitizePlan } from "../render/index.js";
import { MARKDOWN_LIMIT, type MarkdownContext } from "../render/markdown.js";
import { policyAnnotations } from "../render/policy.js";
import { runPlan } from "../run/plan-run.js";
import { CHANGED_SINCE_OPTION, checkedRef, scopeFor } from "./changed-since.js";
import { commitOf, configLabel } from "./commit.js";
import {
  addCommonOptions,
  addShowUrlsOption,
  type CommonOptionFlags,
  type CommonOptions,
  collectSecretValues,
  connectWith,
  liveCredentialUrls,
  loadDesired,
  OUTPUT_FORMATS,
  progressReporter,
  resolveCommonOptions,
  resolveConnection,
  secretBook,
} from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import { withHeartbeat } from "./heartbeat.js";
import { type CliIO, clockOf, withNewlines, writeChunks } from "./io.js";
import { lockNotes } from "./lock-options.js";
import {
  addPolicyCmdOptions,
  type PolicyCmdFlags,
  policyErrors,
  withPlanPolicies,
} from "./policy-options.js";
import type { RegisterCommand } from "./register-command.js";
import { VERSION } from "./version.js";

interface PlanFlags extends CommonOptionFlags, PolicyCmdFlags {
  readonly out?: string;
  readonly detailedExitcode?: boolean;
  /** `--force-secrets` alone is true; with a value it is a glob. */
  readonly forceSecrets?: string | boolean;
  readonly skipSecrets?: boolean;
  /** `--changed-since REF` (design.md §5 "Scoped plans and the reviewed plan"). */
  readonly changedSince?: string;
}

const EXAMPLES = `
Examples:
  # Review a change before merging (exit 2 when something would change)
  $ SERVICE_TOKEN=... waybill plan -c infra/waybill.yaml --detailed-exitcode

  # One project only, as a Markdown PR comment, without the secrets a fork PR cannot see
  $ waybill plan --target 'project["gh/acme/api"]*' --format markdown --skip-secrets

Exit codes: 0 success (with --detailed-exitcode: no changes), 2 changes (only with
--detailed-exitcode), 1 error (invalid config, unreadable live state, a policy rule of
level error violated, --policy-cmd failed, ...).
`;

export const registerPlan: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("plan")
    .description(
      "Read the live state of what the config declares and print the changes apply would make (reads only, never writes).",
    );
  addPolicyCmdOptions(addShowUrlsOption(addCommonOptions(command, { formats: OUTPUT_FORMATS })))
    .option(
      "--out <file>",
      "also save the plan (JSON with what apply checks it by; mode 0600, no secret values) for `waybill apply FILE`",
    )
    .option("--detailed-exitcode", "exit 2 when the plan has changes, 0 when it has none")
    .option(...CHANGED_SINCE_OPTION)
    .option(
      "--force-secrets [glob]",
      "re-set secrets whose last four characters match (all, or those whose address matches GLOB)",
    )
    .option(
      "--skip-secrets",
      // "$" + "{" keeps the literal reference syntax out of a template placeholder look-alike.
      "plan without resolving $" +
        "{env:} / $" +
        "{file:} values (for pull requests from forks); cannot be saved with --out",
    )
    .addHelpText("after", EXAMPLES)
    .action(async (flags: PlanFlags) => {
      setExit(await withHeartbeat(io, (run) => planCommand(flags, run)));
    });
};

/**
 * The plan in the chosen format as text pieces, each ending in a newline, for `writeChunks`
 * (also `waybill show`, which renders a saved plan the same way).
 */
export const renderPlan = (
  plan: Plan,
  options: Pick<CommonOptions, "format" | "color">,
  context: MarkdownContext = {},
  locate: Locate = () => undefined,
): Iterable<string> => {
  switch (options.format) {
    case "json":
      return [renderJson(plan)];
    case "markdown":
      return [ensureNewline(renderMarkdown(plan, MARKDOWN_LIMIT, context))];
    case "text":
      return withNewlines(renderTextLines(plan, { color: options.color }));
    case "github":
      return withNewlines(githubPlanLines(plan, locate));
  }
};

/** Issue 45: the annotations first (the runner reads them anywhere), then the text plan. */
function* githubPlanLines(plan: Plan, locate: Locate): Generator<string> {
  yield* policyAnnotations(sanitizePlan(plan));
  // Issue 46: each change at the config line that declares it.
  yield* changeAnnotations(plan, locate);
  yield* renderTextLines(plan, { color: false });
}

/** Decision: `--force-secrets` with no glob selects every secret (`*`). */
export const forceSecretsGlobs = (value: string | boolean | undefined): readonly string[] =>
  value === undefined || value === false ? [] : value === true ? ["*"] : [value];

const planCommand = async (flags: PlanFlags, io: CliIO): Promise<number> => {
  const options = resolveCommonOptions(flags, io);
  if (flags.out !== undefined && flags.skipSecrets) {
    // design.md §1 "Secrets": a plan made with --skip-secrets "cannot be saved for apply".
    throw new UsageError(
      "--out cannot be combined with --skip-secrets: a plan made without secret values cannot be applied",
    );
  }
  if (flags.forceSecrets !== undefined && flags.skipSecrets) {
    throw new UsageError("--force-secrets cannot be combined with --skip-secrets");
  }
  const since = checkedRef(flags.changedSince);
  const desired = await loadDesired(options, io, !flags.skipSecrets);
  if (!desired) return EXIT.error;
  const scoping = await scopeFor(since, options.configPath, desired, io);
  const connection = await resolveConnection(flags, io);
  const book = secretBook(() => collectSecretValues(desired));
  const api = connectWith(connection, options, io, desired, book);
  const forceSecrets = forceSecretsGlobs(flags.forceSecrets);
  const progress = progressReporter(io, "Reading live state");
  let plan: Plan;
  let live: LiveState;
  try {
    ({ plan, live } = await runPlan(api.readOnly(), desired, {
      ...(options.targets.length > 0 ? { targets: options.targets } : {}),
      ...(options.excludes.length > 0 ? { excludes: options.excludes } : {}),
      ...scoping.options,
      forceSecrets,
      showUrls: options.showUrls === true,
      skipSecrets: flags.skipSecrets === true,
      onProgress: progress.onProgress,
    }));
    progress.finish();
    book.add(liveCredentialUrls(live));
  } catch (err) {
    progress.abort();
    throw err;
  }
  plan = scoping.note(plan);
  // Issue 45: the config's plan rules, --policy-cmd, and what apply's guards would refuse.
  plan = await withPlanPolicies(plan, desired, live, io, flags, connection.token);
  for (const note of lockNotes(live, clockOf(io).now())) io.stderr.write(`${note}\n`);
  // Issue 46: the comment names the config and the commit it was planned from.
  const context: MarkdownContext =
    options.format === "markdown"
      ? {
          config: configLabel(options.configPath),
          ...optional("commit", commitOf(io.env, options.configPath)),
        }
      : {};
  await writeChunks(
    io.stdout,
    renderPlan(
      plan,
      options,
      context,
      options.format === "github" ? desiredLocator(desired) : undefined,
    ),
  );
  if (flags.out !== undefined) {
    // The saved plan format with what apply checks it by (src/apply/saved-plan.ts).
    await writeSavedPlan(
      flags.out,
      plan,
      savedPlanMeta({
        version: VERSION,
        baseUrl: connection.baseUrl,
        configDigest: configDigest(desired),
        live,
        forceSecrets,
        plan,
        desired: indexDesired(desired),
      }),
    );
    io.stderr.write(`Saved the plan to ${flags.out}\n`);
  }
  // Issue 45: an error-level violation fails the plan (a warning never changes the exit).
  if (policyErrors(plan).length > 0) return EXIT.error;
  return flags.detailedExitcode && plan.changes.length > 0 ? EXIT.changes : EXIT.ok;
};

export const ensureNewline = (text: string): string => (text.endsWith("\n") ? text : `${text}\n`);

/** `{ [key]: value }` when the value is known, else nothing (for a spread). */
const optional = <K extends string>(
  key: K,
  value: string | undefined,
): Partial<Record<K, string>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, string>);
