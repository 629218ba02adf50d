/** The apply summary (src/apply/render-result.ts): done, failed with the API's fields, skipped. */
import { describe, expect, it } from "vitest";
import { ApiError, NetworkError } from "../../src/api/errors.js";
import { CreateRefusedError, OutcomeUnknownError } from "../../src/apply/executor.js";
import {
  applyStatus,
  progressLine,
  renderResultJson,
  renderResultText,
} from "../../src/apply/render-result.js";
import {
  type ApplyResult,
  failureInfo,
  type OperationOutcome,
  retryClass,
} from "../../src/apply/run-apply.js";
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
    retry: "refused",
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

describe("after a failure, the summary says whether a re-run converges", () => {
  const api = (status: number, v2Message?: string) =>
    new ApiError({
      method: "POST",
      path: "/api/v2/organizations/x/groups",
      status,
      ...(v2Message === undefined ? {} : { v2Message }),
    });
  const refusedGroup = new CreateRefusedError(
    `${api(400, "groups can be created in standalone orgs only").message}. Groups need a standalone org`,
    { cause: api(400, "groups can be created in standalone orgs only") },
  );
  const failedWith = (err: unknown, address = 'group["platform"]'): OperationOutcome => ({
    ...base,
    op: address,
    address,
    resource_type: "group",
    action: "create",
    status: "failed",
    ms: 5,
    error: failureInfo(err),
  });

  it("classes each failure: network, timeout, 5xx and 429 are retryable; a 4xx is refused", () => {
    expect(retryClass(api(503))).toBe("retryable");
    expect(retryClass(api(429))).toBe("retryable");
    expect(
      retryClass(new NetworkError({ method: "POST", path: "/x", reason: "reset", attempts: 1 })),
    ).toBe("retryable");
    expect(retryClass(new OutcomeUnknownError("lost", { cause: api(504) }))).toBe("retryable");
    expect(retryClass(api(400))).toBe("refused");
    // A refusal wrapped with what it means keeps the service's status.
    expect(retryClass(refusedGroup)).toBe("refused");
    expect(failureInfo(refusedGroup)).toMatchObject({ status: 400, retry: "refused" });
    expect(retryClass(new Error("a plan that does not fit"))).toBe("error");
  });

  it("a refused create never ends with 'a re-run converges': the cause to fix is named", () => {
    const text = renderResultText(result([done, failedWith(refusedGroup)]));
    expect(text).not.toContain("converges");
    expect(text).toContain("A re-run alone will not fix the failure the service refused");
    expect(text).toMatch(
      /fix the cause first:\n {2}group\["platform"\]: refused with 400: .*standalone orgs only/,
    );
  });

  it("only retryable failures: a re-run converges", () => {
    const text = renderResultText(result([done, failedWith(api(503))]));
    expect(text).toContain("a re-run of apply converges");
    expect(text).not.toContain("fix the cause");
  });
});
