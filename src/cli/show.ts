/**
 * `waybill show PLANFILE` (design.md §3 "Distribution and integration"): render a plan saved
 * with `plan --out` as text, JSON or Markdown, exactly as `plan` printed it, without a token
 * or a network call (a saved plan holds no secret, src/apply/saved-plan.ts). For a review
 * step that shows the approved plan again, or turns it into a PR comment later.
 */
import { Option } from "commander";
import { readSavedPlan, savedPlanDisagreements } from "../apply/saved-plan.js";
import { summarise } from "../plan/finish.js";
import { maskPlanUrls } from "../plan/mask-urls.js";
import type { Plan } from "../plan/types.js";
import { stripControls } from "../render/index.js";
import { OUTPUT_FORMATS, type OutputFormat } from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import { writeChunks } from "./io.js";
import { renderPlan } from "./plan.js";
import type { RegisterCommand } from "./register-command.js";

interface ShowFlags {
  readonly format: OutputFormat;
  readonly color: boolean;
}

const EXAMPLES = `
Examples:
  # Save a plan, then look at it again (no token, no API call)
  $ waybill plan -c infra/waybill.yaml --out plan.json
  $ waybill show plan.json

  # The saved plan as a Markdown pull-request comment
  $ waybill plan -c infra/waybill.yaml --out plan.json
  $ waybill show plan.json --format markdown > plan.md

Exit codes: 0 shown, 1 the file is missing or is not a saved plan.
`;

export const registerShow: RegisterCommand = (program, io, setExit) => {
  program
    .command("show")
    .description(
      "Render a plan saved with `plan --out FILE` as text, JSON or Markdown, as `plan` printed it. Offline: reads only the file.",
    )
    .argument("<planfile>", "a plan saved with `waybill plan --out FILE`")
    .addOption(
      new Option("--format <format>", "output format on stdout")
        .choices([...OUTPUT_FORMATS])
        .default("text"),
    )
    .option("--no-color", "never colour the output (colour is used only on a terminal)")
    .addHelpText("after", EXAMPLES)
    .action(async (file: string, flags: ShowFlags) => {
      const saved = await readSavedPlan(file);
      // The same colour rule as every command (common-options.ts resolveCommonOptions).
      const color = flags.color && io.stdout.isTTY === true && !io.env.NO_COLOR;
      await writeChunks(
        io.stdout,
        renderPlan(asApplied(saved.plan), { format: flags.format, color }),
      );
      // The file's own strings are data: no control character reaches the terminal.
      io.stderr.write(
        stripControls(
          `Saved by waybill ${String(saved.waybill_version)} for ${saved.base_url} (${saved.orgs.map((o) => o.slug).join(", ")}).`,
        ) + "\n",
      );
      for (const wrong of savedPlanDisagreements(saved.plan)) {
        io.stderr.write(
          `Warning: the file was edited: ${stripControls(wrong)}; \`waybill apply\` refuses it\n`,
        );
      }
      setExit(EXIT.ok);
    });
};

/**
 * Issue 30: a saved plan is shown as `apply FILE` would run it. The summary line is counted
 * from the changes (the file's own `summary` is a claim, not an authority), and a URL a file
 * holds in full is masked as `plan` masks it (src/plan/mask-urls.ts); every string is
 * stripped of control characters by the renderers (src/render/sanitize.ts).
 */
export const asApplied = (plan: Plan): Plan => {
  const changes = maskPlanUrls(plan.changes);
  return { ...plan, changes, summary: summarise(changes) };
};
