import { readFileSync } from "node:fs";
import { Argument } from "commander";
import { EXIT } from "./exit-codes.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # The config schema, next to your config, for your editor (offline); then make the first
  # line of each YAML file: # yaml-language-server: $schema=./waybill.schema.json
  $ waybill schema > waybill.schema.json

  # The schema of a saved plan file (waybill plan --out FILE)
  $ waybill schema plan

Exit codes: 0.
`;

/**
 * The schema texts, read when asked (not at start-up). Each `readFileSync(new URL(...))`
 * is written out in full: scripts/release.js inlines exactly this form into the single file,
 * so `node waybill.mjs schema` works with no schemas/ folder next to it.
 */
const SCHEMAS = {
  config: () => readFileSync(new URL("../../schemas/waybill.schema.json", import.meta.url), "utf8"),
  plan: () => readFileSync(new URL("../../schemas/plan.schema.json", import.meta.url), "utf8"),
} as const;

/** The text of a schema the package ships (export writes the config one next to its files). */
export const schemaText = (which: keyof typeof SCHEMAS): string => {
  const text = SCHEMAS[which]();
  return text.endsWith("\n") ? text : `${text}\n`;
};

/**
 * `waybill schema [config|plan]` (design.md, Additions: "Integration"): prints the JSON Schema of
 * the config (default) or of a saved plan, exactly the file the package ships in schemas/.
 * Decision: no network and no URL: the schema travels with the binary (the npm package,
 * and the single file, which has no schemas/ folder), so an editor can use it offline.
 */
export const registerSchema: RegisterCommand = (program, io, setExit) => {
  program
    .command("schema")
    .description("Print the JSON Schema of the config (default) or of a saved plan file.")
    .addArgument(
      new Argument("[which]", "config or plan").choices(["config", "plan"]).default("config"),
    )
    .addHelpText("after", EXAMPLES)
    .action((which: keyof typeof SCHEMAS) => {
      io.stdout.write(schemaText(which));
      setExit(EXIT.ok);
    });
};
