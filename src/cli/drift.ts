/**
 * `waybill drift` (design.md §1 "Commands", issue 4): a read-only audit. Drift is any change
 * a plan would make: the live service moved away from Git. Besides the drift, it lists, as
 * information, live items the config does not manage (src/live/unmanaged.ts).
 * Exit 0 none, 2 drift, 1 error.
 */

import { Option } from "commander";
import {
  isUnmanaged,
  type LiveLine,
  readLiveLines,
  type UnmanagedItem,
} from "../live/unmanaged.js";
import type { PolicyViolation } from "../model/policy.js";
import { globMatcher } from "../plan/plan.js";
import type { Plan } from "../plan/types.js";
import { formatValue } from "../render/common.js";
import { renderJson, sanitizePlan, stripControls } from "../render/index.js";
import { violationAnnotation, violationLine, violationMarkdown } from "../render/policy.js";
import { runPlan } from "../run/plan-run.js";
import {
  addCommonOptions,
  addShowUrlsOption,
  type CommonOptionFlags,
  collectSecretValues,
  connect,
  liveCredentialUrls,
  loadDesired,
  OUTPUT_FORMATS,
  progressReporter,
  resolveCommonOptions,
  secretBook,
} from "./common-options.js";
import {
  type Baseline,
  type BaselineVerdict,
  baselineOf,
  compareWithBaseline,
  readBaseline,
  writeBaseline,
} from "./drift-baseline.js";
import { type Coverage, coverageOf, describeCoverage } from "./drift-coverage.js";
import { renderDriftSlack, renderDriftWebhook } from "./drift-formats.js";
import { EXIT } from "./exit-codes.js";
import { withHeartbeat } from "./heartbeat.js";
import type { CliIO } from "./io.js";
import { liveViolations } from "./policy-violations.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # Nightly audit in CI: fails (exit 2) when someone changed the service by hand
  $ SERVICE_TOKEN=... waybill drift -c infra/

  # Accept today's drift, then fail only on new drift (a Slack message on stdout)
  $ waybill drift -c infra/ --write-baseline drift-baseline.json
  $ waybill drift -c infra/ --baseline drift-baseline.json --format slack

Exit codes: 0 no drift (with --baseline: none but the baseline's), 2 drift, 1 error.
`;

/** `--format` of drift: the plan's three, and two documents to post (design.md §5 "Drift"). */
export const DRIFT_FORMATS = [...OUTPUT_FORMATS, "slack", "webhook"] as const;
export type DriftFormat = (typeof DRIFT_FORMATS)[number];

interface DriftFlags extends Omit<CommonOptionFlags, "format"> {
  readonly format?: DriftFormat;
  readonly baseline?: string;
  readonly writeBaseline?: string;
}

export const registerDrift: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("drift")
    .description(
      "Audit the live service against the config (reads only): name every item that differs, and list live items the config does not manage.",
    );
  addShowUrlsOption(addCommonOptions(command))
    .addOption(
      new Option(
        "--format <format>",
        "output format on stdout (slack: Block Kit JSON; webhook: schemas/drift-webhook.schema.json)",
      )
        .choices([...DRIFT_FORMATS])
        .default("text"),
    )
    .option(
      "--baseline <file>",
      "drift recorded in FILE (by --write-baseline) is known: reported, but exit 0 when nothing else differs",
    )
    .option(
      "--write-baseline <file>",
      "record today's drift in FILE (addresses and a digest of each difference, never a value)",
    )
    .addHelpText("after", EXAMPLES)
    .action(async (flags: DriftFlags) => {
      setExit(await withHeartbeat(io, (run) => driftCommand(flags, run)));
    });
};

/** What drift reports besides the plan and the unmanaged list (issue 46). */
export interface DriftExtras {
  readonly coverage?: Coverage;
  /** With `--baseline`: the file and how the drift compares with it. */
  readonly baseline?: {
    readonly file: string;
    readonly verdict: BaselineVerdict;
    readonly firstSeen: ReadonlyMap<string, string>;
  };
}

const driftCommand = async (flags: DriftFlags, io: CliIO): Promise<number> => {
  const { format: rawFormat, ...common } = flags;
  const format: DriftFormat = rawFormat ?? "text";
  const options = resolveCommonOptions(common, io);
  // A bad baseline is refused before the config is read or any request is made.
  const baseline: Baseline | undefined =
    flags.baseline === undefined ? undefined : readBaseline(flags.baseline);
  const desired = await loadDesired(options, io, true);
  if (!desired) return EXIT.error;
  const book = secretBook(() => collectSecretValues(desired));
  const api = (await connect(common, options, io, desired, book)).readOnly();
  const progress = progressReporter(io, "Reading live state");
  let plan: Plan;
  let unmanaged: UnmanagedItem[];
  let lines: LiveLine[];
  let violations: PolicyViolation[];
  try {
    const result = await runPlan(api, desired, {
      ...(options.targets.length > 0 ? { targets: options.targets } : {}),
      ...(options.excludes.length > 0 ? { excludes: options.excludes } : {}),
      forceSecrets: [],
      skipSecrets: false,
      showUrls: options.showUrls === true,
      onProgress: progress.onProgress,
    });
    plan = result.plan;
    violations = liveViolations(desired, result.live, io);
    // Issue 43: the unmanaged listing's errors are scrubbed of the live URLs read so far.
    book.add(liveCredentialUrls(result.live));
    // Issue 19: what `keep_unlisted` left alone is unmanaged too, and said why.
    const kept = (result.plan.kept_unlisted ?? []).map(
      (k): UnmanagedItem => ({ address: k.address, resource_type: k.resource_type, why: "kept" }),
    );
    // Issue 46: the walk says of every live item it saw whether the config manages it
    // (the coverage figure); what keep_unlisted kept was read in a managed collection but
    // is not managed.
    // design.md §5 "Reading the real service": what Waybill cannot name is listed, and why.
    const unknown = (result.plan.unknown ?? []).map(
      (u): UnmanagedItem => ({
        address: u.address,
        resource_type: u.resource_type,
        why: "unknown",
        reason: u.reason,
      }),
    );
    kept.push(...unknown);
    const keptAt = new Set(kept.map((k) => k.address));
    lines = withinScope(
      [
        ...(await readLiveLines(api, desired.orgs, result.live)).filter(
          (l) => !keptAt.has(l.address),
        ),
        ...kept,
      ],
      options.targets,
      options.excludes,
    );
    unmanaged = lines.filter(isUnmanaged);
    progress.finish();
  } catch (err) {
    progress.abort();
    throw err;
  }
  const today = new Date().toISOString().slice(0, 10);
  const verdict = baseline === undefined ? undefined : compareWithBaseline(baseline, plan.changes);
  if (flags.writeBaseline !== undefined) {
    await writeBaseline(flags.writeBaseline, baselineOf(plan.changes, today, baseline));
    io.stderr.write(
      `Wrote the drift baseline ${flags.writeBaseline}: ${plan.changes.length} item${plan.changes.length === 1 ? "" : "s"}.\n`,
    );
  }
  const extras: DriftExtras = {
    coverage: coverageOf(lines),
    ...(baseline !== undefined && verdict !== undefined && flags.baseline !== undefined
      ? {
          baseline: {
            file: flags.baseline,
            verdict,
            firstSeen: new Map(
              baseline.entries.map((e) => [`${e.org}\u0000${e.address}`, e.first_seen]),
            ),
          },
        }
      : {}),
  };
  io.stdout.write(
    withLiveViolations(violations, format, renderDrift(plan, unmanaged, format, extras)),
  );
  // Decision (issue 45): a live rule of level error violated exits 1, as validate and plan
  // do for theirs; the JSON says which (policy_violations) and whether there is drift too.
  if (violations.some((v) => v.level === "error")) return EXIT.error;
  const drifted = verdict === undefined ? plan.changes.length > 0 : verdict.fresh.length > 0;
  return drifted ? EXIT.changes : EXIT.ok;
};

/**
 * Issue 45: the live rules' violations with the drift report: first in text, Markdown and
 * annotations, as `policy_violations` in JSON. Apart from renderDrift, so its layout can
 * change on its own.
 */
const withLiveViolations = (
  violations: readonly PolicyViolation[],
  format: DriftFormat,
  report: string,
): string => {
  if (violations.length === 0) return report;
  switch (format) {
    case "json": {
      const doc = JSON.parse(report) as Record<string, unknown>;
      return `${JSON.stringify({ ...doc, policy_violations: violations }, null, 2)}\n`;
    }
    case "github":
      return `${violations.map((v) => `${violationAnnotation(v)}\n`).join("")}${report}`;
    case "markdown":
      return `${violations.map(violationMarkdown).join("\n")}\n\n${report}`;
    case "text":
      return `${violations.map((v) => `${violationLine(v)}\n`).join("")}\n${report}`;
    case "slack":
    case "webhook":
      // Documents of a published shape (issue 46): the violations stay in the other formats
      // and in the exit code.
      return report;
  }
};

/**
 * Decision: `--target` and `--exclude` narrow the unmanaged list (and the coverage counted
 * from it) as they narrow the plan: an item is kept when a target glob matches its address
 * or one of its parents' (src/model/address.ts), and left out when an exclude glob does
 * (globMatcher, the plan's own rule; design.md §5 "Scoped plans and the reviewed plan").
 * A live item depends on nothing, so no more is left out with it.
 */
export const withinScope = <T extends { readonly address: string }>(
  items: readonly T[],
  targets: readonly string[],
  excludes: readonly string[],
): T[] => {
  const targeted = targets.length === 0 ? () => true : globMatcher(targets);
  const excluded = globMatcher(excludes);
  return items.filter((u) => targeted(u.address) && !excluded(u.address));
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
        : u.why === "unknown"
          ? `unknown to Waybill, never changed: ${u.reason ?? ""}`
          : u.why === "legacy"
            ? "legacy V2 schedule: still runs on the old mechanism, which Waybill cannot manage; move it to a schedule trigger of a pipeline"
            : "collection not managed by the config"
  })`;

/** A line of the information list; a legacy schedule listing that was not read says so. */
const describeInfo = (u: UnmanagedItem): string =>
  u.why === "not_read"
    ? `${u.address} (not read: ${u.reason ?? "the listing failed"}; ${
        u.resource_type === "legacy_schedule"
          ? "whether legacy V2 schedules still run here is unknown"
          : "whether it holds items the config does not manage is unknown"
      })`
    : describeUnmanaged(u);

/**
 * Issue 46: each differing field of an update or replace as `path: live → config`, values
 * as the plan holds them (already masked: a secret is `(sensitive)`, a credential URL
 * shows scheme and host only, src/plan/mask-urls.ts).
 */
export const fieldValueLines = (c: Plan["changes"][number]): string[] =>
  c.action === "update" || c.action === "replace"
    ? c.fields.map((f) => `${f.path}: ${formatValue(f.before)} → ${formatValue(f.after)}`)
    : [];

/** A Markdown code span that holds `text` whatever backticks it contains. */
const codeSpan = (text: string): string => {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
};

type DriftChange = Plan["changes"][number];

/** The drift's changes in the groups a reader sees: new and known with a baseline, else one. */
const groupsOf = (
  plan: Plan,
  extras: DriftExtras,
): { readonly title?: string; readonly changes: readonly DriftChange[] }[] => {
  const b = extras.baseline;
  if (b === undefined) return [{ changes: plan.changes }];
  const n = (k: number) => `${k} item${k === 1 ? "" : "s"}`;
  return [
    {
      title: `New drift (not in ${b.file}): ${n(b.verdict.fresh.length)}`,
      changes: b.verdict.fresh.map((f) => f.change),
    },
    { title: `Known drift (in ${b.file}): ${n(b.verdict.known.length)}`, changes: b.verdict.known },
  ];
};

/** `(first seen 2026-11-20)` for a change the baseline knows; `(changed since …)` for a new one. */
const baselineNote = (c: DriftChange, extras: DriftExtras): string => {
  const b = extras.baseline;
  if (b === undefined) return "";
  const seen = b.firstSeen.get(`${c.org}\u0000${c.address}`);
  if (seen === undefined) return "";
  const changed = b.verdict.fresh.some((f) => f.change === c && f.changed);
  return changed ? ` (changed since the baseline; first seen ${seen})` : ` (first seen ${seen})`;
};

const headOf = (plan: Plan, extras: DriftExtras): { drifted: boolean; text: string } => {
  const n = plan.changes.length;
  const items = (k: number) => `${k} item${k === 1 ? " differs" : "s differ"}`;
  const b = extras.baseline;
  if (b !== undefined && b.verdict.fresh.length === 0 && n > 0) {
    return {
      drifted: false,
      text: `No new drift: ${items(n)} from the config, all known (in ${b.file})`,
    };
  }
  // Issue 41: fields ignore_fields leaves alone still count, so "No drift" never hides
  // them (a setting turned on by hand under an ignore_fields entry).
  const ig = plan.ignored_fields?.length ?? 0;
  const ignored = ig === 0 ? "" : ` (${ig} ignored field${ig === 1 ? " differs" : "s differ"})`;
  if (n === 0) {
    return { drifted: false, text: `No drift: the service matches the config${ignored}` };
  }
  return { drifted: true, text: `Drift: ${items(n)} from the config${ignored}` };
};

export const renderDrift = (
  raw: Plan,
  rawUnmanaged: readonly UnmanagedItem[],
  format: DriftFormat,
  extras: DriftExtras = {},
): string => {
  // Issue 30: live names reach the terminal or the comment without control characters.
  const plan = sanitizePlan(raw);
  const unmanaged = rawUnmanaged.map((u) => ({ ...u, address: stripControls(u.address) }));
  const clean = cleanExtras(extras, raw, plan);
  switch (format) {
    case "json":
      return `${JSON.stringify(
        {
          drift: plan.changes.length > 0,
          ...(clean.baseline !== undefined
            ? { new_drift: clean.baseline.verdict.fresh.length > 0 }
            : {}),
          plan: JSON.parse(renderJson(plan)) as unknown,
          // Issue 46: both values of every differing field, named for drift's reader.
          differences: plan.changes.map((c) => ({
            org: c.org,
            address: c.address,
            action: c.action,
            fields: c.fields.map((f) => ({
              path: f.path,
              live: f.before,
              config: f.after,
              ...(f.sensitive ? { sensitive: true } : {}),
            })),
          })),
          unmanaged,
          ...(clean.coverage !== undefined ? { coverage: clean.coverage } : {}),
          ...(clean.baseline !== undefined ? { baseline: baselineJson(clean) } : {}),
        },
        null,
        2,
      )}\n`;
    case "slack":
      return renderDriftSlack(plan, unmanaged, clean);
    case "webhook":
      return renderDriftWebhook(plan, unmanaged, clean);
    case "markdown": {
      const { text } = headOf(plan, clean);
      const [first, ...rest] = text.split(": ");
      const head = `**${first}**: ${rest.join(": ")}.`;
      const lines = groupsOf(plan, clean).flatMap((g) => [
        ...(g.title !== undefined ? ["", `**${g.title}**`] : []),
        ...(g.changes.length > 0 && g.title !== undefined ? [""] : []),
        ...g.changes.flatMap((c) => [
          `- ${codeSpan(describeChange(c))}${baselineNote(c, clean)}`,
          ...fieldValueLines(c).map((l) => `  - ${codeSpan(l)}`),
        ]),
      ]);
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
      const tail = [
        ...staleLines(clean).map((l, i) => (i === 0 ? `\n${l}` : `- ${codeSpan(l)}`)),
        ...(clean.coverage !== undefined
          ? [
              "",
              ...describeCoverage(clean.coverage).map((l, i) =>
                i === 0 ? l : `<sub>${l.trim()}</sub>`,
              ),
            ]
          : []),
      ];
      const body = clean.baseline === undefined && lines.length > 0 ? ["", ...lines] : lines;
      return `${[head, ...body, ...info, ...tail].join("\n")}\n`;
    }
    case "text":
    case "github": {
      const { text } = headOf(plan, clean);
      const head = `${text}${plan.changes.length > 0 && clean.baseline === undefined ? ":" : "."}`;
      const lines = groupsOf(plan, clean).flatMap((g) => [
        ...(g.title !== undefined && g.changes.length > 0 ? ["", `${g.title}:`] : []),
        ...g.changes.flatMap((c) => [
          `  ${describeChange(c)}${baselineNote(c, clean)}`,
          ...fieldValueLines(c).map((l) => `      ${l}`),
        ]),
      ]);
      const info =
        unmanaged.length === 0
          ? []
          : [
              "",
              "Unmanaged live items (information, not drift):",
              ...unmanaged.map((u) => `  ${describeInfo(u)}`),
            ];
      const tail = [
        ...staleLines(clean).map((l, i) => (i === 0 ? `\n${l}` : `  ${l}`)),
        ...(clean.coverage !== undefined ? ["", ...describeCoverage(clean.coverage)] : []),
      ];
      return `${[head, ...lines, ...info, ...tail].join("\n")}\n`;
    }
  }
};

/** The stale entries of a baseline: a title line, then one address per line. */
const staleLines = (extras: DriftExtras): string[] => {
  const stale = extras.baseline?.verdict.stale ?? [];
  if (stale.length === 0) return [];
  return [
    `Baseline entries that no longer match any drift (rewrite ${extras.baseline?.file} with --write-baseline to remove them):`,
    ...stale.map((e) => `${e.address} (${e.org}, first seen ${e.first_seen})`),
  ];
};

/** The baseline verdict as JSON: addresses only (the digests stay in the file). */
const baselineJson = (extras: DriftExtras) => {
  const b = extras.baseline;
  if (b === undefined) return undefined;
  const first = (c: DriftChange) => b.firstSeen.get(`${c.org}\u0000${c.address}`);
  return {
    file: b.file,
    new: b.verdict.fresh.map((f) => ({
      org: f.change.org,
      address: f.change.address,
      changed: f.changed,
      ...(f.changed ? { first_seen: first(f.change) } : {}),
    })),
    known: b.verdict.known.map((c) => ({ org: c.org, address: c.address, first_seen: first(c) })),
    stale: b.verdict.stale.map((e) => ({
      org: e.org,
      address: e.address,
      first_seen: e.first_seen,
    })),
  };
};

/**
 * The extras with the sanitized plan's changes in place of the raw ones (the verdict holds
 * the raw plan's objects; the renderers compare by identity) and clean addresses.
 */
const cleanExtras = (extras: DriftExtras, raw: Plan, plan: Plan): DriftExtras => {
  const b = extras.baseline;
  if (b === undefined) return extras;
  const at = new Map(raw.changes.map((c, i) => [c, plan.changes[i] as DriftChange]));
  const swap = (c: DriftChange): DriftChange => at.get(c) ?? c;
  return {
    ...extras,
    baseline: {
      file: stripControls(b.file),
      firstSeen: b.firstSeen,
      verdict: {
        known: b.verdict.known.map(swap),
        fresh: b.verdict.fresh.map((f) => ({ change: swap(f.change), changed: f.changed })),
        stale: b.verdict.stale.map((e) => ({
          ...e,
          address: stripControls(e.address),
          org: stripControls(e.org),
        })),
      },
    },
  };
};
