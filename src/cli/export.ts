/**
 * `waybill export` (design.md §1 "Commands", issue 6): write a config that describes the
 * live state, so adopting Waybill starts from a plan with no changes. Reads only.
 */
import { mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { InvalidArgumentError } from "commander";
import { writePrivateFile } from "../apply/private-file.js";
import { DEFAULT_MAX_FILE_BYTES } from "../config/load.js";
import { stripControls } from "../core/controls.js";
import { UsageError } from "../core/errors.js";
import { writeFileAtomic } from "../core/write-atomic.js";
import { ExportError } from "../export/errors.js";
import type { EnvVarNeed, runExport } from "../export/index.js";
import { withProgress } from "../live/progress.js";
import {
  ALLOWED_ORGS_OPTION,
  allowedOrgsOf,
  type CommonOptionFlags,
  type CommonOptions,
  checkAllowedOrgs,
  connect,
  DEFAULT_PARALLELISM,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_PARALLELISM,
  parseAllowedOrgs,
  parseTimeout,
  progressReporter,
  TIMEOUT_HELP,
} from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import { withHeartbeat } from "./heartbeat.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";
import { schemaText } from "./schema.js";

interface ExportFlags {
  readonly org: string;
  /** Absent when no `--project` was given (no default, so help does not show "[]"). */
  readonly project?: readonly string[];
  readonly allProjects?: boolean;
  readonly output?: string;
  readonly baseUrl?: string;
  readonly tokenFile?: string;
  readonly parallelism: number;
  readonly verbose?: boolean;
  readonly timeout?: number;
  readonly inlineUrls?: boolean;
  readonly allowedOrgs?: string;
  /** Issue 46: write into an output folder that already holds files. */
  readonly force?: boolean;
}

const EXAMPLES = `
Examples:
  # The org, its contexts and one project, to stdout
  $ SERVICE_TOKEN=... waybill export --org gh/acme --project gh/acme/api > waybill.yaml

  # Everything, one file per project, then check that plan shows no changes (before the
  # ${"$"}{env:NAME} variables printed on stderr are set, compare without secrets)
  $ waybill export --org gh/acme --all-projects -o infra/waybill/
  $ waybill plan -c infra/waybill/ --skip-secrets --detailed-exitcode

Secret values are never exported (the service never returns them): each one becomes a
\${env:NAME} placeholder, and the list of NAMEs, with the address each one feeds, is
printed on stderr. Exit codes: 0 written, 1 error.
`;

const collect = (value: string, previous: readonly string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

const parseParallelism = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARALLELISM) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_PARALLELISM}`);
  }
  return n;
};

/** The register function, with the clock the header's time comes from. */
export const makeRegisterExport =
  (now: () => Date): RegisterCommand =>
  (program, io, setExit) => {
    program
      .command("export")
      .description(
        "Write a config (YAML) that describes the live state of an org and chosen projects, so that plan on it shows no changes (reads only, never writes).",
      )
      .requiredOption("--org <slug>", "org slug, e.g. gh/acme")
      .option(
        "--project <slug>",
        "export this project too (repeatable; gh/acme/api, or api within --org)",
        collect,
      )
      .option("--all-projects", "export every project of the org")
      .option(
        "-o, --output <path>",
        "write to this file, or to this folder (ending in / or existing): org.yaml plus one file per project; files get mode 0600. Default: stdout",
      )
      // The common connection options (src/cli/common-options.ts); export reads no config.
      .option(
        "--base-url <url>",
        "service root, e.g. https://service.example.com (default: env SERVICE_BASE_URL); http:// only for loopback",
      )
      .option(
        "--token-file <path>",
        "read the API token from this file (default: env SERVICE_TOKEN); there is no --token flag because argv is visible to other users",
      )
      .option(
        "--parallelism <n>",
        `API requests in flight at once (1-${MAX_PARALLELISM})`,
        parseParallelism,
        DEFAULT_PARALLELISM,
      )
      .option("--timeout <seconds>", TIMEOUT_HELP, parseTimeout, DEFAULT_TIMEOUT_SECONDS)
      .option("--verbose", "log every API request on stderr (method, path, status, ms; redacted)")
      .option(
        "--inline-urls",
        "write webhook URLs in clear (they are credentials: by default each is a $" +
          "{env:NAME} placeholder, listed with the secrets)",
      )
      .option(
        "--force",
        "write into an output folder that already holds files (its files of the same names are replaced; by default export refuses, so hand edits are not overwritten)",
      )
      .option(...ALLOWED_ORGS_OPTION)
      .addHelpText("after", EXAMPLES)
      .action(async (flags: ExportFlags) => {
        setExit(await withHeartbeat(io, (run) => exportCommand(flags, run, now)));
      });
  };

export const registerExport: RegisterCommand = makeRegisterExport(() => new Date());

/** Decision: a path ending in `/` or naming an existing folder is a folder, else a file. */
const isFolderTarget = async (path: string): Promise<boolean> => {
  if (/[/\\]$/.test(path)) return true;
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Issue 46: `-o DIR` into a folder that already holds anything replaced the files of the
 * same names without a word (a hand-edited org.yaml among them). Decision: any entry counts
 * (a hidden file too: a folder holding only `.git` is a repository's root), and the check
 * runs before the first request, so a refusal reads and writes nothing. `--force` writes as
 * before. A `-o FILE` that exists is replaced as before (naming one file is the choice).
 */
const refuseNonEmptyFolder = async (path: string, force: boolean): Promise<void> => {
  if (force) return;
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch {
    return; // Absent: export creates it. Not a folder: writing says why.
  }
  if (entries.length === 0) return;
  const shown = entries.sort().slice(0, 5);
  throw new UsageError(
    `the output folder ${path} already holds files (${shown.join(", ")}${entries.length > shown.length ? `, and ${entries.length - shown.length} more` : ""}); nothing was written. Export into a new or empty folder, or pass --force to write into ${path} anyway (files of the same names are replaced)`,
  );
};

const describeNeed = (n: EnvVarNeed): string =>
  n.what === "env var" ? n.address : `${n.address} (${n.what})`;

const exportCommand = async (flags: ExportFlags, io: CliIO, now: () => Date): Promise<number> => {
  const projects = flags.project ?? [];
  if (flags.allProjects && projects.length > 0) {
    throw new UsageError("--project and --all-projects cannot be combined: choose one");
  }
  // design.md §4 "Integration": an org outside --allowed-orgs is refused before any request.
  checkAllowedOrgs(
    [flags.org],
    allowedOrgsOf(
      flags.allowedOrgs !== undefined
        ? { allowedOrgs: parseAllowedOrgs(flags.allowedOrgs, "--allowed-orgs") }
        : {},
      io,
    ),
  );
  const commonFlags: CommonOptionFlags = {
    config: "",
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.tokenFile !== undefined ? { tokenFile: flags.tokenFile } : {}),
    parallelism: flags.parallelism,
    target: [],
    color: false,
    verbose: flags.verbose === true,
  };
  const options: CommonOptions = {
    configPath: "",
    format: "text",
    parallelism: flags.parallelism,
    targets: [],
    excludes: [],
    color: false,
    verbose: flags.verbose === true,
    timeoutMs: Math.round((flags.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
  };
  const baseUrl = flags.baseUrl ?? io.env.SERVICE_BASE_URL ?? "";
  const folder = flags.output !== undefined && (await isFolderTarget(flags.output));
  if (folder && flags.output !== undefined)
    await refuseNonEmptyFolder(flags.output, flags.force === true);
  const api = await connect(commonFlags, options, io);
  const progress = progressReporter(io, "Reading live state");
  const exportedAt = now();
  // Loaded here, not at the top: other commands never pay for export's modules (issue 8).
  const {
    renderFolder,
    renderSingle,
    runExport: exportLive,
    SCHEMA_FILE,
  } = await import("../export/index.js");
  let result: Awaited<ReturnType<typeof runExport>>;
  try {
    result = await exportLive(withProgress(api.readOnly(), progress.onProgress), {
      org: flags.org,
      inlineUrls: flags.inlineUrls === true,
      projects: flags.allProjects
        ? { kind: "all" }
        : projects.length > 0
          ? { kind: "slugs", slugs: projects }
          : { kind: "none" },
    });
  } finally {
    progress.finish();
    await api.close();
  }
  const header = { exportedAt, baseUrl: baseUrl.trim() };

  // Issue 19: never write a file that `validate` would refuse (the loader's per-file bound):
  // checked before anything is written.
  const files = folder
    ? renderFolder(result, header)
    : [{ name: flags.output ?? "stdout", content: renderSingle(result, header) }];
  for (const f of files) {
    const bytes = Buffer.byteLength(f.content, "utf8");
    if (bytes <= DEFAULT_MAX_FILE_BYTES) continue;
    const size = `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
    throw new ExportError(
      folder
        ? `${f.name} would be ${size}, over the ${DEFAULT_MAX_FILE_BYTES / (1024 * 1024)} MiB a config file may hold (waybill validate would refuse it); nothing was written: export fewer items at once (--project), or split that file by hand`
        : `the export is ${size}, over the ${DEFAULT_MAX_FILE_BYTES / (1024 * 1024)} MiB a config file may hold (waybill validate would refuse it); nothing was written: write a folder instead, org.yaml plus one file per project: -o DIR/`,
    );
  }
  if (flags.output === undefined) {
    io.stdout.write(files[0]?.content ?? "");
  } else if (folder) {
    await mkdir(flags.output, { recursive: true, mode: 0o700 });
    const ours = new Set(files.map((f) => f.name));
    for (const f of files) await writePrivateFile(join(flags.output, f.name), f.content);
    // The schema the files' first line names (render.ts SCHEMA_FILE), for editors, offline.
    await writeFileAtomic(join(flags.output, SCHEMA_FILE), schemaText("config"));
    const others = (await readdir(flags.output)).filter((n) => /\.ya?ml$/i.test(n) && !ours.has(n));
    io.stderr.write(
      `Wrote ${files.map((f) => f.name).join(", ")}, ${SCHEMA_FILE} to ${flags.output}\n`,
    );
    if (others.length > 0) {
      // Decision: other YAML files in the folder are left alone, but a config folder merges
      // every *.yaml file, so they are named here (a stale project file would be planned too).
      io.stderr.write(
        `Warning: ${flags.output} also holds ${others.join(", ")}, which plan -c ${flags.output} would read too\n`,
      );
    }
  } else {
    await writePrivateFile(flags.output, files[0]?.content ?? "");
    await writeFileAtomic(join(dirname(flags.output), SCHEMA_FILE), schemaText("config"));
    io.stderr.write(`Wrote ${flags.output} and ${SCHEMA_FILE} next to it\n`);
  }

  // Issue 30: warnings and addresses quote live names: no control character is printed.
  for (const w of result.warnings) io.stderr.write(`Warning: ${stripControls(w)}\n`);
  // Decision: without --project or --all-projects only the org settings and contexts are
  // exported (an org may have hundreds of projects; exporting them all is a choice).
  if (projects.length === 0 && !flags.allProjects) {
    io.stderr.write(
      "Note: no project was exported; pass --project SLUG (repeatable) or --all-projects\n",
    );
  }
  if (result.envVars.length === 0) {
    io.stderr.write("The exported config needs no environment variables.\n");
  } else {
    const width = result.envVars.reduce((w, n) => Math.max(w, n.name.length), 0);
    io.stderr.write(
      `The exported config needs ${result.envVars.length} environment variable${result.envVars.length === 1 ? "" : "s"} (secret values${flags.inlineUrls === true ? "" : " and webhook URLs"} are never written; set each before plan${flags.inlineUrls === true ? "" : ", or export again with --inline-urls to write the URLs in clear"}):\n`,
    );
    for (const n of result.envVars)
      io.stderr.write(`  ${n.name.padEnd(width)}  ${stripControls(describeNeed(n))}\n`);
  }
  return EXIT.ok;
};
