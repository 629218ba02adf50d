/**
 * The plan as text, read like Terraform's (design.md §1 "Plans"): `+` create, `~` update,
 * `-/+` replace, `-` delete, field-level `old -> new`, `# forces replacement`, multi-line
 * values as a unified diff, the summary line, the unverified secrets count. ANSI colour
 * only when asked (the CLI asks on a TTY without --no-color).
 */
import { createRequire } from "node:module";
import type { FieldChange } from "../kinds/contract.js";
import type { JsonValue } from "../kinds/values.js";
import type { Change, Plan } from "../plan/types.js";
import {
  digestLine,
  formatCall,
  formatValue,
  headline,
  leaves,
  replacedNote,
  SYMBOL,
  scopeLine,
  secretDeletesLine,
  summaryLine,
  unknownLine,
  unverifiedLine,
} from "./common.js";
import { policyTextLines } from "./policy.js";
import { sanitizePlan } from "./sanitize.js";

export interface TextOptions {
  readonly color: boolean;
}

const ANSI = {
  green: "\u001b[32m",
  yellow: "\u001b[33m",
  red: "\u001b[31m",
  cyan: "\u001b[36m",
  bold: "\u001b[1m",
  dim: "\u001b[2m",
  reset: "\u001b[0m",
} as const;

type Paint = (color: keyof typeof ANSI, text: string) => string;

const painter =
  (on: boolean): Paint =>
  (color, text) =>
    on ? `${ANSI[color]}${text}${ANSI.reset}` : text;

const ACTION_COLOR: Readonly<Record<Change["action"], keyof typeof ANSI>> = {
  create: "green",
  update: "yellow",
  replace: "red",
  delete: "red",
};

const isMultiline = (v: JsonValue): v is string => typeof v === "string" && v.includes("\n");

/**
 * `diff` is loaded on the first multi-line value (issue 33): its ~20 modules took ~18 ms
 * before every plan's first request, and only a change to a multi-line value uses them.
 * The package's CommonJS entry is the same library as its ESM one (its `exports` map).
 * (Written `createRequire(import.meta.url)(…)` for scripts/release.js's single-file bundle.)
 */
let loadedDiff: typeof import("diff") | undefined;
const structuredPatchOf = (): typeof import("diff")["structuredPatch"] => {
  loadedDiff ??= createRequire(import.meta.url)("diff") as typeof import("diff");
  return loadedDiff.structuredPatch;
};

/** A multi-line string change as unified diff lines. */
function* multilineDiff(
  before: string,
  after: string,
  indent: string,
  paint: Paint,
): Generator<string> {
  // A final newline on both sides keeps "\ No newline at end of file" out of the output.
  const patch = structuredPatchOf()("before", "after", `${before}\n`, `${after}\n`, "", "", {
    context: 3,
  });
  for (const hunk of patch.hunks) {
    yield paint(
      "cyan",
      `${indent}@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    );
    for (const line of hunk.lines) {
      const color = line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : "dim";
      yield paint(color, `${indent}${line}`);
    }
  }
}

function* fieldLines(f: FieldChange, indent: string, paint: Paint): Generator<string> {
  const tail = f.forces_replacement ? paint("red", " # forces replacement") : "";
  if (f.before === null) {
    yield `${indent}${paint("green", "+")} ${f.path} = ${formatValue(f.after)}${tail}`;
  } else if (f.after === null) {
    yield `${indent}${paint("red", "-")} ${f.path} = ${formatValue(f.before)}${tail}`;
  } else if (isMultiline(f.before) || isMultiline(f.after)) {
    const b = typeof f.before === "string" ? f.before : formatValue(f.before);
    const a = typeof f.after === "string" ? f.after : formatValue(f.after);
    yield `${indent}${paint("yellow", "~")} ${f.path}:${tail}`;
    yield* multilineDiff(b, a, `${indent}    `, paint);
  } else {
    yield `${indent}${paint("yellow", "~")} ${f.path} = ${formatValue(f.before)} -> ${formatValue(f.after)}${tail}`;
  }
}

/** The lines of one change (no trailing blank line). */
export function* renderChange(c: Change, paint: Paint): Generator<string> {
  const sym = SYMBOL[c.action];
  const pad = " ".repeat(Math.max(0, 3 - sym.length));
  yield paint("bold", `  # ${headline(c)}`);
  yield `  #   ${c.reason}`;
  yield `${pad}${paint(ACTION_COLOR[c.action], sym)} ${c.address}`;
  const indent = "      ";
  switch (c.action) {
    case "create":
      for (const [path, v] of leaves(c.after)) {
        yield `${indent}${paint("green", "+")} ${path} = ${formatValue(v)}`;
      }
      break;
    case "delete":
      for (const [path, v] of leaves(c.before)) {
        yield `${indent}${paint("red", "-")} ${path} = ${formatValue(v)}`;
      }
      break;
    case "update":
    case "replace":
      for (const f of c.fields) yield* fieldLines(f, indent, paint);
      break;
  }
  if (c.unresolved_secrets !== undefined && c.unresolved_secrets.length > 0) {
    yield `${indent}${paint("yellow", `! not resolved (--skip-secrets): ${c.unresolved_secrets.join(", ")}`)}`;
  }
  for (const call of c.calls) yield paint("dim", `${indent}# call: ${formatCall(call)}`);
}

/**
 * The change blocks alone, line by line (used by the Markdown renderer too). A generator,
 * not an array: a plan of 2,000 projects has ~125,000 lines, and every line is produced
 * only when the consumer asks for it (issue 22: `lines.push(...renderChanges())` spread
 * them into one call's arguments and overflowed the stack).
 */
export function* renderChanges(raw: Plan, color: boolean): Generator<string> {
  const plan = sanitizePlan(raw);
  const paint = painter(color);
  let org: string | undefined;
  for (const c of plan.changes) {
    if (plan.orgs.length > 1 && c.org !== org) {
      org = c.org;
      yield paint("bold", `Org ${c.org}:`);
      yield "";
    }
    yield* renderChange(c, paint);
    yield "";
  }
}

/**
 * The whole plan as text, one line at a time (no line holds a newline). Still a pure
 * renderer: it only reads the plan; the CLI writes the lines as the stream accepts them
 * (src/cli/io.ts `writeLines`).
 */
export function* renderTextLines(raw: Plan, options: TextOptions): Generator<string> {
  // Issue 30: no string of the plan (live names, a plan file's text) reaches the terminal raw.
  const plan = sanitizePlan(raw);
  const paint = painter(options.color);
  // design.md §5: a partial plan's first line says what it covers.
  const scope = scopeLine(plan);
  if (scope) yield paint("bold", scope);
  // Issue 45: policy violations and blocked guards (risky transitions first) lead the plan.
  for (const line of policyTextLines(plan)) {
    yield line.startsWith("Warning")
      ? paint("yellow", line)
      : line === ""
        ? line
        : paint("red", line);
  }
  // Issue 19: secret-destroying deletes first, before the (possibly long) list of changes.
  const secrets = secretDeletesLine(plan);
  if (secrets) {
    yield paint("red", secrets);
    yield "";
  }
  if (plan.changes.length > 0) {
    yield "Waybill will perform the following actions:";
    yield "";
    yield* renderChanges(plan, options.color);
  }
  yield paint("bold", summaryLine(plan));
  const digest = digestLine(plan);
  if (digest) yield digest;
  const unverified = unverifiedLine(plan);
  if (unverified) yield unverified;
  if (plan.skipped_secrets > 0) {
    yield `${plan.skipped_secrets} secret(s) not compared (--skip-secrets).`;
  }
  for (const g of plan.guards.mass_delete) {
    if (g.exceeds) {
      yield paint(
        "red",
        `Mass delete: ${g.delete_count} of ${g.live_count} items of ${g.collection} (org ${g.org})${replacedNote(g)}; apply needs --allow-mass-delete.`,
      );
    }
  }
  for (const g of plan.guards.destroys ?? []) {
    yield paint(
      "red",
      `${g.action === "delete" ? "Deletes" : "Re-creates"} ${g.address}: ${g.destroys}; apply needs --allow-mass-delete.`,
    );
  }
  if (!plan.saveable) yield "This plan cannot be saved or applied (secrets were skipped).";
  for (const w of plan.warnings) yield paint("yellow", `Warning: ${w}`);
  // design.md §5 "Reading the real service": listed, never changed.
  for (const u of plan.unknown ?? [])
    yield paint("yellow", `Unknown (left alone): ${unknownLine(u)}`);
}

/** The whole plan as one string (tests, `show`); the CLI streams `renderTextLines`. */
export const renderText = (plan: Plan, options: TextOptions): string => {
  let out = "";
  for (const line of renderTextLines(plan, options)) out += `${line}\n`;
  return out;
};
