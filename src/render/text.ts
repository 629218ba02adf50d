/**
 * The plan as text, read like Terraform's (design.md §1 "Plans"): `+` create, `~` update,
 * `-/+` replace, `-` delete, field-level `old -> new`, `# forces replacement`, multi-line
 * values as a unified diff, the summary line, the unverified secrets count. ANSI colour
 * only when asked (the CLI asks on a TTY without --no-color).
 */
import { structuredPatch } from "diff";
import type { FieldChange } from "../kinds/contract.js";
import type { JsonValue } from "../kinds/values.js";
import type { Change, Plan } from "../plan/types.js";
import {
  formatCall,
  formatValue,
  headline,
  leaves,
  SYMBOL,
  summaryLine,
  unverifiedLine,
} from "./common.js";

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

/** A multi-line string change as unified diff lines. */
const multilineDiff = (before: string, after: string, indent: string, paint: Paint): string[] => {
  // A final newline on both sides keeps "\ No newline at end of file" out of the output.
  const patch = structuredPatch("before", "after", `${before}\n`, `${after}\n`, "", "", {
    context: 3,
  });
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    out.push(
      paint(
        "cyan",
        `${indent}@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ),
    );
    for (const line of hunk.lines) {
      const color = line.startsWith("+") ? "green" : line.startsWith("-") ? "red" : "dim";
      out.push(paint(color, `${indent}${line}`));
    }
  }
  return out;
};

const fieldLines = (f: FieldChange, indent: string, paint: Paint): string[] => {
  const tail = f.forces_replacement ? paint("red", " # forces replacement") : "";
  if (f.before === null) {
    return [`${indent}${paint("green", "+")} ${f.path} = ${formatValue(f.after)}${tail}`];
  }
  if (f.after === null) {
    return [`${indent}${paint("red", "-")} ${f.path} = ${formatValue(f.before)}${tail}`];
  }
  if (isMultiline(f.before) || isMultiline(f.after)) {
    const b = typeof f.before === "string" ? f.before : formatValue(f.before);
    const a = typeof f.after === "string" ? f.after : formatValue(f.after);
    return [
      `${indent}${paint("yellow", "~")} ${f.path}:${tail}`,
      ...multilineDiff(b, a, `${indent}    `, paint),
    ];
  }
  return [
    `${indent}${paint("yellow", "~")} ${f.path} = ${formatValue(f.before)} -> ${formatValue(f.after)}${tail}`,
  ];
};

/** The lines of one change (no trailing blank line). */
export const renderChange = (c: Change, paint: Paint): string[] => {
  const sym = SYMBOL[c.action];
  const pad = " ".repeat(Math.max(0, 3 - sym.length));
  const lines: string[] = [
    paint("bold", `  # ${headline(c)}`),
    `  #   ${c.reason}`,
    `${pad}${paint(ACTION_COLOR[c.action], sym)} ${c.address}`,
  ];
  const indent = "      ";
  switch (c.action) {
    case "create":
      for (const [path, v] of leaves(c.after)) {
        lines.push(`${indent}${paint("green", "+")} ${path} = ${formatValue(v)}`);
      }
      break;
    case "delete":
      for (const [path, v] of leaves(c.before)) {
        lines.push(`${indent}${paint("red", "-")} ${path} = ${formatValue(v)}`);
      }
      break;
    case "update":
    case "replace":
      for (const f of c.fields) lines.push(...fieldLines(f, indent, paint));
      break;
  }
  if (c.unresolved_secrets !== undefined && c.unresolved_secrets.length > 0) {
    lines.push(
      `${indent}${paint("yellow", `! not resolved (--skip-secrets): ${c.unresolved_secrets.join(", ")}`)}`,
    );
  }
  for (const call of c.calls) lines.push(paint("dim", `${indent}# call: ${formatCall(call)}`));
  return lines;
};

/** The change blocks alone (used by the Markdown renderer too). */
export const renderChanges = (plan: Plan, color: boolean): string[] => {
  const paint = painter(color);
  const out: string[] = [];
  let org: string | undefined;
  for (const c of plan.changes) {
    if (plan.orgs.length > 1 && c.org !== org) {
      org = c.org;
      out.push(paint("bold", `Org ${c.org}:`), "");
    }
    out.push(...renderChange(c, paint), "");
  }
  return out;
};

export const renderText = (plan: Plan, options: TextOptions): string => {
  const paint = painter(options.color);
  const lines: string[] = [];
  if (plan.changes.length > 0) {
    lines.push("Waybill will perform the following actions:", "");
    lines.push(...renderChanges(plan, options.color));
  }
  lines.push(paint("bold", summaryLine(plan)));
  const unverified = unverifiedLine(plan);
  if (unverified) lines.push(unverified);
  if (plan.skipped_secrets > 0) {
    lines.push(`${plan.skipped_secrets} secret(s) not compared (--skip-secrets).`);
  }
  for (const g of plan.guards.mass_delete) {
    if (g.exceeds) {
      lines.push(
        paint(
          "red",
          `Mass delete: ${g.delete_count} of ${g.live_count} items of ${g.collection} (org ${g.org}); apply needs --allow-mass-delete.`,
        ),
      );
    }
  }
  if (!plan.saveable) lines.push("This plan cannot be saved or applied (secrets were skipped).");
  for (const w of plan.warnings) lines.push(paint("yellow", `Warning: ${w}`));
  return `${lines.join("\n")}\n`;
};
