/**
 * Issue 45: policy violations and blocked guards as text, Markdown and GitHub annotations
 * (design.md §5 "Rules and guards"). Shown before the changes: risky transitions and
 * violations are what a reviewer must see first. The strings are already sanitized by the
 * caller (sanitizePlan) or made safe here.
 */

import { stripControls } from "../core/controls.js";
import type { BlockedGuard, PlainLocation, PolicyViolation } from "../model/policy.js";
import type { Plan } from "../plan/types.js";

const at = (l: PlainLocation): string => `${l.file}:${l.line}:${l.col}`;

/** Where a violation is: the item's place and the rule's (either may be missing). */
export const violationPlaces = (v: PolicyViolation): string => {
  const parts: string[] = [];
  if (v.item_source !== undefined) parts.push(`item at ${at(v.item_source)}`);
  if (v.rule_source !== undefined)
    parts.push(`${v.from === "exception" ? "exception" : "rule"} at ${at(v.rule_source)}`);
  if (v.from === "policy_cmd") parts.push("from --policy-cmd");
  return parts.join("; ");
};

/** `Error: [rule] message (item at F:L:C; rule at F:L:C)`, one line per violation. */
export const violationLine = (v: PolicyViolation): string => {
  const where = violationPlaces(v);
  return stripControls(
    `${v.level === "error" ? "Error" : "Warning"}: policy ${v.rule}: ${v.message}${where === "" ? "" : ` (${where})`}`,
  );
};

export const blockedLine = (b: BlockedGuard): string =>
  stripControls(`Blocked (${b.rule}): ${b.message}; apply needs ${b.allow_with}`);

/** The lines the text plan starts with: violations, then what apply would refuse. */
export function* policyTextLines(plan: Plan): Generator<string> {
  const violations = plan.policy_violations ?? [];
  const blocked = plan.guards.blocked ?? [];
  for (const v of violations) yield violationLine(v);
  for (const b of blocked) yield blockedLine(b);
  if (violations.length > 0 || blocked.length > 0) yield "";
}

const escapeMd = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One violation as a Markdown list item. */
export const violationMarkdown = (v: PolicyViolation): string => `- ${escapeMd(violationLine(v))}`;

/** The Markdown comment's first lines: violations and blocked guards, before the summary. */
export const policyMarkdownLines = (plan: Plan): string[] => {
  const violations = plan.policy_violations ?? [];
  const blocked = plan.guards.blocked ?? [];
  if (violations.length === 0 && blocked.length === 0) return [];
  const errors = violations.filter((v) => v.level === "error").length;
  const out: string[] = [];
  if (violations.length > 0) {
    out.push(
      `**Policy: ${errors} error${errors === 1 ? "" : "s"}, ${violations.length - errors} warning${violations.length - errors === 1 ? "" : "s"}**`,
      "",
    );
    for (const v of violations) out.push(violationMarkdown(v));
    out.push("");
  }
  if (blocked.length > 0) {
    out.push("**Apply will refuse (exit 4) unless allowed:**", "");
    for (const b of blocked) out.push(`- ${escapeMd(blockedLine(b))}`);
    out.push("");
  }
  return out;
};

/**
 * GitHub workflow commands (`::error file=F,line=L,col=C,title=T::message`) for the
 * violations, at the item's place (the line a reviewer changes), else the rule's; a warning
 * is `::warning`. Escaping as actions/toolkit's `command.ts` (the same as validate's).
 */
export const violationAnnotation = (v: PolicyViolation): string => {
  const data = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => data(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const place = v.item_source ?? v.rule_source;
  const where =
    place === undefined ? "" : `file=${prop(place.file)},line=${place.line},col=${place.col},`;
  const other =
    v.item_source !== undefined && v.rule_source !== undefined
      ? ` (${v.from === "exception" ? "exception" : "rule"} at ${at(v.rule_source)})`
      : "";
  const message = `${v.address === undefined || v.message.includes(v.address) ? "" : `${v.address}: `}${v.message}${other}`;
  return stripControls(
    `::${v.level === "error" ? "error" : "warning"} ${where}title=${prop(`waybill policy ${v.rule}`)}::${data(message)}`,
  );
};

/** A blocked guard as a workflow error (no file: it is about the plan as a whole). */
export const blockedAnnotation = (b: BlockedGuard): string => {
  const data = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  return stripControls(
    `::error title=waybill guard ${b.rule}::${data(`${b.message}; apply needs ${b.allow_with}`)}`,
  );
};

/** Every annotation of a plan's violations and blocked guards. */
export const policyAnnotations = (plan: Plan): string[] => [
  ...(plan.policy_violations ?? []).map(violationAnnotation),
  ...(plan.guards.blocked ?? []).map(blockedAnnotation),
];
