import type { Issue } from "./validate.js";

/**
 * The emulator's errors. Decision: the emulator is its own folder and imports nothing of the
 * product (docs/architecture.md), so it has its own base class with the same shape as the
 * product's WaybillError (a stable `code`, `name` = the class); `waybill emulator`
 * (src/cli/emulator.ts) turns a SeedError into the product's UsageError, same message.
 */
export abstract class EmulatorError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * An error the emulator answers over HTTP. The server renders it as the V3 envelope
 * `{error:{type,id,title,detail,source:{pointer}}}` or, on V2, as `{message}`
 * (spec: api-v3.md "Errors"; api-v2-v1.md "Errors" rule 1).
 *
 * Decision: `error.type` tokens (the spec shows none): `invalid_request`, `unknown_member`,
 * `invalid_json`, `missing_filter`, `invalid_filter`, `invalid_page_limit`, `invalid_cursor`,
 * `invalid_include`, `invalid_order_by`, `invalid_url`, `already_exists`, `unknown_reference`, `limit_exceeded`,
 * `not_updatable`, `not_found`, `unauthorized`, `forbidden`, `rate_limited`, `internal`.
 */
export class EmulatorHttpError extends EmulatorError {
  readonly code = "emulator_http";

  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail?: string,
    readonly pointer?: string,
  ) {
    super(`${status} ${type}: ${title}${detail ? ` — ${detail}` : ""}`);
  }
}

/** A seed that cannot be loaded; the message names the JSON pointer of the problem. */
export class SeedError extends EmulatorError {
  readonly code = "emulator_seed";
}

export const badRequest = (type: string, detail: string, pointer?: string): EmulatorHttpError =>
  new EmulatorHttpError(400, type, "Bad request", detail, pointer);

export const notFound = (what: string, id?: string): EmulatorHttpError =>
  new EmulatorHttpError(
    404,
    "not_found",
    "Not found",
    id ? `${what} ${id} not found` : `${what} not found`,
  );

/**
 * A create whose parent (`references.<what>.id`) does not exist or is not visible.
 * spec: api-v3.md Contexts, Context restrictions, Pipelines, Triggers: those POST routes list
 * 201 and 400 only, so an unknown parent named in the body is invalid input (Errors rule 2),
 * not a 404 (the route itself exists). Decision: `error.type` is `unknown_reference`.
 */
export const unknownReference = (what: string, id: string): EmulatorHttpError =>
  badRequest(
    "unknown_reference",
    `/data/references/${what}/id: ${what} ${id} does not exist or is not visible`,
    `/data/references/${what}/id`,
  );

/** A body issue as a 400: unknown members get their own type so clients can tell. */
export const fromIssue = (issue: Issue): EmulatorHttpError =>
  badRequest(
    issue.unknownMember ? "unknown_member" : "invalid_request",
    `${issue.pointer}: ${issue.message}`,
    issue.pointer,
  );
