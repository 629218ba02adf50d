/**
 * `waybill export` (issue 6): read the live state of one org (and chosen projects) and turn
 * it into a config that plans with no changes. The CLI (src/cli/export.ts) decides where
 * the text goes.
 */
import type { ReadOnlyApi } from "../api/types.js";
import { buildExport, type ExportResult } from "./build.js";
import { type ProjectSelection, readExportSnapshot } from "./read.js";

export { buildExport, type ExportResult, escapeText, type IgnoreEntry } from "./build.js";
export { assignEnvNames, type EnvVarNeed, nameToken } from "./env-names.js";
export { ExportError } from "./errors.js";
export { fullProjectSlug, type ProjectSelection, readExportSnapshot } from "./read.js";
export {
  displayBaseUrl,
  type ExportHeader,
  type RenderedFile,
  renderFolder,
  renderSingle,
  SCHEMA_FILE,
} from "./render.js";
export type { ExportSnapshot } from "./snapshot.js";

export interface ExportRequest {
  readonly org: string;
  readonly projects: ProjectSelection;
  /** `--inline-urls`: webhook URLs in clear instead of `${env:…}` (issue 30). */
  readonly inlineUrls?: boolean;
}

/** Read, then build (pure). Rejects with the client's errors or an ExportError. */
export const runExport = async (api: ReadOnlyApi, request: ExportRequest): Promise<ExportResult> =>
  buildExport(await readExportSnapshot(api, request.org, request.projects), {
    inlineUrls: request.inlineUrls === true,
  });
