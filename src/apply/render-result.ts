/**
 * The apply result as text and JSON (compute and render separately, conventions.md §5).
 * No secret value can be here: outcomes hold addresses, verbs and the API's error fields,
 * which the client scrubbed of the token and the config's secret values.
 */
import type { Plan } from "../plan/types.js";
import type { ApplyResult, FailureInfo, OperationOutcome } from "./run-apply.js";

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

/**
 * The progress line on stderr (off a TTY). Decision (issue 21: "each printed twice"): a
 * failure's full message is in the summary on stdout, which a CI log shows right after;
 * here it is named with its status only, so it is not printed twice.
 */
export const progressNotice = (o: OperationOutcome): string => {
  switch (o.status) {
    case "done":
      return progressLine(o);
    case "failed":
      return `${label(o)}: failed after ${seconds(o.ms)}${o.error.status !== undefined ? ` (${o.error.status})` : ""}; see the summary`;
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

/** The cause to fix, in one line: the service's own words when it gave them. */
const causeOf = (e: FailureInfo): string => {
  if (e.retry !== "refused") return e.message;
  const at =
    e.pointer !== undefined && !(e.reason ?? "").includes(e.pointer) ? ` at ${e.pointer}` : "";
  return e.reason === undefined
    ? e.message
    : `refused with ${e.status ?? "a 4xx"}: ${e.reason}${at}`;
};

/** What the stop after a refused token means for the user (issue 21). */
const stoppedLine = (r: ApplyResult, status: number): string => {
  const what =
    status === 403 ? "the token cannot write" : "the service does not accept the token (401)";
  // Decision: "nothing was changed" only when no operation was done, i.e. no write was
  // accepted; operations already running when the first refusal came may have succeeded.
  return r.done === 0
    ? `Apply stopped: ${what}; nothing was changed.`
    : `Apply stopped: ${what}; ${r.done} operation${r.done === 1 ? " was" : "s were"} done before the first refusal, nothing more was started.`;
};

/** The result as text, line by line (the CLI streams it: an apply may hold 40,000 outcomes). */
export function* renderResultLines(r: ApplyResult): Generator<string> {
  const status = applyStatus(r);
  const head =
    status === "applied"
      ? "Apply complete"
      : status === "interrupted"
        ? "Apply interrupted"
        : "Apply finished with failures";
  yield `${head}: ${r.done} done, ${r.failed} failed, ${r.skipped} skipped.`;
  if (r.stopped) yield stoppedLine(r, r.stopped.status);
  if (r.outcomes.some((o) => o.status === "done")) {
    yield "";
    yield "Done:";
    for (const o of r.outcomes) if (o.status === "done") yield `  ${progressLine(o)}`;
  }
  const failures = r.outcomes.filter(
    (o): o is Extract<OperationOutcome, { status: "failed" }> => o.status === "failed",
  );
  if (failures.length > 0) {
    yield "";
    yield "Failed:";
    for (const o of failures) {
      yield `  ${label(o)}: ${o.error.message}`;
      const parts = [
        o.error.status !== undefined ? `status ${o.error.status}` : undefined,
        o.error.title !== undefined ? `title: ${o.error.title}` : undefined,
        o.error.detail !== undefined ? `detail: ${o.error.detail}` : undefined,
        o.error.pointer !== undefined ? `pointer: ${o.error.pointer}` : undefined,
      ].filter((s): s is string => s !== undefined);
      if (parts.length > 0) yield `    ${parts.join("; ")}`;
    }
  }
  if (r.outcomes.some((o) => o.status === "skipped")) {
    yield "";
    yield "Skipped:";
    for (const o of r.outcomes) if (o.status === "skipped") yield `  ${label(o)}: ${o.because}`;
  }
  if (status !== "applied") {
    yield "";
    // Issue 28: "a re-run converges" only when every failure is one a re-run can get past
    // (network, timeout, 5xx, 429 after its budget); a refusal comes back every time.
    const toFix = failures.filter((o) => o.error.retry !== "retryable");
    if (toFix.length === 0) {
      yield "Run `waybill plan` to see exactly what is left; a re-run of apply converges.";
    } else {
      const refused = toFix.filter((o) => o.error.retry === "refused").length;
      const what =
        refused === toFix.length
          ? `the service refused (${refused === 1 ? "a 4xx status" : "4xx statuses"})`
          : "below (refused, or not a network failure, a timeout, a 5xx or a throttle)";
      yield `Run \`waybill plan\` to see exactly what is left. A re-run alone will not fix ${toFix.length === 1 ? "the failure" : `the ${toFix.length} failures`} ${what}: fix the cause first:`;
      for (const o of toFix) yield `  ${label(o)}: ${causeOf(o.error)}`;
    }
  }
}

export const renderResultText = (r: ApplyResult): string => {
  let out = "";
  for (const line of renderResultLines(r)) out += `${line}\n`;
  return out;
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
      ...(r.stopped ? { stopped: r.stopped } : {}),
    },
    null,
    2,
  )}\n`;
