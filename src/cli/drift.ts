/**
 * `waybill drift` (design.md §1 "Commands", issue 4): a read-only audit. Drift is any change
 * a plan would make: the live service moved away from Git. Besides the drift, it lists, as
 * information, live items the config does not manage (src/live/unmanaged.ts).
 * Exit 0 none, 2 drift, 1 error.
 */

import { listUnmanaged, type UnmanagedItem } from "../live/unmanaged.js";
import { ancestorsOf, compileAddressGlob } from "../model/address.js";
import type { Plan } from "../plan/types.js";
import { renderJson, sanitizePlan, stripControls } from "../render/index.js";
import { runPlan } from "../run/plan-run.js";
import {
  addCommonOptions,
  addShowUrlsOption,
  type CommonOptionFlags,
  connect,
  loadDesired,
  OUTPUT_FORMATS,
  type OutputFormat,
  progressReporter,
  resolveCommonOptions,
} from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # Nightly audit in CI: fails (exit 2) when someone changed the service by hand
  $ SERVICE_TOKEN=... waybill drift -c infra/

  # Machine-readable report of one context's drift
  $ waybill drift --target 'context["deploy-prod"]*' --format json

Exit codes: 0 no drift, 2 drift, 1 error.
`;

export const registerDrift: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("drift")
    .description(
      "Audit the live service against the config (reads only): name every item that differs, and list live items the config does not manage.",
    );
  addShowUrlsOption(addCommonOptions(command, { formats: OUTPUT_FORMATS }))
    .addHelpText("after", EXAMPLES)
    .action(async (flags: CommonOptionFlags) => {
      setExit(await driftCommand(flags, io));
    });
};

const driftCommand = async (flags: CommonOptionFlags, io: CliIO): Promise<number> => {
  const options = resolveCommonOptions(flags, io);
  const desired = await loadDesired(options, io, true);
  if (!desired) return EXIT.error;
  const api = (await connect(flags, options, io, desired)).readOnly();
  const progress = progressReporter(io, "Reading live state");
  let plan: Plan;
  let unmanaged: UnmanagedItem[];
  try {
    const result = await runPlan(api, desired, {
      ...(options.targets.length > 0 ? { targets: options.targets } : {}),
      forceSecrets: [],
      skipSecrets: false,
      showUrls: options.showUrls === true,
      onProgress: progress.onProgress,
    });
    plan = result.plan;
    // Issue 19: what `keep_unlisted` left alone is unmanaged too, and said why.
    const kept = (result.plan.kept_unlisted ?? []).map(
      (k): UnmanagedItem => ({ address: k.address, resource_type: k.resource_type, why: "kept" }),
    );
    unmanaged = withinTargets(
      [...(await listUnmanaged(api, desired.orgs, result.live)), ...kept],
      options.targets,
    );
    progress.finish();
  } catch (err) {
    progress.abort();
    throw err;
  }
  io.stdout.write(renderDrift(plan, unmanaged, options.format));
  return plan.changes.length > 0 ? EXIT.changes : EXIT.ok;
};

/**
 * Decision: `--target` narrows the unmanaged list as it narrows the plan: an item is kept
 * when a glob matches its address or one of its parents' (src/model/address.ts).
 */
export const withinTargets = (
  items: readonly UnmanagedItem[],
  targets: readonly string[],
): UnmanagedItem[] => {
  if (targets.length === 0) return [...items];
  const globs = targets.map(compileAddressGlob);
  return items.filter((u) =>
    [u.address, ...ancestorsOf(u.address)].some((a) => globs.some((g) => g.test(a))),
  );
};

/** One line per drifted item, in words an auditor reads: what differs, not what to do. */
const describeChange = (c: Plan["changes"][number]): string => {
  const fields = (c.fields ?? []).map((f) => f.path);
  const which =
    (fields.length > 0 ? `: ${fields.join(", ")}` : "") +
    (c.notes && c.notes.length > 0 ? ` (${c.notes.join("; ")})` : "");
  switch (c.action) {
    case "create":
      return `+ ${c.address}: in the config, missing on the service`;
    case "delete":
      return `- ${c.address}: on the service, not in the config`;
    case "update":
      return `~ ${c.address}: differs${which}`;
    case "replace":
      return `-/+ ${c.address}: differs (needs replacement)${which}`;
  }
};

const describeUnmanaged = (u: UnmanagedItem): string =>
  `${u.address} (${
    u.why === "ignored"
      ? "excluded by ignore"
      : u.why === "kept"
        ? "not in the config; left alone by keep_unlisted"
        : u.why === "legacy"
          ? "legacy V2 schedule: still runs on the old mechanism, which Waybill cannot manage; move it to a schedule trigger of a pipeline"
          : "collection not managed by the config"
  })`;

/** A line of the information list; a legacy schedule listing that was not read says so. */
const describeInfo = (u: UnmanagedItem): string =>
  u.why === "not_read"
    ? `${u.address} (not read: ${u.reason ?? "the listing failed"}; whether legacy V2 schedules still run here is unknown)`
    : describeUnmanaged(u);

export const renderDrift = (
  raw: Plan,
  rawUnmanaged: readonly UnmanagedItem[],
  format: OutputFormat,
): string => {
  // Issue 30: live names reach the terminal or the comment without control characters.
  const plan = sanitizePlan(raw);
  const unmanaged = rawUnmanaged.map((u) => ({ ...u, address: stripControls(u.address) }));
  const drifted = plan.changes.length;
  switch (format) {
    case "json":
      return `${JSON.stringify(
        {
          drift: drifted > 0,
          plan: JSON.parse(renderJson(plan)) as unknown,
          unmanaged,
        },
        null,
        2,
      )}\n`;
    case "markdown": {
      const head =
        drifted === 0
          ? "**No drift**: the service matches the config."
          : `**Drift**: ${drifted} item${drifted === 1 ? " differs" : "s differ"} from the config.`;
      const lines = plan.changes.map((c) => `- \`${describeChange(c)}\``);
      const info =
        unmanaged.length === 0
          ? []
          : [
              "",
              `<details><summary>${unmanaged.length} unmanaged live item${unmanaged.length === 1 ? "" : "s"} (information)</summary>`,
              "",
              ...unmanaged.map((u) => `- \`${describeInfo(u)}\``),
              "",
              "</details>",
            ];
      return `${[head, ...(lines.length > 0 ? ["", ...lines] : []), ...info].join("\n")}\n`;
    }
    case "text": {
      const head =
        drifted === 0
          ? "No drift: the service matches the config."
          : `Drift: ${drifted} item${drifted === 1 ? " differs" : "s differ"} from the config:`;
      const lines = plan.changes.map((c) => `  ${describeChange(c)}`);
      const info =
        unmanaged.length === 0
          ? []
          : [
              "",
              "Unmanaged live items (information, not drift):",
              ...unmanaged.map((u) => `  ${describeInfo(u)}`),
            ];
      return `${[head, ...lines, ...info].join("\n")}\n`;
    }
  }
};
