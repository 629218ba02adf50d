/** The apply summary (src/apply/render-result.ts): done, failed with the API's fields, skipped. */
import { describe, expect, it } from "vitest";
import {
  applyStatus,
  progressLine,
  renderResultJson,
  renderResultText,
} from "../../src/apply/render-result.js";
import type { ApplyResult, OperationOutcome } from "../../src/apply/run-apply.js";
import type { Plan } from "../../src/plan/types.js";

const base = {
  org: "gh/acme",
  resource_type: "webhook",
  phase: "create",
} as const;

const done: OperationOutcome = {
  ...base,
  op: "a",
  address: 'project["gh/acme/api"].webhook["slack"]',
  action: "create",
  status: "done",
  verb: "created",
  ms: 210,
  notes: [],
};
const failed: OperationOutcome = {
  ...base,
  op: "b",
  address: 'project["gh/acme/api"].pipeline["build"]',
  resource_type: "pipeline",
  action: "replace",
  status: "failed",
  ms: 1234,
  error: {
    message: "POST /api/v3/pipelines failed with 400 (invalid_request): Bad — worse at /x",
    status: 400,
    title: "Bad",
    detail: "worse",
    pointer: "/x",
  },
};
const skipped: OperationOutcome = {
  ...base,
  op: "c",
  address: 'project["gh/acme/api"].pipeline["build"].trigger["nightly"]',
  resource_type: "trigger",
  action: "create",
  status: "skipped",
  because: 'project["gh/acme/api"].pipeline["build"] (create) failed',
};

const result = (outcomes: OperationOutcome[], interrupted = false): ApplyResult => ({
  outcomes,
  done: outcomes.filter((o) => o.status === "done").length,
  failed: outcomes.filter((o) => o.status === "failed").length,
  skipped: outcomes.filter((o) => o.status === "skipped").length,
  interrupted,
});

describe("apply result rendering", () => {
  it("writes one progress line per operation with its duration", () => {
    expect(progressLine(done)).toBe('project["gh/acme/api"].webhook["slack"]: created in 0.21s');
    expect(progressLine(failed)).toMatch(
      /pipeline\["build"\] \(replace: create\): failed after 1\.23s: POST/,
    );
  });

  it("lists done, failed with status/title/detail/pointer, and skipped", () => {
    const text = renderResultText(result([done, failed, skipped]));
    expect(text).toContain("Apply finished with failures: 1 done, 1 failed, 1 skipped.");
    expect(text).toContain("status 400; title: Bad; detail: worse; pointer: /x");
    expect(text).toContain(
      'trigger["nightly"]: project["gh/acme/api"].pipeline["build"] (create) failed',
    );
    expect(text).toMatch(/waybill plan/);
  });

  it("says which status a run ended in", () => {
    expect(applyStatus(result([]))).toBe("no_changes");
    expect(applyStatus(result([done]))).toBe("applied");
    expect(applyStatus(result([done, failed]))).toBe("partial");
    expect(applyStatus(result([failed, skipped]))).toBe("failed");
    expect(applyStatus(result([done, skipped], true))).toBe("interrupted");
  });

  it("renders JSON with the summary and every operation", () => {
    const plan = { summary: { create: 2, update: 0, replace: 1, delete: 0 } } as unknown as Plan;
    const json = JSON.parse(renderResultJson(result([done, failed, skipped]), plan)) as {
      status: string;
      summary: Record<string, number>;
      operations: unknown[];
    };
    expect(json.status).toBe("partial");
    expect(json.summary).toEqual({ total: 3, done: 1, failed: 1, skipped: 1 });
    expect(json.operations).toHaveLength(3);
  });
});
