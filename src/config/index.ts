/** The config layer's public API (issue 3). */

export {
  type ConfigDiagnostic,
  ConfigError,
  DIAGNOSTIC_CODES,
  type DiagnosticCode,
  formatDiagnostic,
} from "./diagnostic.js";
export { configDigest } from "./digest.js";
export {
  DEFAULT_CONFIG_PATH,
  DEFAULT_MAX_FILE_BYTES,
  type LoadOptions,
  type LoadResult,
  loadConfig,
  loadConfigOrThrow,
} from "./load.js";
export { type ConfigSummary, formatSummary, summarizeConfig } from "./summary.js";
