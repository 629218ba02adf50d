/**
 * The planner: desired × live → Plan. PURE: no I/O, no clock, no environment
 * (conventions.md §1). Rules from design.md §1: Identity, Ownership, Secrets, Plans.
 * Inputs are never mutated.
 */

import { desiredRestrictionValue } from "../kinds/context-restriction.js";
import type { ApiCall, Comparison, KindEnv, ResourceKind } from "../kinds/contract.js";
import { KINDS } from "../kinds/registry.js";
import { maskLike } from "../kinds/values.js";
import type { LiveWebhook } from "../kinds/webhook.js";
import {
  addr,
  ancestorsOf,
  compileAddressGlob,
  formatAddress,
  parseAddress,
  restrictionKey,
} from "../model/address.js";
import {
  type DesiredConfig,
  type DesiredContext,
  type DesiredOrg,
  type DesiredPipeline,
  type DesiredProject,
  MAX_WEBHOOKS_PER_PROJECT,
} from "../model/desired.js";
import { PlanError } from "../model/errors.js";
import type { LiveOrg, LivePipeline, LiveProject, LiveState, LiveTrigger } from "../model/live.js";
import { resolvedSecretValues } from "../model/secret.js";
import { finishPlan } from "./finish.js";
import { ambiguityMessage, keyedDiff } from "./keyed-diff.js";
import { maskLiveSecrets } from "./mask-live.js";
import type { Change, ParamValue, Plan, PlanOptions } from "./types.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Compiled address globs: a glob selects an address when it matches it or an ancestor.
 * Decision: `--force-secrets GLOB` and `ignore` use the same rule as `--target`, so
 * `context["prod"]` covers that context's env vars.
 */
export const globMatcher = (globs: readonly string[]): ((address: string) => boolean) => {
  const res = globs.map(compileAddressGlob);
  if (res.length === 0) return () => false;
  return (address) => {
    if (res.some((r) => r.test(address))) return true;
    return ancestorsOf(address).some((a) => res.some((r) => r.test(a)));
  };
};

/** What the whole run accumulates (local to one planChanges call). */
interface Acc {
  readonly changes: Change[];
  readonly unverified: string[];
  readonly warnings: string[];
  skipped: number;
  unresolvedCreates: number;
  readonly collections: Map<string, { org: string; collection: string; live_count: number }>;
}

interface OrgCtx {
  readonly slug: string;
  readonly env: Omit<KindEnv, "forceSecrets">;
  readonly ignored: (address: string) => boolean;
  readonly forced: (address: string) => boolean;
  readonly skipSecrets: boolean;
  readonly acc: Acc;
}

/** One collection to diff: a kind, its parent and its items. */
interface CollectionSpec<D, L> {
  readonly kind: ResourceKind<D, L>;
  /** Collection name for guards (`contexts`, `context["x"].env`). */
  readonly collection: string;
  /** The item address from its key. */
  readonly address: (key: string) => string;
  /** The YAML key of a desired item (its address key). */
  readonly desiredAddressKey: (d: D) => string;
  /** undefined: the collection is not managed. */
  readonly desired: readonly D[] | undefined;
  /** undefined: not read (an error when managed, unless the parent is new). */
  readonly live: readonly L[] | undefined;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Address of a parent created or replaced by this plan. */
  readonly pendingParent?: string;
  /** Extra params per item (env var `name`). */
  readonly itemParams?: (key: string) => Readonly<Record<string, ParamValue>>;
  /** Overrides the kind's replace order (webhooks at the project maximum). */
  readonly replaceOrder?: "create_before_delete" | "delete_before_create";
  /** Matched items must be replaced for this reason (the parent is replaced). */
  readonly forcedReplace?: string;
  /** Reason for deleting an unmatched live item. */
  readonly deleteReason?: string;
  /** More to say on a delete (a context: the secrets it destroys), appended to its reason. */
  readonly deleteExtra?: (l: L) => { destroys_secrets: number | null; note: string };
  /**
   * False when the config does not own the collection (live items it does not list are
   * kept): several live items on one key are then an error for that item, never a guess.
   * Every collection planned today is owned (a present collection key is authoritative,
   * design.md §1 "Ownership").
   */
  readonly owned?: boolean;
  /**
   * How much of a live item would be lost by removing it (a context's env vars, a
   * pipeline's triggers): among same-key live items that match the config equally well,
   * the one holding more is kept.
   */
  readonly holds?: (l: L) => number;
}

interface Matched<D, L> {
  readonly desired: D;
  readonly live: L | undefined;
  readonly address: string;
  readonly action: "create" | "update" | "replace" | "none";
}

const DELETE_REASON = "not in the config, and the config manages this collection";

/**
 * Why a same-key live item is removed (design.md §1 "Identity"). Decision: the kept item is
 * the one whose fields equal the config, else the one needing the fewest changes (a replace
 * counts as more than any update), else the one holding more children (env vars,
 * triggers), else the lowest id. So the leftover of an interrupted replace (the new item
 * matches the config, the old one does not) converges to the new one, and a webhook whose
 * signing secret Waybill set is kept over one without a secret (a missing secret is a
 * field change, an unverifiable one is not).
 */
const surplusReason = (
  count: number,
  keptId: string | undefined,
  why: "equal" | "closer" | "tie",
): string =>
  `surplus: ${count} live items share this key; keeping ${keptId ?? "the best match"} (${
    why === "equal"
      ? "its fields equal the config"
      : why === "closer"
        ? "it needs fewer changes to match the config"
        : "it matches the config as well as this one, and has the lowest id"
  }) and removing this one, a leftover of an interrupted replace, a re-sent create or a concurrent run`;

const diffCollection = <D, L>(
  ctx: OrgCtx,
  spec: CollectionSpec<D, L>,
): {
  matched: Matched<D, L>[];
  deleted: { live: L; address: string }[];
  created: Change[];
} => {
  const { kind, acc } = { kind: spec.kind, acc: ctx.acc };
  if (spec.desired === undefined) return { matched: [], deleted: [], created: [] };
  if (spec.live === undefined && spec.pendingParent === undefined) {
    throw new PlanError(
      `${spec.collection}: the live collection was not read, so it cannot be planned`,
    );
  }
  // An ignored desired item still takes part in matching, so the live item it names is not
  // mistaken for an undeclared one (a vcs trigger's live address is not its YAML key);
  // both are then left out of the plan.
  const desired = spec.desired;
  const ignoredDesired = new Set<D>();
  // Decision: an item both declared and ignored is not planned (ignore wins) and the plan
  // warns, so a broad ignore glob cannot silently hide a config mistake.
  for (const d of desired) {
    const a = spec.address(spec.desiredAddressKey(d));
    if (!ctx.ignored(a)) continue;
    ignoredDesired.add(d);
    acc.warnings.push(`${a} is declared but excluded by \`ignore\`: it is not planned`);
  }
  const liveAll = spec.live ?? [];
  const live = liveAll.filter((l) => !ctx.ignored(spec.address(kind.liveAddressKey(l))));
  const guardKey = `${ctx.slug}\u0000${spec.collection}`;
  acc.collections.set(guardKey, {
    org: ctx.slug,
    collection: spec.collection,
    live_count: live.length,
  });

  const envOf = (d: D): KindEnv => ({
    ...ctx.env,
    forceSecrets: ctx.forced(spec.address(spec.desiredAddressKey(d))),
  });
  const diff = keyedDiff({
    desired,
    live,
    desiredKey: (d) => kind.desiredKey(d, ctx.env),
    liveKey: (l) => kind.liveKey(l),
    liveId: (l) => kind.liveId(l),
    pinnedId: (d) => kind.pinnedId(d),
    ...(kind.tiebreak ? { tiebreak: (d: D, l: L) => kind.tiebreak?.(d, l) ?? false } : {}),
    describe: (d) => spec.address(spec.desiredAddressKey(d)),
    owned: spec.owned ?? true,
    rank: (d, l) => {
      const cmp = kind.compare(d, l, envOf(d));
      return [cmp.replace_reasons.length > 0 ? 1 : 0, cmp.fields.length, -(spec.holds?.(l) ?? 0)];
    },
  });
  for (const a of diff.ambiguous) {
    // Unreachable while every planned collection is owned; kept so a collection that is
    // not owned can never guess.
    throw new PlanError(
      ambiguityMessage(spec.address(spec.desiredAddressKey(a.desired)), a.candidates, (l) =>
        kind.liveId(l),
      ),
    );
  }

  const base = (address: string, key: string) => ({
    address,
    resource_type: kind.type,
    org: ctx.slug,
    collection: spec.collection,
    depends_on: spec.pendingParent === undefined ? [] : [spec.pendingParent],
    params: { ...spec.params, ...(spec.itemParams?.(key) ?? {}) },
  });

  const matched: Matched<D, L>[] = [];
  const created: Change[] = [];
  for (const { desired: d, live: l } of diff.pairs) {
    if (ignoredDesired.has(d)) continue;
    const key = spec.desiredAddressKey(d);
    const address = spec.address(key);
    const env: KindEnv = { ...ctx.env, forceSecrets: ctx.forced(address) };
    const unresolved = kind.unresolvedSecrets(d);
    // Decision: an unresolved secret outside `--skip-secrets` is an error, never a guess
    // (the loader normally reports it first, listing every missing name).
    if (unresolved.length > 0 && !ctx.skipSecrets) {
      throw new PlanError(
        `${address}: ${unresolved.join(", ")} has no value (only \`plan --skip-secrets\` plans without secrets)`,
      );
    }
    if (l === undefined) {
      if (unresolved.length > 0) acc.unresolvedCreates += 1;
      const change: Change = {
        ...base(address, key),
        action: "create",
        reason: "not in the live state",
        before: null,
        after: kind.desiredView(d, env),
        fields: [],
        calls: kind.createCalls(d),
        ...(unresolved.length > 0 ? { unresolved_secrets: unresolved } : {}),
      };
      acc.changes.push(change);
      created.push(change);
      matched.push({ desired: d, live: undefined, address, action: "create" });
      continue;
    }
    const cmp: Comparison = kind.compare(d, l, env);
    const id = kind.liveId(l);
    const notes = cmp.notes ?? [];
    const noted = notes.length > 0 ? { notes } : {};
    const withNotes = (reason: string): string =>
      notes.length > 0 ? `${reason}; ${notes.join("; ")}` : reason;
    const params = { ...base(address, key).params, ...(id === undefined ? {} : { id }) };
    const reasons = [...cmp.replace_reasons];
    if (spec.forcedReplace !== undefined) reasons.unshift(spec.forcedReplace);
    // A replaced item is created again with every secret, so none of them stays unverified.
    if (reasons.length === 0) {
      for (const path of cmp.unverified) acc.unverified.push(`${address}#${path}`);
    }
    acc.skipped += cmp.skipped.length;
    if (reasons.length > 0) {
      const order =
        spec.replaceOrder ??
        (kind.replaceOrder === "never" ? "delete_before_create" : kind.replaceOrder);
      const del = kind.deleteCalls();
      const create = kind.createCalls(d);
      const calls: ApiCall[] =
        order === "create_before_delete" ? [...create, ...del] : [...del, ...create];
      if (unresolved.length > 0) acc.unresolvedCreates += 1;
      acc.changes.push({
        ...base(address, key),
        params,
        action: "replace",
        reason: withNotes(reasons.join("; ")),
        before: maskLike(kind.liveView(l), kind.desiredView(d, env)),
        after: kind.desiredView(d, env),
        fields: cmp.fields,
        calls,
        replace_order: order,
        ...noted,
        ...(id === undefined ? {} : { id }),
        ...(unresolved.length > 0 ? { unresolved_secrets: unresolved } : {}),
      });
      matched.push({ desired: d, live: l, address, action: "replace" });
      continue;
    }
    if (cmp.fields.length > 0) {
      acc.changes.push({
        ...base(address, key),
        params,
        action: "update",
        reason: withNotes(
          `${cmp.fields.length === 1 ? "1 field differs" : `${cmp.fields.length} fields differ`}: ${cmp.fields.map((f) => f.path).join(", ")}`,
        ),
        before: maskLike(kind.liveView(l), kind.desiredView(d, env)),
        after: kind.desiredView(d, env),
        fields: cmp.fields,
        calls: kind.updateCalls(cmp.fields),
        ...noted,
        ...(id === undefined ? {} : { id }),
      });
      matched.push({ desired: d, live: l, address, action: "update" });
      continue;
    }
    matched.push({ desired: d, live: l, address, action: "none" });
  }

  const deleted: { live: L; address: string }[] = [];
  const gone: { live: L; reason: string; like?: D }[] = [
    ...diff.unmatched.map((l) => ({ live: l, reason: spec.deleteReason ?? DELETE_REASON })),
    ...diff.surplus.map((sp) => {
      const count = diff.surplus.filter((o) => o.kept === sp.kept).length + 1;
      const keptCmp = kind.compare(sp.desired, sp.kept, envOf(sp.desired));
      const equal = keptCmp.fields.length === 0 && keptCmp.replace_reasons.length === 0;
      const why = sp.tie ? "tie" : equal ? "equal" : "closer";
      // Shown like the declared item it duplicates: a url that is a secret in the config
      // is masked on its surplus too.
      return {
        live: sp.live,
        reason: surplusReason(count, kind.liveId(sp.kept), why),
        like: sp.desired,
      };
    }),
  ];
  const seen = new Map<string, number>();
  for (const { live: l } of gone)
    seen.set(kind.liveAddressKey(l), (seen.get(kind.liveAddressKey(l)) ?? 0) + 1);
  const desiredKeys = new Set(desired.map((d) => spec.desiredAddressKey(d)));
  for (const { live: l, reason, like } of gone) {
    let key = kind.liveAddressKey(l);
    const id = kind.liveId(l);
    // Decision: a deleted live item whose key another item of the collection also has (two
    // undeclared duplicates, a surplus, or the one an `id:` pin left out) gets `#<id>` in
    // its address key, so every change has its own address.
    if (((seen.get(key) ?? 0) > 1 || desiredKeys.has(key)) && id !== undefined) {
      key = `${key}#${id}`;
    }
    const address = spec.address(key);
    const extra = spec.deleteExtra?.(l);
    acc.changes.push({
      ...base(address, key),
      params: { ...base(address, key).params, ...(id === undefined ? {} : { id }) },
      action: "delete",
      reason: extra === undefined ? reason : `${reason}; ${extra.note}`,
      ...(extra === undefined ? {} : { destroys_secrets: extra.destroys_secrets }),
      before:
        like === undefined
          ? kind.liveView(l)
          : maskLike(kind.liveView(l), kind.desiredView(like, envOf(like))),
      after: null,
      fields: [],
      calls: kind.deleteCalls(),
      ...(id === undefined ? {} : { id }),
    });
    deleted.push({ live: l, address });
  }
  return { matched, deleted, created };
};

/**
 * Merge several `DesiredOrg` entries with one slug (a folder of files sharing an org).
 * Decision: their collections are unioned (the loader has already refused an address
 * declared twice); a collection present in any of the files is managed.
 */
const mergeOrgs = (orgs: readonly DesiredOrg[]): DesiredOrg[] => {
  const bySlug = new Map<string, DesiredOrg>();
  for (const o of orgs) {
    const prev = bySlug.get(o.slug);
    if (prev === undefined) {
      bySlug.set(o.slug, o);
      continue;
    }
    const settings =
      prev.settings === undefined
        ? o.settings
        : o.settings === undefined
          ? prev.settings
          : { ...prev.settings, ...o.settings };
    const contexts =
      prev.contexts === undefined
        ? o.contexts
        : o.contexts === undefined
          ? prev.contexts
          : new Map([...prev.contexts, ...o.contexts]);
    bySlug.set(o.slug, {
      ...prev,
      ...(settings === undefined ? {} : { settings }),
      ...(contexts === undefined ? {} : { contexts }),
      projects: new Map([...prev.projects, ...o.projects]),
      ignore: [...prev.ignore, ...o.ignore],
    });
  }
  return [...bySlug.values()];
};

const hasGroupRestriction = (c: DesiredContext): boolean =>
  (c.restrictions ?? []).some((r) => r.type === "group");

const planContexts = (ctx: OrgCtx, org: DesiredOrg, live: LiveOrg): void => {
  if (org.contexts === undefined) return;
  const res = diffCollection(ctx, {
    kind: KINDS.context,
    collection: "contexts",
    address: (k) => addr.context(k),
    desiredAddressKey: (c) => c.name,
    desired: [...org.contexts.values()],
    live: live.contexts,
    params: { org_id: live.id },
    // A context delete destroys its env vars: say how many (design.md §1 "Ownership").
    deleteExtra: (l) => {
      const n = l.env?.length ?? null;
      return {
        destroys_secrets: n,
        note: `destroys ${n === null ? "an unknown number of" : n} secret${n === 1 ? "" : "s"} (its env vars)`,
      };
    },
    holds: (l) => (l.env?.length ?? 0) + (l.restrictions?.length ?? 0),
  });
  // spec: api-v3.md Org settings: `is_context_group_restriction_required`. With it on, a
  // context needs a group restriction to be usable; the value declared in this config wins
  // over the live one (it is applied in the same run).
  const groupRequired =
    org.settings?.is_context_group_restriction_required ??
    live.settings?.is_context_group_restriction_required ??
    false;
  for (const m of res.matched) {
    const name = m.desired.name;
    const pending = m.action === "create" ? m.address : undefined;
    if (groupRequired && m.action === "create" && !hasGroupRestriction(m.desired)) {
      // Decision: refuse the plan (exit 1) rather than create a context nobody can use: the
      // restriction the service adds on create (all-members) is removed when the config
      // manages restrictions, and a config that leaves them out should say so on purpose.
      throw new PlanError(
        `${m.address}: the org setting is_context_group_restriction_required is true, so a new context needs a group restriction to be usable; add one to its restrictions (e.g. - group: all-members, or a group id)`,
      );
    }
    const contextId: ParamValue = m.live ? m.live.id : { pending: m.address };
    const params = { org_id: live.id, context_id: contextId };
    diffCollection(ctx, {
      kind: KINDS.context_env_var,
      collection: `${m.address}.env`,
      address: (k) => addr.contextEnvVar(name, k),
      desiredAddressKey: (e) => e.name,
      desired: m.desired.env === undefined ? undefined : [...m.desired.env.values()],
      live: m.live ? m.live.env : [],
      params,
      ...(pending === undefined ? {} : { pendingParent: pending }),
      itemParams: (k) => ({ name: k }),
    });
    const restrictions = diffCollection(ctx, {
      kind: KINDS.context_restriction,
      collection: `${m.address}.restrictions`,
      address: (k) =>
        formatAddress([
          { name: "context", key: name },
          { name: "restriction", key: k },
        ]),
      desiredAddressKey: (r) => restrictionKey(r.type, desiredRestrictionValue(r)),
      desired: m.desired.restrictions,
      live: m.live ? m.live.restrictions : [],
      params,
      ...(pending === undefined ? {} : { pendingParent: pending }),
    });
    for (const c of restrictions.created) {
      if (c.after?.match_pattern === null) {
        throw new PlanError(
          `${c.address}: the project ${String(c.after.value)} is absent or not visible, so the restriction cannot be created`,
        );
      }
    }
  }
};

const planPipelines = (
  ctx: OrgCtx,
  slug: string,
  dp: DesiredProject,
  lp: LiveProject,
  projectParams: Readonly<Record<string, ParamValue>>,
): void => {
  if (dp.pipelines === undefined) return;
  if (lp.pipelines === undefined) {
    throw new PlanError(
      `${addr.project(slug)}: pipelines were not read, so they cannot be planned`,
    );
  }
  const synthetic = lp.pipelines.filter((p) => p.synthetic);
  for (const d of dp.pipelines.values()) {
    const s = synthetic.find((p) => p.name === d.name || p.id === d.id);
    if (s) {
      throw new PlanError(
        `${addr.pipeline(slug, d.name)}: this is the synthetic OAuth pipeline (id ${s.id}), which the service derives from the project and cannot be created, updated or deleted; remove it from the config`,
      );
    }
  }
  const livePipelines = lp.pipelines.filter((p) => !p.synthetic);
  const liveTriggers = (lp.triggers ?? []).filter((t) => !t.synthetic);
  const syntheticTriggers = (lp.triggers ?? []).filter((t) => t.synthetic);
  const res = diffCollection<DesiredPipeline, LivePipeline>(ctx, {
    kind: KINDS.pipeline,
    collection: `${addr.project(slug)}.pipelines`,
    address: (k) => addr.pipeline(slug, k),
    desiredAddressKey: (p) => p.name,
    desired: [...dp.pipelines.values()],
    live: livePipelines,
    params: projectParams,
    holds: (l) => liveTriggers.filter((t) => t.pipeline_id === l.id).length,
  });
  const triggersOf = (pipelineId: string): LiveTrigger[] =>
    liveTriggers.filter((t) => t.pipeline_id === pipelineId);

  for (const m of res.matched) {
    const pname = m.desired.name;
    const collection = `${m.address}.triggers`;
    const address = (k: string) => addr.trigger(slug, pname, k);
    const replaced = m.action === "replace";
    const created = m.action === "create";
    const pipelineId: ParamValue = m.live && !replaced ? m.live.id : { pending: m.address };
    const params = { ...projectParams, pipeline_id: pipelineId };
    const desiredTriggers =
      m.desired.triggers === undefined ? undefined : [...m.desired.triggers.values()];
    if (desiredTriggers && m.live) {
      for (const d of desiredTriggers) {
        const key = KINDS.trigger.desiredKey(d, ctx.env);
        const s = syntheticTriggers.find(
          (t) =>
            (t.pipeline_id === m.live?.id &&
              KINDS.trigger.liveKey(t) === key &&
              d.event.type !== "vcs") ||
            t.id === d.id,
        );
        if (s) {
          throw new PlanError(
            `${address(d.key)}: this is the synthetic OAuth trigger (id ${s.id}), which cannot be created, updated or deleted; remove it from the config`,
          );
        }
      }
    }
    const live = m.live ? triggersOf(m.live.id) : [];
    if (replaced && desiredTriggers === undefined) {
      // Decision: triggers are not managed here, but they cannot outlive their pipeline:
      // they are deleted first (and not re-created), and the plan warns.
      ctx.acc.warnings.push(
        `${m.address} is replaced: its ${live.length} live trigger(s) are deleted and not re-created, because the config does not manage its triggers`,
      );
      diffCollection(ctx, {
        kind: KINDS.trigger,
        collection,
        address,
        desiredAddressKey: (t) => t.key,
        desired: [],
        live,
        params,
        deleteReason:
          "forced by the pipeline's replacement (its triggers are not managed, so not re-created)",
      });
      continue;
    }
    diffCollection(ctx, {
      kind: KINDS.trigger,
      collection,
      address,
      desiredAddressKey: (t) => t.key,
      desired: desiredTriggers,
      // Triggers that were not read cannot be planned (never create over what may exist).
      live: created ? [] : lp.triggers === undefined ? undefined : live,
      params,
      ...(created || replaced ? { pendingParent: m.address } : {}),
      ...(replaced ? { forcedReplace: "forced by the pipeline's replacement" } : {}),
    });
  }
  // Decision: the spec does not say whether deleting a pipeline deletes its triggers, so a
  // pipeline delete is preceded by explicit deletes of its triggers (children before
  // parents, design.md §1 "Apply"): the plan is exact whichever the service does.
  for (const del of res.deleted) {
    const live = triggersOf(del.live.id);
    if (live.length === 0) continue;
    const pname = del.live.name;
    // Under the pipeline's own address (which may carry `#id`), so it stays their ancestor.
    const pipelineSegments = parseAddress(del.address) ?? [];
    diffCollection(ctx, {
      kind: KINDS.trigger,
      collection: `${del.address}.triggers`,
      address: (k) => formatAddress([...pipelineSegments, { name: "trigger", key: k }]),
      desiredAddressKey: (t) => t.key,
      desired: [],
      live,
      params: { ...projectParams, pipeline_id: del.live.id },
      deleteReason: `its pipeline ${JSON.stringify(pname)} is deleted`,
    });
  }
};

const planProject = (ctx: OrgCtx, slug: string, dp: DesiredProject, liveOrg: LiveOrg): void => {
  const projectAddress = addr.project(slug);
  if (ctx.ignored(projectAddress)) {
    ctx.acc.warnings.push(
      `${projectAddress} is declared but excluded by \`ignore\`: it is not planned`,
    );
    return;
  }
  const lp = liveOrg.projects.get(slug);
  if (lp === undefined) {
    throw new PlanError(`${projectAddress}: the project was not read, so it cannot be planned`);
  }
  if (lp.status === "not_visible") {
    // design.md §1: never plan a create over something that may exist.
    throw new PlanError(`${projectAddress}: absent or not visible (${lp.reason})`);
  }
  const params = { org_id: liveOrg.id, project_id: lp.id };
  if (dp.settings !== undefined) {
    diffCollection(ctx, {
      kind: KINDS.project_settings,
      collection: `${projectAddress}.settings`,
      address: () => addr.projectSettings(slug),
      desiredAddressKey: () => "settings",
      desired: [dp.settings],
      live: lp.settings === undefined ? undefined : [lp.settings],
      params,
    });
  }
  diffCollection(ctx, {
    kind: KINDS.project_env_var,
    collection: `${projectAddress}.env`,
    address: (k) => addr.projectEnvVar(slug, k),
    desiredAddressKey: (e) => e.name,
    desired: dp.env === undefined ? undefined : [...dp.env.values()],
    live: lp.env,
    params,
    itemParams: (k) => ({ name: k }),
  });
  if (dp.webhooks !== undefined) {
    const liveHooks: readonly LiveWebhook[] | undefined = lp.webhooks;
    const creates = [...dp.webhooks.values()].filter(
      (w) => !(liveHooks ?? []).some((l) => l.name === w.name || l.id === w.id),
    ).length;
    // Decision: at the project's webhook maximum (spec: Limits, 25) a create-first replace
    // would be refused, so such replaces delete first.
    const atMax = (liveHooks?.length ?? 0) + creates >= MAX_WEBHOOKS_PER_PROJECT;
    diffCollection(ctx, {
      kind: KINDS.webhook,
      collection: `${projectAddress}.webhooks`,
      address: (k) => addr.webhook(slug, k),
      desiredAddressKey: (w) => w.name,
      desired: [...dp.webhooks.values()],
      live: liveHooks,
      params,
      ...(atMax ? { replaceOrder: "delete_before_create" as const } : {}),
    });
  }
  planPipelines(ctx, slug, dp, lp, params);
};

const planOrg = (ctx: OrgCtx, org: DesiredOrg, live: LiveOrg): void => {
  if (org.settings !== undefined) {
    diffCollection(ctx, {
      kind: KINDS.org_settings,
      collection: "org_settings",
      address: () => addr.orgSettings(),
      desiredAddressKey: () => "settings",
      desired: [org.settings],
      live: live.settings === undefined ? undefined : [live.settings],
      params: { org_id: live.id },
    });
  }
  planContexts(ctx, org, live);
  for (const [slug, dp] of org.projects) planProject(ctx, slug, dp, live);
};

/**
 * Plan the changes that make `live` look like `desired`.
 * Throws PlanError for what cannot be planned safely: an ambiguous identity, a declared
 * parent that is absent or not visible, a synthetic item in the config, a collection that
 * was not read, a missing secret without `skipSecrets`.
 */
export const planChanges = (
  desired: DesiredConfig,
  live: LiveState,
  options: PlanOptions = {},
): Plan => {
  const acc: Acc = {
    changes: [],
    unverified: [],
    warnings: [],
    skipped: 0,
    unresolvedCreates: 0,
    collections: new Map(),
  };
  const forced = globMatcher(options.forceSecrets ?? []);
  const orgs: { slug: string; id: string }[] = [];
  for (const org of mergeOrgs(desired.orgs)) {
    const liveOrg = live.orgs.find((o) => o.slug === org.slug);
    if (liveOrg === undefined) {
      throw new PlanError(`org ${org.slug}: absent or not visible (it was not read)`);
    }
    orgs.push({ slug: org.slug, id: liveOrg.id });
    const found = new Map<string, string>();
    for (const [s, p] of liveOrg.projects) if (p.status === "found") found.set(s, p.id);
    // Decision: a restriction may name its project by id (design.md config example: "project
    // slug (or id)"): a known project id, or any UUID, is taken as the id itself.
    const knownIds = new Set([...found.values(), ...(liveOrg.projectIds?.values() ?? [])]);
    const ctx: OrgCtx = {
      slug: org.slug,
      env: {
        orgId: liveOrg.id,
        projectId: (s) =>
          found.get(s) ??
          liveOrg.projectIds?.get(s) ??
          (knownIds.has(s) || UUID.test(s) ? s : undefined),
      },
      ignored: globMatcher(org.ignore),
      forced,
      skipSecrets: options.skipSecrets ?? false,
      acc,
    };
    planOrg(ctx, org, liveOrg);
  }
  const targets = options.targets && options.targets.length > 0 ? options.targets : undefined;
  return finishPlan({
    orgs,
    changes: maskLiveSecrets(acc.changes, resolvedSecretValues(desired)),
    unverified: acc.unverified,
    skipped: acc.skipped,
    unresolvedCreates: acc.unresolvedCreates,
    warnings: acc.warnings,
    collections: [...acc.collections.values()],
    // No `--target` and an empty list mean the same: everything is planned.
    targets: targets,
    matchTarget: targets === undefined ? undefined : globMatcher(targets),
    skipSecrets: options.skipSecrets ?? false,
  });
};
