/**
 * The plan as one pull-request comment (design.md §1 "Plans"): the summary line first,
 * details collapsed in `<details>`, under 65,000 characters (a note says when it was cut).
 */
import type { Plan } from "../plan/types.js";
import {
  digestMarker,
  replacedNote,
  scopeLine,
  secretDeletesLine,
  shownDigest,
  summaryLine,
  unknownLine,
  unverifiedLine,
} from "./common.js";
import { policyMarkdownLines } from "./policy.js";
import { sanitizePlan } from "./sanitize.js";
import { renderChanges } from "./text.js";

/** The comment limit minus a margin for whatever the CI step wraps around it. */
export const MARKDOWN_LIMIT = 65_000;

/** Text outside a code block: keep HTML and Markdown control characters literal. */
const escapeMd = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A code fence longer than any backtick run inside the content, so it cannot be closed early. */
const fenceFor = (lines: readonly string[]): string => {
  let longest = 0;
  for (const line of lines) {
    for (const m of line.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  }
  return "`".repeat(Math.max(3, longest + 1));
};

/**
 * Issue 46: what a reviewer needs to know the comment is about: the config folder and the
 * commit it was planned from (the CLI finds them; either may be unknown).
 */
export interface MarkdownContext {
  readonly config?: string;
  readonly commit?: string;
}

/** `Waybill plan of gh/acme · config `infra/` · commit `0a1b2c3``: the line under the summary. */
export const contextLine = (plan: Plan, context: MarkdownContext): string => {
  const orgs = plan.orgs.map((o) => o.slug);
  const parts = [
    `Waybill plan of ${orgs.length === 0 ? "no org" : orgs.map((o) => `\`${o}\``).join(", ")}`,
    ...(context.config !== undefined ? [`config \`${context.config}\``] : []),
    ...(context.commit !== undefined ? [`commit \`${context.commit}\``] : []),
  ];
  return parts.join(" · ");
};

/**
 * Issue 46: a line of the `diff` block with its change mark (`+`, `-`, `~`, `-/+`) moved to
 * the first column, where the code host's diff highlighting looks for it (the text renderer
 * indents it under the change's address); the indentation is kept after the mark.
 */
export const diffColumnLine = (line: string): string => {
  const m = /^( +)(-\/\+|[+~-])( .*)?$/.exec(line);
  if (!m) return line;
  return `${m[2]}${m[1]}${m[3] ?? ""}`;
};

export const renderMarkdown = (
  raw: Plan,
  limit = MARKDOWN_LIMIT,
  context: MarkdownContext = {},
): string => {
  // Issue 30: no string of the plan (live names, a plan file's text) reaches the reader raw.
  const plan = sanitizePlan(raw);
  const digest = shownDigest(plan);
  // design.md §5 "Scoped plans and the reviewed plan": the digest in a hidden marker first
  // (the Action reads it back on the merge) and shown on the line that says what the plan is
  // about. Issue 45: policy violations and blocked guards at the top of the comment; then
  // the summary line, then (issue 46) what the plan is about.
  const head: string[] = [
    ...(digest === undefined ? [] : [digestMarker(digest)]),
    // design.md §5: a partial plan says so before anything else a reader sees.
    ...(plan.scope === undefined ? [] : [`**${escapeMd(scopeLine(plan) ?? "")}**`, ""]),
    ...policyMarkdownLines(plan),
    `**${summaryLine(plan)}**`,
    "",
    `${escapeMd(contextLine(plan, context))}${digest === undefined ? "" : ` · plan digest \`${digest}\``}`,
  ];
  const unverified = unverifiedLine(plan);
  const notes: string[] = [];
  // Issue 19: first of the header's notes, outside the collapsed details.
  const secrets = secretDeletesLine(plan);
  if (secrets) notes.push(`**${secrets}**`);
  if (unverified) notes.push(unverified);
  if (plan.guards.mass_delete_exceeded) {
    for (const g of plan.guards.mass_delete.filter((x) => x.exceeds)) {
      notes.push(
        `Mass delete: ${g.delete_count} of ${g.live_count} items of ${g.collection}${replacedNote(g)}; apply needs --allow-mass-delete.`,
      );
    }
  }
  for (const g of plan.guards.destroys ?? []) {
    notes.push(
      `**${g.action === "delete" ? "Deletes" : "Re-creates"} \`${g.address}\`**: ${g.destroys}; apply needs --allow-mass-delete.`,
    );
  }
  if (!plan.saveable) notes.push("This plan cannot be saved or applied (secrets were skipped).");
  for (const w of plan.warnings) notes.push(`Warning: ${w}`);
  for (const u of plan.unknown ?? []) notes.push(`Unknown (left alone): ${unknownLine(u)}`);
  if (notes.length > 0) {
    head.push("");
    // A loop, not push(...notes): nothing here spreads an array whose length the plan sets.
    for (const n of notes) head.push(`- ${escapeMd(n)}`);
  }
  if (plan.changes.length === 0) return `${head.join("\n")}\n`;

  const body = Array.from(renderChanges(plan, false), diffColumnLine);
  const fence = fenceFor(body);
  const summary = `<details><summary>${plan.changes.length} change${plan.changes.length === 1 ? "" : "s"}</summary>`;
  const open = [...head, "", summary, "", `${fence}diff`];
  const close = [fence, "", "</details>"];
  const size = (lines: readonly string[]) => lines.reduce((n, l) => n + l.length + 1, 0);
  const fixed = size(open) + size(close);
  if (fixed + size(body) <= limit) return `${open.concat(body, close).join("\n")}\n`;

  // Cut at a line boundary and say so (a note outside the code block).
  const note = (shown: number) =>
    `_Output cut to stay under ${limit.toLocaleString("en-US")} characters: ${shown} of ${body.length} lines shown. Run \`waybill plan\` for the full plan._`;
  const budget = limit - fixed - note(body.length).length - 2;
  const kept: string[] = [];
  let used = 0;
  for (const line of body) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  return `${open.concat(kept, close, ["", note(kept.length)]).join("\n")}\n`;
};
