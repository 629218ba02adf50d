/**
 * `waybill pull [ADDRESS_GLOB…]` (issue 32, design.md §4 "Drift back into Git"): when the
 * service is right, write its values back into the config files, so the next plan is empty
 * for the chosen addresses. Reads only; writes files (or, with `--dry-run`, prints their
 * unified diff). Exit 0 written (or nothing to pull), 1 error.
 */
import { DEFAULT_MAX_FILE_BYTES } from "../config/load.js";
import { secretFieldAt } from "../config/references.js";
import { readConfigSchema } from "../config/schema-check.js";
import { stripControls } from "../core/controls.js";
import { UsageError } from "../core/errors.js";
import { readRegularFile } from "../core/read-regular.js";
import { writeUserFile } from "../core/write-atomic.js";
import type { ExportResult } from "../export/build.js";
import type { LiveState } from "../model/live.js";
import { globMatcher } from "../plan/plan.js";
import type { computePull } from "../pull/pull.js";
import { runPlan } from "../run/plan-run.js";
import {
  addCommonOptions,
  type CommonOptionFlags,
  collectSecretValues,
  connect,
  loadDesired,
  progressReporter,
  resolveCommonOptions,
} from "./common-options.js";
import { resolveIntoTarget } from "./config-target.js";
import { EXIT } from "./exit-codes.js";
import { withHeartbeat } from "./heartbeat.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # See what would change in the files; write nothing
  $ waybill pull --dry-run -c infra/waybill.yaml

  # Someone fixed a webhook by hand during an incident: take the service's values
  $ waybill pull 'project["gh/acme/api"].webhook["*"]' -c infra/waybill.yaml

--prune also removes from the config what the service no longer has. Secrets are never
written: an added secret is a \${env:NAME} placeholder, and its name is listed; a secret that
differs cannot be read back and stays drift (drift still reports it).
Exit codes: 0 written (or nothing to pull), 1 error.
`;

interface PullFlags extends CommonOptionFlags {
  readonly dryRun?: boolean;
  readonly into?: string;
  readonly prune?: boolean;
  readonly intoTemplate?: boolean;
}

export const registerPull: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("pull")
    .argument("[address...]", "address globs to pull (default: everything that drifted)")
    .description(
      "Write what changed in the service back into the config files (comments and layout kept), so the next plan is empty for it.",
    );
  addCommonOptions(command)
    .option("--dry-run", "print the unified diff of the files instead of writing them")
    .option("--into <file>", "add items the config does not declare to this file")
    .option("--prune", "remove from the config the items the service no longer has")
    .option(
      "--into-template",
      "write a value a template gives into the template (every item that extends it changes), not as an override on the item",
    )
    .addHelpText("after", EXAMPLES)
    .action(async (addresses: string[], flags: PullFlags) => {
      setExit(await withHeartbeat(io, (run) => pullCommand(addresses, flags, run)));
    });
};

const pullCommand = async (
  addresses: readonly string[],
  flags: PullFlags,
  io: CliIO,
): Promise<number> => {
  const options = resolveCommonOptions(flags, io);
  // Decision: secrets are not needed to pull (a secret cannot be read back), so the config
  // is planned as `plan --skip-secrets` plans it: a missing ${env:X} is no error here.
  // Issue 41: one that is set is used, so a webhook URL read from ${env:} that drifted is
  // compared (and named as not pulled), never "Nothing to pull".
  const desired = await loadDesired(options, io, "available");
  if (!desired) return EXIT.error;
  // Checked before the live state is read: a bad --into costs no request.
  const into =
    flags.into === undefined
      ? undefined
      : resolveIntoTarget(
          flags.into,
          typeof options.configPath === "string" ? [options.configPath] : options.configPath,
          desired.files,
        );
  const api = await connect(flags, options, io, desired);
  const progress = progressReporter(io, "Reading live state");
  let run: Awaited<ReturnType<typeof runPlan>>;
  try {
    run = await runPlan(api.readOnly(), desired, {
      ...(options.targets.length > 0 ? { targets: options.targets } : {}),
      forceSecrets: [],
      skipSecrets: true,
      onProgress: progress.onProgress,
    });
    progress.finish();
  } catch (err) {
    progress.abort();
    throw err;
  } finally {
    await api.close();
  }
  // Loaded here, not at the top: other commands never pay for these modules (issue 8).
  const [{ buildExport }, { computePull }, { dryRunPatch }] = await Promise.all([
    import("../export/build.js"),
    import("../pull/pull.js"),
    import("../pull/dry-run-patch.js"),
  ]);
  const exports = new Map<string, ExportResult>();
  for (const org of run.live.orgs) {
    if (org.status === "found") exports.set(org.slug, buildExport(org));
  }
  // The files as the loader read them (regular files only, never a FIFO's wait).
  const files = desired.files.map((path) => {
    const read = readRegularFile(path, DEFAULT_MAX_FILE_BYTES);
    if (!read.ok) throw new UsageError(`pull: ${path}: ${read.reason}; nothing was written`);
    return { path, text: read.bytes.toString("utf8") };
  });
  let result: ReturnType<typeof computePull>;
  try {
    result = computePull({
      files,
      plan: run.plan,
      exports,
      ...(addresses.length > 0 ? { select: globMatcher(addresses) } : {}),
      ...(flags.prune ? { prune: true } : {}),
      ...(into !== undefined ? { into } : {}),
      ...(flags.intoTemplate ? { intoTemplate: true } : {}),
      schema: readConfigSchema(),
    });
  } catch (err) {
    throw new UsageError(`pull: ${(err as Error).message}`, { cause: err });
  }
  if (flags.dryRun) {
    // Issue 41: a patch of the file's own lines; a line holding a secret (a literal env var
    // value, a webhook URL written in clear, a live webhook URL as a last guard) is masked
    // and never context (src/pull/dry-run-patch.ts).
    const secrets = [...collectSecretValues(desired), ...liveCredentialUrls(run.live)];
    let masked = 0;
    for (const f of result.files) {
      const patch = dryRunPatch(f.path, f.before, f.after, secrets, isSecretPlace);
      masked += patch.maskedChanges;
      io.stdout.write(patch.text);
    }
    if (masked > 0) {
      io.stderr.write(
        `Note: the diff masks ${masked} changed line${masked === 1 ? "" : "s"} that hold${masked === 1 ? "s" : ""} a secret; it does not apply as a patch there (pull without --dry-run writes them).\n`,
      );
    }
  } else {
    // Each file whole or not at all (temp file, fsync, rename; mode kept).
    for (const f of result.files) await writeUserFile(f.path, f.after);
  }
  const verb = flags.dryRun ? "Would write" : "Wrote";
  // Issue 41: "Nothing to pull" only when nothing drifted that pull knows of; drift it
  // cannot write (a secret, a URL read from the environment) is said as such.
  const cannot = new Set(result.skipped.map((s) => s.address)).size;
  io.stderr.write(
    result.files.length > 0
      ? `${verb} ${stripControls(result.files.map((f) => f.path).join(", "))} (${result.pulled.length} item${result.pulled.length === 1 ? "" : "s"} pulled)\n`
      : cannot > 0
        ? `Nothing pulled: ${cannot} item${cannot === 1 ? " drifted that pull cannot" : "s drifted that pull cannot"} write (below); drift and plan still report ${cannot === 1 ? "it" : "them"}.\n`
        : "Nothing to pull: the config already says what the service holds.\n",
  );
  if (run.plan.skipped_secrets > 0) {
    io.stderr.write(
      `Note: ${run.plan.skipped_secrets} value${run.plan.skipped_secrets === 1 ? " the config reads from the environment is" : "s the config reads from the environment are"} not set here, so not compared (drift compares them).\n`,
    );
  }
  // Issue 41: live names reach these lines; no control character (C1, bidi) is printed raw.
  for (const n of result.notes) io.stderr.write(`Note: ${stripControls(n)}\n`);
  for (const s of result.skipped) {
    io.stderr.write(`Not pulled: ${stripControls(s.address)}: ${stripControls(s.why)}\n`);
  }
  if (result.envVars.length > 0) {
    io.stderr.write(
      `The pulled config reads ${result.envVars.length} secret${result.envVars.length === 1 ? "" : "s"} from the environment (the service never returns their values); set each before plan:\n`,
    );
    for (const n of result.envVars) {
      io.stderr.write(`  ${n.name}  ${stripControls(n.address)}\n`);
    }
  }
  return EXIT.ok;
};

/** Every webhook URL the live state holds: credentials (design.md §1 "Secrets"). */
const liveCredentialUrls = (live: LiveState): string[] =>
  live.orgs.flatMap((org) =>
    org.status !== "found"
      ? []
      : [...org.projects.values()].flatMap((p) =>
          p.status !== "found" ? [] : (p.webhooks ?? []).map((w) => w.url),
        ),
  );

/**
 * A secret field of the config (src/config/references.ts `secretFieldAt`: env values,
 * webhook URLs and secrets, exporter headers), in an item or in a template (`templates.
 * projects.NAME.…` is read as `projects.NAME.…`): its literal is masked in the dry run even
 * when no loaded item holds it.
 */
const isSecretPlace = (path: readonly (string | number)[]): boolean =>
  secretFieldAt(path[0] === "templates" ? path.slice(1) : path) !== undefined;
