/**
 * The apply result as text and JSON (compute and render separately, conventions.md §5).
 * No secret value can be here: outcomes hold addresses, verbs and the API's error fields,
 * which the client scrubbed of the token and the config's secret values.
 */
import type { Plan } from "../plan/types.js";
import type { ApplyResult, OperationOutcome } from "./run-apply.js";

export const APPLY_RESULT_FORMAT = 1;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;

const label = (o: OperationOutcome): string =>
  o.action === "replace" ? `${o.address} (replace: ${o.phase})` : o.address;

/** One progress line per finished operation (off a TTY): `webhook["slack"]: created in 0.21s`. */
export const progressLine = (o: OperationOutcome): string => {
  switch (o.status) {
    case "done":
      return `${label(o)}: ${o.verb} in ${seconds(o.ms)}${o.notes.length > 0 ? ` (${o.notes.join("; ")})` : ""}`;
    case "failed":
      return `${label(o)}: failed after ${seconds(o.ms)}: ${o.error.message}`;
    case "skipped":
      return `${label(o)}: skipped (${o.because})`;
  }
};

export const applyStatus = (
  r: ApplyResult,
): "applied" | "partial" | "failed" | "interrupted" | "no_changes" => {
  if (r.outcomes.length === 0) return "no_changes";
  if (r.interrupted) return "interrupted";
  if (r.failed === 0 && r.skipped === 0) return "applied";
  return r.done > 0 ? "partial" : "failed";
};

export const renderResultText = (r: ApplyResult): string => {
  const lines: string[] = [];
  const status = applyStatus(r);
  const head =
    status === "applied"
      ? "Apply complete"
      : status === "interrupted"
        ? "Apply interrupted"
        : "Apply finished with failures";
  lines.push(`${head}: ${r.done} done, ${r.failed} failed, ${r.skipped} skipped.`);
  const done = r.outcomes.filter((o) => o.status === "done");
  const failed = r.outcomes.filter((o) => o.status === "failed");
  const skipped = r.outcomes.filter((o) => o.status === "skipped");
  if (done.length > 0) {
    lines.push("", "Done:");
    for (const o of done) lines.push(`  ${progressLine(o)}`);
  }
  if (failed.length > 0) {
    lines.push("", "Failed:");
    for (const o of failed) {
      if (o.status !== "failed") continue;
      lines.push(`  ${label(o)}: ${o.error.message}`);
      const parts = [
        o.error.status !== undefined ? `status ${o.error.status}` : undefined,
        o.error.title !== undefined ? `title: ${o.error.title}` : undefined,
        o.error.detail !== undefined ? `detail: ${o.error.detail}` : undefined,
        o.error.pointer !== undefined ? `pointer: ${o.error.pointer}` : undefined,
      ].filter((s): s is string => s !== undefined);
      if (parts.length > 0) lines.push(`    ${parts.join("; ")}`);
    }
  }
  if (skipped.length > 0) {
    lines.push("", "Skipped:");
    for (const o of skipped) if (o.status === "skipped") lines.push(`  ${label(o)}: ${o.because}`);
  }
  if (status !== "applied") {
    lines.push("", "Run `waybill plan` to see exactly what is left; a re-run of apply converges.");
  }
  return `${lines.join("\n")}\n`;
};

export const renderResultJson = (r: ApplyResult, plan: Plan): string =>
  `${JSON.stringify(
    {
      format_version: APPLY_RESULT_FORMAT,
      status: applyStatus(r),
      plan_summary: plan.summary,
      summary: {
        total: r.outcomes.length,
        done: r.done,
        failed: r.failed,
        skipped: r.skipped,
      },
      operations: r.outcomes,
    },
    null,
    2,
  )}\n`;
