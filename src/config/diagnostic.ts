import { stripControls } from "../core/controls.js";
import { WaybillError } from "../core/errors.js";
import {
  type LimitCode,
  limitCode,
  type UnknownNameCode,
  unknownNameCode,
} from "../kinds/contract.js";
import { ALL_KINDS } from "../kinds/registry.js";

/**
 * One problem found in a config, with where it is. Messages say what is wrong and how to
 * fix it, and never contain a secret value (design.md §1 "Secrets").
 */
export interface ConfigDiagnostic {
  /** The file as it was named (the `-c` path, or the folder joined with the file name). */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
  /** Dotted path inside the document, e.g. `contexts.deploy-prod.env.KEY`; "" for the file. */
  readonly path: string;
  readonly message: string;
  /** Stable, for tools: see DIAGNOSTIC_CODES. */
  readonly code: DiagnosticCode;
}

/**
 * The codes of src/config's own checks; DIAGNOSTIC_CODES adds the kinds' limits and the
 * unknown names of the kinds that references name.
 */
const OWN_CODES = [
  // reading the file
  "config_not_found",
  "no_config_files",
  "file_unreadable",
  "file_too_large",
  "binary_file",
  "not_utf8",
  "empty_file",
  // YAML
  "yaml_syntax",
  "duplicate_key",
  "alias_limit",
  "multiple_documents",
  // a key JavaScript reserves (__proto__, constructor, prototype: src/config/reserved-keys.ts)
  "reserved_key",
  // schema
  "unknown_key",
  "missing_key",
  "wrong_type",
  "invalid_value",
  // cross-field rules
  "invalid_cron",
  "not_https",
  "parameters_not_allowed",
  "checkout_required",
  "webhook_secret_required",
  "mismatched_block",
  "empty_env_value",
  // Waybill's own masked rendering (`…(abcd)`, `(sensitive)`) written as a value (issue 41)
  "masked_value",
  "invalid_ignore_glob",
  "invalid_keep_unlisted_glob",
  "invalid_ignore_fields_glob",
  "invalid_moved",
  "invalid_delete_unknown",
  "unknown_template",
  "invalid_template",
  // policies, exceptions and guards (issue 45, src/config/policies.ts)
  "invalid_policy",
  // an item overrides a template key marked final (issue 45)
  "final_key_overridden",
  // templates that would expand past the bound (src/config/template-bound.ts)
  "template_limit",
  "project_outside_org",
  "duplicate_address",
  "ambiguous_trigger",
  // `groups:` in an org tied to a VCS provider (groups are for standalone orgs only)
  "groups_not_standalone",
  // references the service does not know (found at plan time, src/run/unknown-projects.ts)
  "unknown_project",
  // issue 43: a project of an org outside --allowed-orgs
  "org_not_allowed",
  // secret references
  "env_missing",
  "secret_file_unreadable",
  "secret_file_outside",
  // issue 43: a warning (an error with --strict): a secret written in clear
  "literal_secret",
  "invalid_reference",
  "reference_not_allowed",
] as const;

/**
 * A diagnostic's code: one of src/config's own, a kind's limit (`too_many_<yamlKey>`:
 * `too_many_otel_exporters`, `too_many_webhooks`; src/kinds/contract.ts ItemLimit), or a
 * name a reference writes that the org does not have (`unknown_<type>`: `unknown_group`;
 * src/kinds/contract.ts UnknownNameCode).
 */
export type DiagnosticCode = (typeof OWN_CODES)[number] | LimitCode | UnknownNameCode;

/**
 * The `unknown_<type>` codes of the kinds the registry's references name by name (a
 * restriction's or an SSO mapping's group: `unknown_group`), once each, in registry order;
 * `unknown_project` (slugs, src/run/unknown-projects.ts) is one of src/config's own.
 */
const unknownNameCodes = (): UnknownNameCode[] => {
  const codes = new Set<UnknownNameCode>();
  for (const kind of ALL_KINDS) {
    for (const ref of kind.references ?? []) {
      if (ref.by.includes("name")) codes.add(unknownNameCode(ref.to));
    }
  }
  return [...codes];
};

/**
 * Every code a diagnostic may have: src/config's own, then each kind's limit's, then the
 * unknown names of the kinds references name (derived from the registry, so a new kind's
 * codes need no edit here).
 */
export const DIAGNOSTIC_CODES: readonly DiagnosticCode[] = [
  ...OWN_CODES,
  ...ALL_KINDS.flatMap((k) => (k.config.limit === undefined ? [] : [limitCode(k.config.yamlKey)])),
  ...unknownNameCodes().filter((c) => !(OWN_CODES as readonly string[]).includes(c)),
];

/**
 * `FILE:LINE:COL: PATH: message`.
 * Decision: for whole-file problems (path "") the path part is left out, not printed empty.
 */
export const formatDiagnostic = (d: ConfigDiagnostic): string =>
  stripControls(`${d.file}:${d.line}:${d.col}: ${d.path === "" ? "" : `${d.path}: `}${d.message}`);

/**
 * Issue 41: the diagnostic with its file, path and message escaped (src/core/controls.ts). A
 * key, a file name or a value quoted in a message is the config author's data (or a live
 * name `pull` wrote): a bidi override (U+202E) or a C1 control in it must not reorder or
 * drive what the reader of `validate`'s text, JSON or GitHub annotations sees. The same
 * object when nothing needed escaping.
 */
export const escapeDiagnostic = (d: ConfigDiagnostic): ConfigDiagnostic => {
  const file = stripControls(d.file);
  const path = stripControls(d.path);
  const message = stripControls(d.message);
  return file === d.file && path === d.path && message === d.message
    ? d
    : { ...d, file, path, message };
};

/** Files in the order they were read, then by position; stable for equal positions. */
export const sortDiagnostics = (
  diagnostics: readonly ConfigDiagnostic[],
  fileOrder: readonly string[],
): ConfigDiagnostic[] => {
  const rank = (f: string): number => {
    const i = fileOrder.indexOf(f);
    return i === -1 ? fileOrder.length : i;
  };
  return diagnostics
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        rank(a.d.file) - rank(b.d.file) ||
        a.d.file.localeCompare(b.d.file) ||
        a.d.line - b.d.line ||
        a.d.col - b.d.col ||
        a.i - b.i,
    )
    .map((x) => x.d);
};

/** The config is invalid; `diagnostics` holds every problem found, not only the first. */
export class ConfigError extends WaybillError {
  readonly code = "config_invalid";
  readonly diagnostics: readonly ConfigDiagnostic[];

  constructor(diagnostics: readonly ConfigDiagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.diagnostics = diagnostics;
  }
}
