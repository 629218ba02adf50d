import { readFileSync } from "node:fs";
import { Option } from "commander";
import { EXIT } from "./exit-codes.js";
import type { RegisterCommand } from "./register-command.js";

/** The package version, read once from package.json next to dist/. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

const EXAMPLES = `
Examples:
  # The version, and the Node.js and platform it runs on (for bug reports)
  $ waybill version

  # The same as JSON, e.g. to check a pinned version in CI
  $ waybill version --format json

Exit codes: 0.
`;

/**
 * `waybill version` (design.md §3 "Distribution and integration"), as Terraform users
 * expect next to `--version`. Decision: `--version` stays the bare version number (what
 * scripts parse today); the command adds the runtime, which a bug report needs.
 */
export const registerVersion: RegisterCommand = (program, io, setExit) => {
  program
    .command("version")
    .description("Print Waybill's version and the Node.js runtime and platform it runs on.")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json"]).default("text"),
    )
    .addHelpText("after", EXAMPLES)
    .action((flags: { readonly format: "text" | "json" }) => {
      const info = {
        version: VERSION,
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      };
      io.stdout.write(
        flags.format === "json"
          ? `${JSON.stringify(info, null, 2)}\n`
          : `waybill ${info.version}\nnode ${info.node} on ${info.platform}\n`,
      );
      setExit(EXIT.ok);
    });
};
