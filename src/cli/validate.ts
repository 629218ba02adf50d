import { Option } from "commander";
import { ignoreFieldWarnings } from "../config/ignore-glob.js";
import {
  type ConfigDiagnostic,
  DEFAULT_CONFIG_PATH,
  formatDiagnostic,
  formatSummary,
  type LoadResult,
  loadConfig,
  summarizeConfig,
} from "../config/index.js";
import { shellVariableWarnings } from "../config/shell-vars.js";
import type { DesiredConfig } from "../model/desired.js";
import type { PolicyViolation } from "../model/policy.js";
import { configSubjects } from "../policy/subjects.js";
import { violationAnnotation, violationLine } from "../render/policy.js";
import { collectConfig } from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { violationsOn } from "./policy-violations.js";
import type { RegisterCommand } from "./register-command.js";

/** Issue 45: the config's `on: config` rules, offline. */
const configViolations = (config: DesiredConfig, io: CliIO): PolicyViolation[] =>
  violationsOn("config", config, () => configSubjects(config), io);

/**
 * A diagnostic as a GitHub workflow command, `::error file=F,line=L,col=C,title=T::message`,
 * which the runner shows on that line of the pull request's diff. Escaping is the runner's
 * (actions/toolkit `command.ts`): `%`, CR and LF in the message; also `:` and `,` in
 * property values, which would otherwise end the property.
 */
export const githubAnnotation = (
  d: ConfigDiagnostic,
  level: "error" | "warning" = "error",
): string => {
  const data = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const title = d.path === "" ? "waybill validate" : `waybill validate: ${d.path}`;
  return `::${level} file=${prop(d.file)},line=${d.line},col=${d.col},title=${prop(title)}::${data(d.message)}`;
};

interface ValidateFlags {
  readonly config: string | string[];
  readonly format: "text" | "json" | "github";
  readonly skipSecrets?: boolean;
  /** Issue 43: warnings (a secret written in clear) are errors. */
  readonly strict?: boolean;
}

/**
 * `waybill validate`: offline — parse, schema-check and cross-check the config, resolve
 * secret references (design.md §1 "Commands"). Never makes a network call: it builds no
 * API client at all.
 *
 * Decision: `--skip-secrets` (not in the issue) validates a config whose secrets are not
 * available, e.g. in a pull request from a fork, as `plan --skip-secrets` does.
 *
 * Decision: in text format the problems go to stderr (like every command's errors) and
 * the OK summary to stdout; in json format one JSON document goes to stdout either way,
 * so CI can parse it without looking at the exit code first.
 */
export const registerValidate: RegisterCommand = (program, io, setExit) => {
  program
    .command("validate")
    .description(
      "Check the config offline (YAML, schema, cross-field rules, secret references) and print every problem as FILE:LINE:COL: PATH: message. Makes no API call.",
    )
    .option(
      "-c, --config <path>",
      "config file, or a folder whose *.yaml/*.yml files (sub-folders too) are merged; repeatable, several are merged",
      collectConfig,
      DEFAULT_CONFIG_PATH,
    )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["text", "json", "github"])
        .default("text"),
    )
    .option(
      "--skip-secrets",
      "do not resolve secret references (env:, file:); for pull requests from forks",
    )
    .option(
      "--strict",
      "treat warnings as errors: a secret written in clear (a literal signing_secret, webhook trigger secret or exporter header value, an env value shaped like a known token) fails validation",
    )
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  # Check ./waybill.yaml, secret references included (no API call)",
        "  $ waybill validate",
        "",
        "  # A folder of *.yaml files, problems as GitHub annotations on the pull request's lines",
        "  $ waybill validate -c config/ --format github",
        "",
        "Exit codes: 0 valid, 1 invalid (every problem is listed, not only the first; with",
        "--strict, warnings too: a secret written in clear), or a policy rule (on: config) of",
        "level error violated.",
        "",
      ].join("\n"),
    )
    .action(async (flags: ValidateFlags) => {
      const loaded = await loadConfig(flags.config, {
        env: io.env,
        resolveSecrets: flags.skipSecrets !== true,
      });
      // Issue 43, design.md §5 "Secrets and files": `--strict` refuses what is otherwise a
      // warning (a literal value in a secret-only field). Warnings never hold the value.
      const result: LoadResult =
        loaded.ok && flags.strict === true && loaded.warnings.length > 0
          ? { ok: false, diagnostics: loaded.warnings }
          : loaded;
      const warnings = result.ok ? result.warnings : [];
      const violations = result.ok ? configViolations(result.config, io) : [];
      const failed = violations.some((v) => v.level === "error");
      if (flags.format === "json") {
        const doc = result.ok
          ? {
              format_version: 1,
              valid: !failed,
              files: result.config.files,
              summary: summarizeConfig(result.config),
              diagnostics: [],
              warnings,
              ...(violations.length > 0 ? { policy_violations: violations } : {}),
            }
          : { format_version: 1, valid: false, diagnostics: result.diagnostics };
        io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      } else if (flags.format === "github") {
        // Decision: annotations go to stdout, where the runner reads workflow commands; the
        // summary too, so one stream tells the whole story in the job log.
        for (const w of warnings) io.stdout.write(`${githubAnnotation(w, "warning")}\n`);
        for (const v of violations) io.stdout.write(`${violationAnnotation(v)}\n`);
        if (result.ok && !failed)
          io.stdout.write(`OK: ${formatSummary(summarizeConfig(result.config))}\n`);
        else if (!result.ok)
          for (const d of result.diagnostics) io.stdout.write(`${githubAnnotation(d)}\n`);
      } else if (result.ok) {
        for (const w of [
          ...shellVariableWarnings(result.config),
          ...ignoreFieldWarnings(result.config),
        ])
          io.stderr.write(`Warning: ${w}\n`);
        for (const w of warnings) io.stderr.write(`Warning: ${formatDiagnostic(w)}\n`);
        for (const v of violations) io.stderr.write(`${violationLine(v)}\n`);
        if (failed) {
          const n = violations.filter((v) => v.level === "error").length;
          io.stderr.write(
            `${n} policy ${n === 1 ? "violation" : "violations"} of level error; the config is invalid\n`,
          );
        } else io.stdout.write(`OK: ${formatSummary(summarizeConfig(result.config))}\n`);
      } else {
        for (const d of result.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
        const n = result.diagnostics.length;
        io.stderr.write(`${n} ${n === 1 ? "problem" : "problems"} found; the config is invalid\n`);
      }
      setExit(result.ok && !failed ? EXIT.ok : EXIT.error);
    });
};
