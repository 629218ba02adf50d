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
import type { ParentName, ResourceKind } from "../kinds/contract.js";
import { ALL_KINDS, kindOf } from "../kinds/registry.js";
import {
  type AddressSegment,
  compileAddressGlob,
  LEGACY_SCHEDULE_STEP,
  parseAddress,
} from "../model/address.js";

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

const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * An `ignore_fields` entry (issue 32): an address glob (as `ignore`'s) followed by
 * `.field` (or a nested `.field.sub`), e.g. `project["*"].webhook["*"].is_enabled`.
 * Returns what is wrong, or undefined when it is fine.
 */
export const checkIgnoreFieldGlob = (glob: string): string | undefined => {
  for (let i = glob.lastIndexOf("."); i > 0; i = glob.lastIndexOf(".", i - 1)) {
    if (!FIELD_PATH.test(glob.slice(i + 1))) continue;
    if (checkIgnoreGlob(glob.slice(0, i)) === undefined) return undefined;
  }
  return `must be an address glob followed by a field name, e.g. project["*"].webhook["*"].is_enabled (${checkIgnoreGlob(glob) ?? "no field name after the address"})`;
};
