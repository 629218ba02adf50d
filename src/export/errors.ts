import { WaybillError } from "../core/errors.js";

/** `waybill export` cannot do what was asked (unknown project, unwritable output). Exit 1. */
export class ExportError extends WaybillError {
  readonly code = "export_failed";
}
