/**
 * Saved plans (issue 5; design.md §1 "Plans"): `plan --out FILE` writes the JSON plan plus
 * what `apply FILE` needs to check it — format version, Waybill version, base URL, org ids,
 * the digest of the resolved config (src/config/digest.ts: no secret value or hash of one;
 * the cli computes it and passes it in, so apply does not depend on config)
 * and a fingerprint of every live item read (a hash of its non-secret attributes). Written
 * with mode 0600. `apply FILE` re-plans and refuses (exit 3) when the changes differ.
 */
import { createHash } from "node:crypto";
import { PlanError, StalePlanError, UsageError } from "../core/errors.js";
import { readRegularFile } from "../core/read-regular.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { canonical, type JsonValue, toJson } from "../kinds/values.js";
import type { LiveState } from "../model/live.js";
import { changeText } from "../plan/digest.js";
import { selectCovered, selectExcludes, selectTargets, summarise } from "../plan/finish.js";
import { maskPlanUrls } from "../plan/mask-urls.js";
import { globMatcher } from "../plan/plan.js";
import { type PlanScope, type ScopedAddress, scopeIndex } from "../plan/scope.js";
import type { Change, Plan, Summary } from "../plan/types.js";
import type { DesiredIndex } from "./desired-index.js";
import { writePrivateFile } from "./private-file.js";
import {
  brokenBindings,
  newBindingSalt,
  type SendBindings,
  sendBindings,
} from "./send-bindings.js";

export const SAVED_PLAN_FORMAT = 1;

export interface SavedPlanMeta {
  readonly waybill_version: string;
  /** The service root the plan was made against. */
  readonly base_url: string;
  /** sha256 of the resolved config without secret values (`configDigest`). */
  readonly config_digest: string;
  /** Fingerprint of every live item read, by a stable key (`liveFingerprints`). */
  readonly live_fingerprints: Readonly<Record<string, string>>;
  /** The `--force-secrets` globs the plan was made with, so the re-plan uses the same. */
  readonly force_secrets?: readonly string[];
  /**
   * Issue 43: a salted full-length SHA-256 of each credential URL the plan sends
   * (src/apply/send-bindings.ts), so apply sends only the URLs the reviewed plan was made
   * with. Absent only in files written before it (then apply refuses a plan that sends one).
   */
  readonly send_bindings?: SendBindings;
}

export interface SavedPlan extends SavedPlanMeta {
  readonly saved_plan_format: typeof SAVED_PLAN_FORMAT;
  readonly orgs: Plan["orgs"];
  readonly plan: Plan;
}

/** Members that hold a secret or part of one: never fingerprinted. */
const SECRET_KEYS = new Set(["truncated_value", "value", "secret", "signing_secret"]);

const stripSecrets = (v: JsonValue): JsonValue => {
  if (Array.isArray(v)) return v.map(stripSecrets);
  if (v !== null && typeof v === "object") {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v)) if (!SECRET_KEYS.has(k)) out[k] = stripSecrets(x);
    return out;
  }
  return v;
};

const hash = (v: unknown): string =>
  createHash("sha256")
    .update(canonical(stripSecrets(toJson(v))))
    .digest("hex")
    .slice(0, 32);

/**
 * A fingerprint per live item read: `<org>|<kind's key>` → hash of what the kind
 * fingerprints (no secret part; the env var `truncated_value` is left out: it is part of a
 * secret). Every kind of the registry takes part (src/kinds/contract.ts `liveItems`), so a
 * stale saved plan is noticed whatever kind changed.
 */
export const liveFingerprints = (live: LiveState): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const org of live.orgs) {
    for (const kind of ALL_KINDS) {
      for (const { key, item } of kind.liveItems(org)) {
        out[`${org.slug}|${key}`] = hash(kind.fingerprint(item));
      }
    }
  }
  return out;
};

/** The meta of a saved plan, from what `plan` has at hand after `runPlan`. */
export const savedPlanMeta = (input: {
  /** The Waybill version (src/cli/version.ts VERSION). */
  readonly version: string;
  readonly baseUrl: string;
  /** `configDigest(desired)` (src/config/digest.ts), computed by the caller. */
  readonly configDigest: string;
  readonly live: LiveState;
  readonly forceSecrets?: readonly string[];
  /** The plan to save and the config it was made from: what its calls send is bound. */
  readonly plan: Plan;
  readonly desired: DesiredIndex;
}): SavedPlanMeta => {
  const salt = newBindingSalt();
  return {
    waybill_version: input.version,
    base_url: input.baseUrl,
    config_digest: input.configDigest,
    live_fingerprints: liveFingerprints(input.live),
    ...(input.forceSecrets && input.forceSecrets.length > 0
      ? { force_secrets: input.forceSecrets }
      : {}),
    send_bindings: { salt, values: sendBindings(input.plan, input.desired, salt) },
  };
};

/**
 * Write the saved plan, mode 0600, atomically (a temp file with that mode, renamed over the
 * target, so a wider mode of an existing file is never kept and no reader sees half a plan).
 * The plan holds no secret by construction (src/plan/types.ts); the meta holds none either.
 */
export const writeSavedPlan = async (
  path: string,
  planned: Plan,
  meta: SavedPlanMeta,
): Promise<void> => {
  if (!planned.saveable) {
    throw new UsageError("a plan made without secret values (--skip-secrets) cannot be saved");
  }
  // design.md §4 "Integration": a plan file never holds a webhook URL in full, even from
  // `plan --show-urls` (apply takes the URL from the config: src/plan/mask-urls.ts).
  const plan: Plan = { ...planned, changes: maskPlanUrls(planned.changes) };
  const saved: SavedPlan = {
    saved_plan_format: SAVED_PLAN_FORMAT,
    waybill_version: meta.waybill_version,
    base_url: meta.base_url,
    orgs: plan.orgs,
    config_digest: meta.config_digest,
    live_fingerprints: meta.live_fingerprints,
    ...(meta.force_secrets && meta.force_secrets.length > 0
      ? { force_secrets: meta.force_secrets }
      : {}),
    ...(meta.send_bindings !== undefined ? { send_bindings: meta.send_bindings } : {}),
    plan,
  };
  // JSON escapes C0 controls but writes DEL and C1 ones (U+009B: a CSI to some terminals)
  // raw; a live name holding one would reach whoever `cat`s the file. Escaped, the value
  // parses back the same.
  const text = JSON.stringify(saved, null, 2).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  await writePrivateFile(path, `${text}\n`);
};

/**
 * Decision: a saved plan file is read up to 256 MiB: a plan of the bench's largest org
 * (2,000 projects) is a few tens of MB, and a file past this is not one `plan --out` wrote.
 */
export const MAX_SAVED_PLAN_BYTES = 256 * 1024 * 1024;

/** A saved plan that cannot be used at all (not one, another format). Exit 1. */
export class SavedPlanError extends UsageError {}

export const readSavedPlan = async (path: string): Promise<SavedPlan> => {
  // Issue 21: a FIFO given as the plan file blocked forever; only a regular file is read,
  // and never past the bound.
  const read = readRegularFile(path, MAX_SAVED_PLAN_BYTES);
  if (!read.ok) {
    throw new SavedPlanError(
      read.code === "unreadable"
        ? `cannot read the plan file ${path} (${read.reason})`
        : read.code === "too_large"
          ? `cannot read the plan file ${path}: ${read.reason}, over the ${MAX_SAVED_PLAN_BYTES / 1024 / 1024} MiB limit`
          : `cannot read the plan file ${path}: ${read.reason}`,
    );
  }
  const text = read.bytes.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SavedPlanError(`${path} is not a saved plan (not JSON)`);
  }
  const p = parsed as Partial<SavedPlan>;
  if (p === null || typeof p !== "object" || p.saved_plan_format === undefined) {
    throw new SavedPlanError(
      `${path} is not a saved plan (no saved_plan_format); write one with \`waybill plan --out FILE\``,
    );
  }
  if (p.saved_plan_format !== SAVED_PLAN_FORMAT) {
    throw new SavedPlanError(
      `${path} has saved plan format ${String(p.saved_plan_format)}; this Waybill reads format ${SAVED_PLAN_FORMAT}`,
    );
  }
  if (
    typeof p.base_url !== "string" ||
    !Array.isArray(p.orgs) ||
    p.plan === undefined ||
    !Array.isArray(p.plan.changes)
  ) {
    throw new SavedPlanError(`${path} is not a complete saved plan`);
  }
  if (p.plan.scope !== undefined && !isScope(p.plan.scope)) {
    throw new SavedPlanError(
      `${path} is not a complete saved plan: its scope is not { since, addresses: [{ org, address }], total }`,
    );
  }
  // A plan saved before plans had a digest (design.md §5 "Scoped plans and the reviewed plan"): shown without one; apply checks
  // its fresh plan's digest, never the file's.
  if (typeof p.plan.digest !== "string")
    return { ...(p as SavedPlan), plan: { ...p.plan, digest: "" } };
  return p as SavedPlan;
};

/** A saved plan's `scope` (a file is data: checked before its addresses are used). */
const isScope = (v: unknown): v is PlanScope => {
  const s = v as Partial<PlanScope> | null;
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.since === "string" &&
    typeof s.total === "number" &&
    Array.isArray(s.addresses) &&
    s.addresses.every(
      (a: unknown) =>
        typeof a === "object" &&
        a !== null &&
        typeof (a as ScopedAddress).org === "string" &&
        typeof (a as ScopedAddress).address === "string",
    )
  );
};

const normUrl = (u: string): string => u.trim().replace(/\/+$/, "");

/**
 * Refuse a saved plan made for another service or org. Decision: exit 1 (UsageError), not 3:
 * the plan is not stale, it is for somewhere else, and re-planning would not fix it.
 */
export const checkTarget = (saved: SavedPlan, baseUrl: string, fresh: Plan): void => {
  if (normUrl(saved.base_url) !== normUrl(baseUrl)) {
    throw new UsageError(
      `the saved plan was made for ${saved.base_url}, not ${baseUrl}: refusing to apply it`,
    );
  }
  const a = new Set(saved.orgs.map((o) => `${o.slug}=${o.id}`));
  const b = new Set(fresh.orgs.map((o) => `${o.slug}=${o.id}`));
  const same = a.size === b.size && [...a].every((x) => b.has(x));
  if (!same) {
    throw new UsageError(
      `the saved plan was made for org(s) ${[...a].join(", ")}, but the config now plans ${[...b].join(", ") || "none"}: refusing to apply it`,
    );
  }
};

export const changeKey = (c: Change): string => `${c.org}|${c.address}`;

/**
 * What is compared: everything a change says and does (its action, reason, fields, values,
 * ids, calls), URLs masked on both sides (src/plan/mask-urls.ts). Decision: the `reason` is
 * compared too (issue 30: it is what the reviewer read; a file whose reasons were edited no
 * longer says what the change is). A live id that changed (an item deleted and re-created
 * by hand) makes the plan stale, since its calls would now address another item. The config
 * digest and live fingerprints only explain a stale plan; they do not refuse one whose
 * changes are still the same (issue 5: "if the changes differ").
 */
export const comparable = changeText;

/** Lines describing how two plans' changes differ; empty when they are equal. */
export const diffChanges = (saved: Plan, fresh: Plan): string[] => {
  const a = new Map(maskPlanUrls(saved.changes).map((c) => [changeKey(c), c]));
  const b = new Map(maskPlanUrls(fresh.changes).map((c) => [changeKey(c), c]));
  const out: string[] = [];
  for (const [k, c] of a) {
    const n = b.get(k);
    if (!n) out.push(`  - ${c.address} (${c.action}): in the saved plan, no longer needed`);
    else if (comparable(c) !== comparable(n)) {
      const what =
        c.action !== n.action
          ? `was ${c.action}, now ${n.action}`
          : c.reason !== n.reason
            ? `${c.action} differs: its reason (saved: ${JSON.stringify(c.reason)}; now: ${JSON.stringify(n.reason)})`
            : `${c.action} differs: ${describeFields(c, n)}`;
      out.push(`  ~ ${c.address}: ${what}`);
    }
  }
  for (const [k, c] of b) {
    if (!a.has(k)) out.push(`  + ${c.address} (${c.action}): not in the saved plan`);
  }
  return out;
};

const describeFields = (a: Change, b: Change): string => {
  const fa = new Map(a.fields.map((f) => [f.path, canonical(toJson(f))]));
  const fb = new Map(b.fields.map((f) => [f.path, canonical(toJson(f))]));
  const paths = new Set([...fa.keys(), ...fb.keys()]);
  const changed = [...paths].filter((p) => fa.get(p) !== fb.get(p));
  return changed.length > 0
    ? `fields ${changed.join(", ")}`
    : "ids or calls (the live item changed)";
};

/** Which fingerprinted live items changed since the plan was saved (for the stale message). */
export const diffFingerprints = (
  saved: Readonly<Record<string, string>>,
  now: Readonly<Record<string, string>>,
): string[] => {
  const out: string[] = [];
  for (const [k, v] of Object.entries(saved)) {
    if (!(k in now)) out.push(`${k} removed`);
    else if (now[k] !== v) out.push(`${k} changed`);
  }
  for (const k of Object.keys(now)) if (!(k in saved)) out.push(`${k} added`);
  return out;
};

/**
 * Issue 30: what a saved plan says about its changes that a reader takes on trust — the
 * summary line, the `--target` and `--exclude` globs — checked against the changes themselves. Lines that
 * describe each disagreement; empty when the file is consistent.
 */
export const savedPlanDisagreements = (plan: Plan): string[] => {
  const out: string[] = [];
  const counted = summarise(plan.changes);
  const stored = plan.summary as Partial<Summary> | undefined;
  const keys = ["create", "update", "replace", "delete"] as const;
  if (stored === undefined || keys.some((k) => stored[k] !== counted[k])) {
    const said =
      stored === undefined ? "no summary" : keys.map((k) => `${String(stored[k])} ${k}`).join(", ");
    out.push(
      `its summary says ${said}, but its changes are ${keys.map((k) => `${counted[k]} ${k}`).join(", ")}`,
    );
  }
  const targets = plan.targets ?? [];
  if (targets.length > 0) {
    const selected = selectTargets(plan.changes, globMatcher(targets));
    if (selected.length !== plan.changes.length) {
      out.push(
        `its --target ${targets.join(", ")} selects ${selected.length} of its ${plan.changes.length} changes`,
      );
    }
  }
  out.push(...excludeDisagreements(plan.changes, plan.excludes ?? [], targets));
  // design.md §5: a saved partial plan applies only its scope; its changes must be in it.
  if (plan.scope !== undefined) {
    const idx = scopeIndex(plan.scope.addresses);
    const kept = selectCovered(plan.changes, (c) => idx.covers(c.org, c.address));
    if (kept.length !== plan.changes.length) {
      out.push(
        `its scope (--changed-since ${plan.scope.since}) covers ${kept.length} of its ${plan.changes.length} changes`,
      );
    }
  }
  const keys2 = new Set<string>();
  for (const c of plan.changes) {
    const k = changeKey(c);
    if (keys2.has(k)) out.push(`it lists ${c.address} twice`);
    keys2.add(k);
  }
  return out;
};

/**
 * design.md §5 "Scoped plans and the reviewed plan": a change the plan's own `--exclude`
 * globs leave out (its address or a parent matches, or it needs such a change first, as
 * selectExcludes decides when planning) was added after `plan --out` wrote the file.
 */
const excludeDisagreements = (
  changes: readonly Change[],
  excludes: readonly string[],
  targets: readonly string[],
): string[] => {
  if (excludes.length === 0) return [];
  const list = excludes.join(", ");
  try {
    const kept = selectExcludes(
      changes,
      globMatcher(excludes),
      targets.length > 0 ? globMatcher(targets) : undefined,
    );
    const left = changes.length - kept.length;
    return left === 0
      ? []
      : [`its --exclude ${list} leaves out ${left} of its ${changes.length} changes`];
  } catch (err) {
    // A targeted change that needs an excluded one: the planner refuses such a plan.
    if (err instanceof PlanError)
      return [`its --exclude ${list} and --target disagree: ${err.message}`];
    throw err;
  }
};

/**
 * Refuse (exit 1) a saved plan whose summary or targets disagree with its changes: it was
 * edited after `plan --out` wrote it, and what a reviewer read is not what would run.
 */
export const checkSavedPlan = (saved: SavedPlan): void => {
  const wrong = savedPlanDisagreements(saved.plan);
  if (wrong.length === 0) return;
  throw new SavedPlanError(
    `the saved plan disagrees with itself, so it was not written by \`waybill plan --out\` as it is: ${wrong.join("; ")}; refusing to apply it`,
  );
};

const isBindings = (b: unknown): b is SendBindings => {
  if (b === null || typeof b !== "object") return false;
  const { salt, values } = b as Partial<SendBindings>;
  return (
    typeof salt === "string" &&
    /^[0-9a-f]{32}$/.test(salt) &&
    values !== null &&
    typeof values === "object" &&
    Object.values(values).every((h) => typeof h === "string")
  );
};

/**
 * Issue 43: refuse (exit 3) a saved plan whose calls would send a credential URL other than
 * the one it was made with (the config's URL changed since, even to one with the same
 * masked form). The message names the address and field, never a value or a hash.
 * Decision: a saved plan without bindings (written before them, or with them cut out) is
 * refused the same way when its re-plan sends a credential URL: nothing says which URL its
 * reviewers saw.
 */
export const checkBindings = (saved: SavedPlan, fresh: Plan, desired: DesiredIndex): void => {
  const b: unknown = saved.send_bindings;
  const bindings: SendBindings = isBindings(b) ? b : { salt: "0".repeat(32), values: {} };
  const broken = brokenBindings(bindings, fresh, desired);
  if (broken.length === 0) return;
  const what = broken.map((k) => {
    const [, address, field] = k.split("|");
    return `  ~ ${address ?? k}: the ${field ?? "url"} the config now holds is not the one the plan was made with`;
  });
  throw new StalePlanError(
    `the saved plan is stale: ${broken.length === 1 ? "a credential URL" : `${broken.length} credential URLs`} it would send changed in the config since it was saved (a URL is compared in full, not by its masked form); run \`waybill plan --out\` again and review it\n${what.join("\n")}`,
  );
};

/**
 * Throw StalePlanError (exit 3) when the fresh plan's changes differ from the saved ones,
 * after refusing (exit 1) a saved plan that disagrees with itself (`checkSavedPlan`); then
 * (issue 43) when a credential URL it sends is not the one the saved plan bound.
 */
export const checkStale = (
  saved: SavedPlan,
  fresh: Plan,
  fingerprints: Record<string, string>,
  desired: DesiredIndex,
): void => {
  checkSavedPlan(saved);
  const diff = diffChanges(saved.plan, fresh);
  if (diff.length === 0) {
    checkBindings(saved, fresh, desired);
    return;
  }
  const live = diffFingerprints(saved.live_fingerprints ?? {}, fingerprints);
  const liveText =
    live.length === 0
      ? ""
      : `\nLive items that changed since the plan was saved:\n${live
          .slice(0, 20)
          .map((l) => `  ${l}`)
          .join("\n")}${live.length > 20 ? `\n  ... and ${live.length - 20} more` : ""}`;
  throw new StalePlanError(
    `the saved plan is stale: a fresh plan differs in ${diff.length} change${diff.length === 1 ? "" : "s"}; run \`waybill plan --out\` again and review it\n${diff.join("\n")}${liveText}`,
  );
};
