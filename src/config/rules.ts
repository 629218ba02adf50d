/**
 * Cross-field rules the schema cannot say (issue 3), run on the parsed document whether or
 * not it passed the schema, so one run reports every problem. Every access is guarded: a
 * value of the wrong type was already reported by the schema check and is skipped here.
 */

import { limitCode, type ParentName, type ResourceKind } from "../kinds/contract.js";
import { isVcsOrgSlug } from "../kinds/group.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { parseAddress } from "../model/address.js";
import { checkCron } from "./cron.js";
import type { ConfigDiagnostic, DiagnosticCode } from "./diagnostic.js";
import { checkIgnoreFieldGlob, checkIgnoreGlob, kindOfAddress } from "./ignore-glob.js";
import { type DocPath, dottedPath, locate, type PositionIndex } from "./yaml-doc.js";

type Obj = Readonly<Record<string, unknown>>;

const asObj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;

/**
 * JSON with object keys sorted, so equal values compare equal whatever their key order. (By
 * code unit, not localeCompare: the order only has to be the same every time, and ICU's
 * collation was most of this function's time on a config with thousands of vcs triggers.)
 */
const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    asObj(x)
      ? Object.fromEntries(
          Object.entries(x as Obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : x,
  );

/** `${env:NAME}`, spelled so that no string literal looks like a template slip. */
const ENV_REF_EXAMPLE = ["$", "{env:NAME}"].join("");

const entries = (v: unknown): [string, unknown][] => Object.entries(asObj(v) ?? {});

export const checkRules = (
  file: string,
  doc: unknown,
  positions: PositionIndex,
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  const report = (path: DocPath, at: "key" | "value", code: DiagnosticCode, message: string) => {
    const pos = locate(positions, path, at);
    out.push({ file, ...pos, path: dottedPath(path), code, message });
  };
  const root = asObj(doc);
  if (!root) return out; // the schema check reports a document that is not a map
  const org = typeof root.org === "string" ? root.org : undefined;

  // The kinds' per-parent limits (`config.limit`: OTLP exporters per org, webhooks per
  // project), checked offline so a config over one never gets as far as a refused create.
  checkLimits(root, report);

  if (Array.isArray(root.otel_exporters)) {
    // Issue 28: header names compare case-insensitively (RFC 9110 §5.1), as the service's
    // HTTP does: two names that differ only by case are one header, set twice.
    root.otel_exporters.forEach((e, i) => {
      const seen = new Map<string, string>();
      for (const name of Object.keys(asObj(asObj(e)?.headers) ?? {})) {
        const first = seen.get(name.toLowerCase());
        if (first === undefined) {
          seen.set(name.toLowerCase(), name);
          continue;
        }
        report(
          ["otel_exporters", i, "headers", name],
          "key",
          "duplicate_key",
          `header ${JSON.stringify(name)} is also written as ${JSON.stringify(first)}: HTTP header names ignore case, so they are one header; keep one`,
        );
      }
    });
  }

  // Issue 28: spec: api-v2-v1.md Endpoints (V2): POST /organizations/{org_id}/groups is for
  // "standalone orgs only". In an org tied to a VCS provider the groups come from the
  // provider, so `groups:` (authoritative: it creates, re-creates and deletes) is refused
  // here, before anything is read or written.
  // Decision: `validate` is offline, so the org's provider is told by its slug's first
  // segment (`gh`, `github`, `bb`, `bitbucket`: src/kinds/group.ts), as our emulator does; any
  // other (the service's own, `circleci/<org id>`) is a standalone org.
  if (org !== undefined && root.groups !== undefined && isVcsOrgSlug(org)) {
    report(
      ["groups"],
      "key",
      "groups_not_standalone",
      `org ${org} is tied to a VCS provider, and the service creates and manages groups in standalone orgs only (the API reference, "Endpoints (V2)"); remove \`groups:\` (restrictions and sso_group_mappings may still name the provider's groups by name or id)`,
    );
  }

  for (const [slug, project] of entries(root.projects)) {
    const base = ["projects", slug];
    // Decision: a project listed under an org must belong to it (slug prefix), since the
    // org's files are planned together and a foreign project would be read in the wrong org.
    if (org && slug.split("/").length === 3 && !slug.startsWith(`${org}/`)) {
      report(
        base,
        "key",
        "project_outside_org",
        `project ${slug} is not in org ${org}; move it to a file with \`org: ${slug.split("/").slice(0, 2).join("/")}\``,
      );
    }
    const p = asObj(project);
    // Issue 18: `delete: true` deletes the project with everything in it, so it declares
    // nothing inside it, and it cannot be asked to create the project too.
    if (p?.delete === true) {
      for (const key of Object.keys(p)) {
        if (key === "delete") continue;
        report(
          [...base, key],
          "key",
          "invalid_value",
          key === "create"
            ? "a project cannot be both created and deleted; keep one of create and delete"
            : `a project with delete: true is deleted with everything in it: remove \`${key}\` (or remove delete: true to manage the project)`,
        );
      }
    }
    for (const [pname, pipeline] of entries(p?.pipelines)) {
      const pbase = [...base, "pipelines", pname];
      const config = asObj(asObj(pipeline)?.config);
      // spec: api-v3.md Pipelines: POST /pipelines takes `checkout { vcs {provider, repo_id,
      // repo_full_name} }` with no `?`: the service refuses a create without it (400).
      // Decision: a vcs pipeline without `checkout` checks out its config repo (config.vcs,
      // src/apply/body.ts); any other pipeline has no repo to default to, so it must say.
      if (config?.type === "hosted" && asObj(pipeline)?.checkout === undefined) {
        report(
          pbase,
          "key",
          "checkout_required",
          "a pipeline needs checkout.vcs (the repository its jobs check out): the service refuses to create a pipeline without it, and only a vcs pipeline has a repo (config.vcs) to default to; add checkout: { vcs: { provider, repo_id, repo_full_name } }",
        );
      }
      if (config) {
        // Decision: a source block that the chosen type ignores is a mistake, not a no-op.
        if (config.type === "vcs" && config.hosted !== undefined)
          report(
            [...pbase, "config", "hosted"],
            "key",
            "mismatched_block",
            "`hosted` is only for config.type hosted; remove it or set type: hosted",
          );
        if (config.type === "hosted" && config.vcs !== undefined)
          report(
            [...pbase, "config", "vcs"],
            "key",
            "mismatched_block",
            "`vcs` is only for config.type vcs; remove it or set type: vcs",
          );
      }
      const vcsTriggers = new Map<string, string>();
      for (const [tname, trigger] of entries(asObj(pipeline)?.triggers)) {
        const tpath = [...pbase, "triggers", tname];
        checkTrigger(tpath, asObj(trigger), report);
        // design.md §1 "Identity": a vcs trigger has no name in the API and is matched by
        // its repo and filter, so two with the same repo and filter could not be told apart.
        const event = asObj(asObj(trigger)?.event);
        if (event?.type !== "vcs" || !asObj(event.vcs)) continue;
        const signature = canonicalJson({ vcs: event.vcs, filter: event.filter ?? null });
        const first = vcsTriggers.get(signature);
        if (first !== undefined) {
          const at = locate(positions, [...pbase, "triggers", first], "key");
          report(
            tpath,
            "key",
            "ambiguous_trigger",
            `has the same event.vcs and event.filter as trigger "${first}" (line ${at.line}:${at.col}); vcs triggers have no name in the API, so Waybill could not tell them apart: merge them or change a filter`,
          );
        } else vcsTriggers.set(signature, tname);
      }
    }
  }

  if (Array.isArray(root.ignore)) {
    root.ignore.forEach((glob, i) => {
      if (typeof glob !== "string") return;
      const problem = checkIgnoreGlob(glob);
      if (problem) report(["ignore", i], "value", "invalid_ignore_glob", problem);
    });
  }
  // Issue 32: `ignore_fields` entries are an address glob and a final field name.
  if (Array.isArray(root.ignore_fields)) {
    root.ignore_fields.forEach((entry, i) => {
      const glob: unknown =
        typeof entry === "object" && entry !== null ? (entry as { field?: unknown }).field : entry;
      if (typeof glob !== "string") return;
      const problem = checkIgnoreFieldGlob(glob);
      if (problem) report(["ignore_fields", i], "value", "invalid_ignore_fields_glob", problem);
    });
  }
  if (Array.isArray(root.moved)) checkMoved(root.moved, report);
  if (Array.isArray(root.delete_unknown)) checkDeleteUnknown(root.delete_unknown, report);
  // `keep_unlisted` globs have the grammar of `ignore` globs (issue 19).
  if (Array.isArray(root.keep_unlisted)) {
    root.keep_unlisted.forEach((glob, i) => {
      if (typeof glob !== "string") return;
      const problem = checkIgnoreGlob(glob);
      if (problem) report(["keep_unlisted", i], "value", "invalid_keep_unlisted_glob", problem);
    });
  }
  return out;
};

const checkTrigger = (
  base: DocPath,
  trigger: Obj | undefined,
  report: (path: DocPath, at: "key" | "value", code: DiagnosticCode, message: string) => void,
): void => {
  if (!trigger) return;
  const event = asObj(trigger.event);
  const type = event?.type;
  if (type !== "vcs" && type !== "webhook" && type !== "schedule") return;

  // spec: api-v3.md "Triggers": `parameters` only for scheduled triggers, otherwise 400.
  if (trigger.parameters !== undefined && type !== "schedule") {
    report(
      [...base, "parameters"],
      "key",
      "parameters_not_allowed",
      `parameters are only allowed on schedule triggers (this one is type ${type}); remove them`,
    );
  }
  // spec: api-v3.md Triggers: POST /triggers takes `config? {ref string?}, checkout? {ref
  // string?}`: both refs are optional for every trigger type, so the config does not ask
  // for them (a trigger without refs can be declared and exported as it lives).
  //
  // spec: api-v3.md Trigger: "The create response includes the webhook secret once." When
  // a webhook trigger is created without `secret` the service makes one up and shows it
  // only in that answer, which Waybill never prints or keeps (design.md §1 "Secrets"), so
  // nobody could ever configure the sender. The config must therefore name the secret.
  if (type === "webhook") {
    const webhook = asObj(event?.webhook);
    if (webhook?.secret === undefined && (event?.webhook === undefined || webhook)) {
      report(
        webhook ? [...base, "event", "webhook"] : [...base, "event"],
        "key",
        "webhook_secret_required",
        `a webhook trigger needs event.webhook.secret: without one the service generates a secret and returns it only once, in the create answer, which Waybill never shows, so the sender could never be configured; set it, e.g. webhook: { secret: ${ENV_REF_EXAMPLE} }`,
      );
    }
  }
  // Decision: an event block that does not match event.type would be ignored by the
  // service; say so instead of silently dropping it.
  for (const block of ["vcs", "webhook", "schedule"] as const) {
    if (event?.[block] !== undefined && block !== type) {
      report(
        [...base, "event", block],
        "key",
        "mismatched_block",
        `event.${block} is only for type ${block} (this trigger is type ${type}); remove it or change the type`,
      );
    }
  }
  const cron = asObj(event?.schedule)?.cron_expression;
  if (typeof cron === "string" && cron.trim().split(/\s+/).length === 5) {
    // The field count is the schema's pattern; the fields themselves are checked here.
    const problem = checkCron(cron);
    if (problem) {
      report(
        [...base, "event", "schedule", "cron_expression"],
        "value",
        "invalid_cron",
        `"${cron}": ${problem}`,
      );
    }
  }
};

/**
 * Where the first item past a limit of `max` is, among the items declared here, when the
 * parent holds `total` items and `before` of them come first (earlier files of the org:
 * src/config/build.ts `limitsAcrossFiles`); undefined within the limit.
 */
export const firstPastLimit = (max: number, total: number, before: number): number | undefined =>
  total <= max ? undefined : Math.max(0, max - before);

type Report = (path: DocPath, at: "key" | "value", code: DiagnosticCode, message: string) => void;

/** A collection's items as written (a map's entries, a list's items by index), or none. */
const writtenItems = (
  value: unknown,
  shape: "map" | "list" | "singleton",
): [string | number, unknown][] => {
  if (shape === "list") return Array.isArray(value) ? value.map((v, i) => [i, v]) : [];
  if (shape === "map") return entries(value);
  return [];
};

/**
 * Every object of the document that is a `parent` (the root for the org; each item of the
 * parent kind, in each of its own parents), with its path. Guarded like every rule: a value
 * of the wrong type is skipped (the schema reports it).
 */
const parentsIn = (
  root: Obj,
  parent: ParentName | string,
  kinds: readonly ResourceKind<unknown, unknown>[],
): { readonly obj: Obj; readonly path: DocPath }[] => {
  if (parent === "org") return [{ obj: root, path: [] }];
  const kind = kinds.find((k) => k.type === parent);
  if (kind === undefined) return [];
  const { yamlKey, shape } = kind.config;
  const out: { obj: Obj; path: DocPath }[] = [];
  for (const p of parentsIn(root, kind.parent, kinds)) {
    const value = p.obj[yamlKey];
    if (shape === "singleton") {
      const obj = asObj(value);
      if (obj) out.push({ obj, path: [...p.path, yamlKey] });
      continue;
    }
    for (const [key, item] of writtenItems(value, shape)) {
      const obj = asObj(item);
      if (obj) out.push({ obj, path: [...p.path, yamlKey, key] });
    }
  }
  return out;
};

/**
 * The kinds' per-parent limits (`config.limit`, src/kinds/contract.ts) in one document:
 * under each parent, the first item past the limit is reported (a list item at its value,
 * a map entry at its key) with the kind's message and the code `too_many_<yamlKey>`.
 */
export const checkLimits = (
  root: Obj,
  report: Report,
  kinds: readonly ResourceKind<unknown, unknown>[] = ALL_KINDS,
): void => {
  for (const kind of kinds) {
    const { limit, yamlKey, shape } = kind.config;
    if (limit === undefined) continue;
    for (const p of parentsIn(root, kind.parent, kinds)) {
      const items = writtenItems(p.obj[yamlKey], shape);
      const index = firstPastLimit(limit.max, items.length, 0);
      const [key] = index === undefined ? [] : (items[index] ?? []);
      if (key === undefined) continue;
      report(
        [...p.path, yamlKey, key],
        shape === "list" ? "value" : "key",
        limitCode(yamlKey),
        limit.message(items.length, 0),
      );
    }
  }
};

/** One item's address, exactly (no glob), as `moved` and `delete_unknown` name it; or undefined. */
const exactAddress = (text: string) =>
  checkIgnoreGlob(text) !== undefined || /[*?]/.test(text) ? undefined : parseAddress(text);

/**
 * `delete_unknown` (design.md §5 "Reading the real service": an unknown item is never
 * deleted unless the config names it). Decision, the design being silent on the form: an
 * entry names one item by its exact address (no glob: a glob could widen to items the user
 * never saw) *and* its live id, both as plan lists them, of a kind whose items can be
 * unknown; whether it matches a live unknown item is the planner's check (it needs the live
 * state). One entry per address and id.
 */
const checkDeleteUnknown = (entries: readonly unknown[], report: Report): void => {
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const e = asObj(entry);
    const address = e?.address;
    const id = e?.id;
    if (typeof address !== "string" || typeof id !== "string") return;
    const path = ["delete_unknown", i];
    const segments = exactAddress(address);
    if (segments === undefined) {
      report(
        [...path, "address"],
        "value",
        "invalid_delete_unknown",
        `"${address}" is not an item's address; copy the address plan lists under "Unknown", e.g. context["deploy"].restriction["someday:x"]`,
      );
      return;
    }
    const kind = kindOfAddress(segments);
    if (kind === undefined || kind.unknown === undefined) {
      report(
        [...path, "address"],
        "value",
        "invalid_delete_unknown",
        kind === undefined
          ? `"${address}" names no kind of item`
          : `a ${kind.type} is never unknown to Waybill: manage it in the config (its collection's list decides what is deleted), and remove this entry`,
      );
      return;
    }
    const key = `${address}\u0000${id}`;
    const twice = seen.get(key);
    if (twice !== undefined) {
      report(
        path,
        "key",
        "invalid_delete_unknown",
        `delete_unknown entry ${twice + 1} already names this item; one entry per item`,
      );
      return;
    }
    seen.set(key, i);
  });
};

/**
 * Issue 19 `moved`: each entry renames one live item in place, so both addresses name the
 * same collection (only the last key differs), of a kind the API can rename (the kind's
 * `rename` rule says why not). Decision: chains (a → b, b → c) and two entries for one
 * address are refused, not resolved: write one entry from the first address to the last.
 */
const checkMoved = (moved: readonly unknown[], report: Report): void => {
  const froms = new Map<string, number>();
  const tos = new Map<string, number>();
  moved.forEach((entry, i) => {
    const m = asObj(entry);
    const from = m?.from;
    const to = m?.to;
    if (typeof from !== "string" || typeof to !== "string") return;
    const path = ["moved", i];
    const a = exactAddress(from);
    const b = exactAddress(to);
    for (const [seg, text, key] of [
      [a, from, "from"],
      [b, to, "to"],
    ] as const) {
      if (seg === undefined) {
        report(
          [...path, key],
          "value",
          "invalid_moved",
          `"${text}" is not an item's address; write e.g. project["gh/acme/api"].webhook["slack"]`,
        );
        return;
      }
    }
    if (a === undefined || b === undefined) return;
    const sameParent =
      a.length === b.length &&
      a.every((s, k) => s.name === b[k]?.name && (k === a.length - 1 || s.key === b[k]?.key));
    if (!sameParent) {
      report(
        [...path, "to"],
        "value",
        "invalid_moved",
        "from and to must name items of one collection, differing only in the last key: moved renames an item, it cannot move it to another parent or make it another kind",
      );
      return;
    }
    if (from === to) {
      report([...path, "to"], "value", "invalid_moved", "from and to are the same address");
      return;
    }
    const kind = kindOfAddress(a);
    if (kind === undefined) {
      report([...path, "from"], "value", "invalid_moved", `"${from}" names no kind of item`);
      return;
    }
    if (!kind.rename.can) {
      report(
        [...path, "from"],
        "value",
        "invalid_moved",
        `a ${kind.type} cannot be renamed: ${kind.rename.why}; remove this entry`,
      );
      return;
    }
    const twice = froms.get(from) ?? tos.get(to);
    if (twice !== undefined) {
      report(
        path,
        "key",
        "invalid_moved",
        `moved entry ${twice + 1} already moves this address; one entry per item`,
      );
      return;
    }
    froms.set(from, i);
    tos.set(to, i);
  });
  for (const [to, i] of tos) {
    const next = froms.get(to);
    if (next !== undefined) {
      report(
        ["moved", next, "from"],
        "value",
        "invalid_moved",
        `entry ${i + 1} already moves an item to ${to}: chained moves are not followed; write one entry from the first address to the last`,
      );
    }
  }
};
