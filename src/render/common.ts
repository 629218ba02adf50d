/** Pieces every plan renderer shares (design.md §1 "Plans"). */
import type { ApiCall } from "../kinds/contract.js";
import { type JsonValue, SENSITIVE } from "../kinds/values.js";
import type { Change, CollectionGuard, DeleteChange, Plan, UnknownItem } from "../plan/types.js";

/**
 * An unknown item's line (design.md §5 "Reading the real service"): its address, its live id
 * (what a `delete_unknown` entry names with the address) and why it is unknown.
 */
export const unknownLine = (u: UnknownItem): string =>
  `${u.address}${u.id === undefined ? "" : ` (id ${u.id})`}: ${u.reason}`;

export const summaryLine = (plan: Plan): string => {
  const s = plan.summary;
  if (s.create + s.update + s.replace + s.delete === 0) return "No changes.";
  const destroying = secretDeletes(plan).length;
  // Issue 19: the deletes that destroy secrets are said in the summary itself, not only in
  // the (collapsed) details. Appended, so the line's start stays what scripts parse.
  const secrets =
    destroying === 0
      ? ""
      : ` (${destroying} of the deletes destroy${destroying === 1 ? "s" : ""} secrets)`;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete${secrets}.`;
};

/** Whether a JSON value holds a masked secret anywhere. */
const holdsSensitive = (v: JsonValue | null | undefined): boolean => {
  if (v === SENSITIVE) return true;
  if (Array.isArray(v)) return v.some(holdsSensitive);
  if (v !== null && typeof v === "object") return Object.values(v).some(holdsSensitive);
  return false;
};

/**
 * Issue 19: the deletes that destroy a secret nobody can read back — an env var, a webhook's
 * signing secret, an exporter's header values (their `before` holds a masked value), or a
 * context with its env vars (`destroys_secrets`; null: not known, so it may). Generic over
 * the kinds: a new kind whose live view masks a secret is counted without an edit here. A
 * replace is not counted: the config sets its secret again.
 */
export const secretDeletes = (plan: Plan): DeleteChange[] =>
  plan.changes.filter(
    (c): c is DeleteChange =>
      c.action === "delete" &&
      (c.destroys_secrets === null || (c.destroys_secrets ?? 0) > 0 || holdsSensitive(c.before)),
  );

/** How many addresses the secrets line names before "and N more". */
const SECRET_DELETES_SHOWN = 20;

/**
 * The deletes that destroy secrets, by address, as the first line of a plan's text and of
 * its Markdown header (issue 19); undefined when there are none.
 */
export const secretDeletesLine = (plan: Plan): string | undefined => {
  const deletes = secretDeletes(plan);
  if (deletes.length === 0) return undefined;
  const named = deletes
    .slice(0, SECRET_DELETES_SHOWN)
    .map((c) =>
      typeof c.destroys_secrets === "number"
        ? `${c.address} (${c.destroys_secrets} secret${c.destroys_secrets === 1 ? "" : "s"})`
        : c.address,
    );
  const more = deletes.length - named.length;
  return `Destroys secrets that cannot be recovered: ${named.join(", ")}${more > 0 ? `, and ${more} more` : ""}.`;
};

export const unverifiedLine = (plan: Plan): string | undefined =>
  plan.unverified_secrets === 0
    ? undefined
    : `${plan.unverified_secrets} secret${plan.unverified_secrets === 1 ? " is" : "s are"} unverified (same last four characters, or never returned by the service) and left alone; use --force-secrets to re-set them.`;

export const headline = (c: Change): string => {
  switch (c.action) {
    case "create":
      return `${c.address} will be created`;
    case "update":
      return `${c.address} will be updated in place`;
    case "replace":
      return `${c.address} must be replaced (${c.replace_order === "create_before_delete" ? "create, then delete" : "delete, then create"})`;
    case "delete":
      return `${c.address} will be destroyed`;
  }
};

export const SYMBOL: Readonly<Record<Change["action"], string>> = {
  create: "+",
  update: "~",
  replace: "-/+",
  delete: "-",
};

/** A value as text: `(sensitive)` bare, strings quoted, other JSON compact. */
export const formatValue = (v: JsonValue): string => {
  if (v === SENSITIVE) return SENSITIVE;
  if (v === null) return "null";
  return JSON.stringify(v);
};

/** Flatten an attribute object into `[path, value]` leaves (arrays stay whole). */
export const leaves = (obj: JsonValue, prefix = ""): [string, JsonValue][] => {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return prefix === "" ? [] : [[prefix, obj]];
  }
  const out: [string, JsonValue][] = [];
  collectLeaves(obj, prefix, out);
  return out;
};

/** One accumulator for the whole walk (no spread of a sub-object's leaves into push). */
const collectLeaves = (
  obj: { readonly [k: string]: JsonValue },
  prefix: string,
  out: [string, JsonValue][],
): void => {
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix === "" ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0) {
      collectLeaves(v, path, out);
    } else {
      out.push([path, v]);
    }
  }
};

/** One call as a line: `POST /webhooks/{id}/update (name, url)`. */
export const formatCall = (c: ApiCall): string => {
  const query =
    c.query === undefined
      ? ""
      : `?${Object.entries(c.query)
          .map(([k, v]) => `${k}=${v}`)
          .join("&")}`;
  const api = c.api === "v3" ? "" : ` [${c.api}]`;
  const fields = c.body_fields.length > 0 ? ` (${c.body_fields.join(", ")})` : "";
  return `${c.method} ${c.route}${query}${api}${fields}`;
};

/** Issue 28: how many of a mass-delete row's deletions are replaces (`, 8 of them re-created`). */
export const replacedNote = (g: CollectionGuard): string =>
  g.replace_count === undefined
    ? ""
    : g.replace_count === g.delete_count
      ? ", each re-created (a replace deletes the live item)"
      : `, ${g.replace_count} of them re-created (a replace deletes the live item)`;

/**
 * The plan's digest when it is one (src/plan/digest.ts): a saved plan's file is data, and
 * what it holds there is shown only when it has a digest's form (a Markdown marker must
 * not be closed early by it).
 */
export const shownDigest = (plan: Plan): string | undefined =>
  typeof plan.digest === "string" && /^[0-9a-f]{32}$/.test(plan.digest) ? plan.digest : undefined;

/**
 * design.md §5 `--changed-since`: a partial plan says so first, with what it covers. The ref
 * is the user's text; sanitizePlan has already stripped control characters from it.
 */
export const scopeLine = (plan: Plan): string | undefined => {
  const s = plan.scope;
  if (s === undefined) return undefined;
  const n = s.addresses.length.toLocaleString("en-US");
  const total = s.total.toLocaleString("en-US");
  return `partial plan: ${n} of ${total} addresses, those changed since ${s.since}; drift elsewhere is not checked`;
};

/** The line every rendering shows the digest on. */
export const digestLine = (plan: Plan): string | undefined => {
  const d = shownDigest(plan);
  return d === undefined ? undefined : `Plan digest: ${d}`;
};

/**
 * The Markdown comment's hidden marker of the digest (its first line): what the Action reads
 * back from the pull request's comment on the merge (action/waybill-action.mjs).
 */
export const digestMarker = (digest: string): string => `<!-- waybill-plan-digest: ${digest} -->`;
