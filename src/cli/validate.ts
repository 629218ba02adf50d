import { Option } from "commander";
import {
  DEFAULT_CONFIG_PATH,
  formatDiagnostic,
  formatSummary,
  loadConfig,
  summarizeConfig,
} from "../config/index.js";
import type { RegisterCommand } from "./commands.js";
import { EXIT } from "./exit-codes.js";

interface ValidateFlags {
  readonly config: string;
  readonly format: "text" | "json";
  readonly skipSecrets?: boolean;
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
      "config file, or a folder whose *.yaml/*.yml files are merged",
      DEFAULT_CONFIG_PATH,
    )
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json"]).default("text"),
    )
    .option(
      "--skip-secrets",
      "do not resolve secret references (env:, file:); for pull requests from forks",
    )
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  # Check ./waybill.yaml, secret references included (no API call)",
        "  $ waybill validate",
        "",
        "  # A folder of *.yaml files, problems as JSON (for editors and bots)",
        "  $ waybill validate -c config/ --format json",
        "",
        "Exit codes: 0 valid, 1 invalid (every problem is listed, not only the first).",
        "",
      ].join("\n"),
    )
    .action(async (flags: ValidateFlags) => {
      const result = await loadConfig(flags.config, {
        env: io.env,
        resolveSecrets: flags.skipSecrets !== true,
      });
      if (flags.format === "json") {
        const doc = result.ok
          ? {
              format_version: 1,
              valid: true,
              files: result.config.files,
              summary: summarizeConfig(result.config),
              diagnostics: [],
            }
          : { format_version: 1, valid: false, diagnostics: result.diagnostics };
        io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      } else if (result.ok) {
        io.stdout.write(`OK: ${formatSummary(summarizeConfig(result.config))}\n`);
      } else {
        for (const d of result.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
        const n = result.diagnostics.length;
        io.stderr.write(`${n} ${n === 1 ? "problem" : "problems"} found; the config is invalid\n`);
      }
      setExit(result.ok ? EXIT.ok : EXIT.error);
    });
};
