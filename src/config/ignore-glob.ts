/**
 * `ignore` entries are address globs (design.md §1 "Identity"): an address in the
 * `formatAddress` grammar whose keys may hold `*` (any run) and `?` (one character).
 *
 * Decision: wildcards are allowed inside keys only (`context["legacy-*"]`,
 * `project["gh/acme/api"].webhook["*"]`), and the glob must have the shape of a real
 * address, so a typo such as `contexts["x"]` or `project["a/b/c"].hook["*"]` is reported
 * instead of silently ignoring nothing. To ignore everything under an item, name the item:
 * children of an ignored address are ignored too.
 */

import { stripControls } from "../core/controls.js";
import { ORG_SETTING_NAMES, PROJECT_SETTING_NAMES } from "../core/wire.js";
import type { ParentName, ResourceKind } from "../kinds/contract.js";
import { ALL_KINDS, kindOf } from "../kinds/registry.js";
import {
  type AddressSegment,
  compileAddressGlob,
  LEGACY_SCHEDULE_STEP,
  parseAddress,
} from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";
import { closest } from "./suggest.js";

/** The address segment a parent's children follow; "" is the root (the org). */
const parentSegment = (parent: ParentName): string =>
  parent === "org" ? "" : parent === "project" ? "project" : kindOf(parent).collection.segment.name;

/**
 * Allowed segment names after each parent segment; "" is the root. From the kind registry
 * (each kind's parent and address segment), so an address of a new kind is a valid glob.
 */
const SHAPES: Readonly<Record<string, Readonly<Record<string, "keyed" | "bare">>>> = (() => {
  const out: Record<string, Record<string, "keyed" | "bare">> = { "": {} };
  for (const kind of ALL_KINDS) {
    const { name, keyed } = kind.collection.segment;
    const parent = parentSegment(kind.parent);
    out[parent] = { ...out[parent], [name]: keyed ? "keyed" : "bare" };
  }
  // Projects are declared by the config, not a kind of their own (yet).
  (out[""] as Record<string, "keyed" | "bare">).project = "keyed";
  // Legacy V2 schedules are never a kind, but drift lists them: `ignore` may quiet them.
  out.project = { ...out.project, [LEGACY_SCHEDULE_STEP]: "keyed" };
  return out;
})();

const EXAMPLE = 'e.g. context["legacy-*"] or project["gh/acme/api"].webhook["*"]';

/** A message when `glob` is not a valid address glob, else undefined. */
/** True when a `*` or `?` stands outside the quoted keys. */
const wildcardOutsideKeys = (glob: string): boolean => {
  let inKey = false;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (inKey && ch === "\\") i += 1;
    else if (ch === '"') inKey = !inKey;
    else if (!inKey && (ch === "*" || ch === "?")) return true;
  }
  return false;
};

export const checkIgnoreGlob = (glob: string): string | undefined => {
  if (wildcardOutsideKeys(glob)) {
    return `"${glob}": * and ? may only appear inside the ["..."] keys (${EXAMPLE})`;
  }
  const segments = parseAddress(glob.replace(/[*?]/g, "x"));
  if (!segments) {
    return `"${glob}" is not an address glob; write an address with * or ? inside the ["..."] keys, ${EXAMPLE}`;
  }
  let parent = "";
  for (const s of segments) {
    const kind = SHAPES[parent]?.[s.name];
    if (!kind) {
      const allowed = Object.keys(SHAPES[parent] ?? {});
      return `"${glob}": "${s.name}" cannot appear ${parent ? `after ${parent}` : "first"}; expected ${allowed.length ? allowed.join(", ") : "nothing more"} (${EXAMPLE})`;
    }
    if ((kind === "keyed") !== (s.key !== undefined)) {
      return `"${glob}": ${s.name} ${kind === "keyed" ? "needs a key, e.g. " + s.name + '["*"]' : "takes no key"}`;
    }
    parent = s.name;
  }
  try {
    compileAddressGlob(glob);
  } catch {
    return `"${glob}" is not a valid address glob (${EXAMPLE})`;
  }
  return undefined;
};

/** The kind whose items have addresses of this shape (its last step under its parent). */
export const kindOfAddress = (
  segments: readonly AddressSegment[],
): ResourceKind<unknown, unknown> | undefined => {
  const last = segments[segments.length - 1];
  const parent = segments[segments.length - 2]?.name ?? "";
  return last === undefined
    ? undefined
    : ALL_KINDS.find(
        (k) => k.collection.segment.name === last.name && parentSegment(k.parent) === parent,
      );
};

/**
 * The fields an `ignore_fields` entry may name after an item of `kind`: its config keys
 * (`config.schemaKeys`, without `id`/`extends`/`create`/`delete`, which are not compared),
 * the settings names for a settings block, `value` for an env var. Undefined: not checked
 * (a kind whose items are not objects with declared keys).
 */
const fieldsOf = (kind: ResourceKind<unknown, unknown>): readonly string[] | undefined => {
  if (kind.type === "org_settings") return ORG_SETTING_NAMES;
  if (kind.type === "project_settings") return PROJECT_SETTING_NAMES;
  if (kind.type === "context_env_var" || kind.type === "project_env_var") return ["value"];
  const own = kind.config.schemaKeys?.[kind.config.schemaDef];
  if (!own) return undefined;
  return own.keys.filter((k) => !["id", "extends", "create", "delete"].includes(k));
};

/**
 * Issue 41: the settings whose change by hand widens who may do what (secrets to forks, fork
 * builds, SSH, who may change settings, unversioned or uncertified code) and where a
 * webhook's deliveries go. Ignoring one hides such a change from drift: the entry is a
 * warning unless it says `acknowledge: true`.
 */
const SECURITY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  project_settings: [
    "can_pass_secrets_to_fork_pr_jobs",
    "enable_building_fork_prs",
    "is_oss",
    "is_ssh_disabled",
    "is_admin_required_for_writing_settings",
    "enable_unversioned_config",
  ],
  org_settings: [
    "enable_uncertified_public_orbs",
    "enable_unversioned_config",
    "is_user_checkout_keys_disabled",
    "is_context_group_restriction_required",
  ],
  webhook: ["url", "should_verify_tls"],
};

export type IgnoreFieldCheck =
  | { readonly ok: false; readonly problem: string }
  | {
      readonly ok: true;
      /** The field the entry names, when it is one that widens access (SECURITY_FIELDS). */
      readonly security?: string;
    };

const FIELD_EXAMPLE = 'e.g. project["*"].webhook["*"].is_enabled';

/**
 * An `ignore_fields` entry (issues 32 and 41): an address glob (as `ignore`'s) followed by
 * `.field` (or a nested `.field.sub`), e.g. `project["*"].webhook["*"].is_enabled`. The
 * address is read once, step by step (linear: a 150 KB entry was quadratic), up to the
 * first step that is not an item of the kind before it: from there on it is the field,
 * checked against that kind's fields with a "did you mean". `project["*"].url` was accepted
 * (no project has a `url`) and, since its `*` matched across steps, hid every webhook's URL.
 */
export const checkIgnoreFieldEntry = (glob: string): IgnoreFieldCheck => {
  const fail = (problem: string): IgnoreFieldCheck => ({ ok: false, problem });
  if (wildcardOutsideKeys(glob)) {
    return fail(`"${glob}": * and ? may only appear inside the ["..."] keys (${FIELD_EXAMPLE})`);
  }
  const segments = parseAddress(glob);
  if (!segments) {
    return fail(`"${glob}" is not an address glob followed by a field name (${FIELD_EXAMPLE})`);
  }
  let parent = "";
  let n = 0;
  for (; n < segments.length; n++) {
    const s = segments[n] as AddressSegment;
    const shape = SHAPES[parent]?.[s.name];
    if (!shape) break;
    if ((shape === "keyed") !== (s.key !== undefined)) {
      return fail(
        `"${glob}": ${s.name} ${shape === "keyed" ? `needs a key, e.g. ${s.name}["*"]` : "takes no key"}`,
      );
    }
    parent = s.name;
  }
  const field = segments.slice(n);
  const kind = kindOfAddress(segments.slice(0, n));
  if (n === 0 || !kind) {
    const first = segments[0]?.name ?? "";
    const allowed = Object.keys(SHAPES[""] ?? {});
    const near = closest(first, allowed);
    return fail(
      `"${glob}": "${first}" is not a kind of item${near ? `; did you mean ${near}?` : ""} (${FIELD_EXAMPLE})`,
    );
  }
  if (field.length === 0) {
    return fail(`"${glob}": no field name after the address (${FIELD_EXAMPLE})`);
  }
  const keyed = field.find((s) => s.key !== undefined);
  if (keyed) {
    return fail(
      `"${glob}": ${keyed.name}[…] is not an item under ${parent}; name a field of ${kind.collection.segment.name} after the address`,
    );
  }
  const fields = fieldsOf(kind);
  const name = (field[0] as AddressSegment).name;
  if (fields && !fields.includes(name)) {
    const near = closest(name, fields);
    return fail(
      `"${glob}": ${kind.collection.segment.name} has no field "${name}"${near ? `; did you mean ${near}?` : ""} (its fields: ${fields.join(", ")})`,
    );
  }
  return SECURITY_FIELDS[kind.type]?.includes(name) ? { ok: true, security: name } : { ok: true };
};

/** The entry's problem, or undefined when it is fine (issue 32's name, kept for callers). */
export const checkIgnoreFieldGlob = (glob: string): string | undefined => {
  const r = checkIgnoreFieldEntry(glob);
  return r.ok ? undefined : r.problem;
};

/**
 * Issue 41: one warning per `ignore_fields` entry that hides a field widening access
 * without `acknowledge: true` (an ignored `can_pass_secrets_to_fork_pr_jobs` turned on by
 * hand left drift saying "No drift").
 */
export const ignoreFieldWarnings = (desired: DesiredConfig): string[] =>
  desired.orgs.flatMap((o) =>
    (o.ignore_fields_unacknowledged ?? []).map((u) =>
      // The entry's glob is the author's text: escaped like every config message.
      stripControls(
        `${u.source.file}:${u.source.line}:${u.source.col}: ignore_fields hides ${u.field}, which widens access when changed by hand (drift only counts it); if that is meant, write the entry as { field: '${u.glob}', acknowledge: true }`,
      ),
    ),
  );
