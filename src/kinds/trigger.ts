/**
 * Triggers (spec: api-v3.md "Trigger", Triggers). `POST /triggers/:id/update` takes
 * is_disabled, config.ref, checkout.ref, event.webhook, event.schedule, event.filter and
 * parameters ("replaces wholesale"); event.type and event.vcs force replacement. Default:
 * is_disabled false.
 *
 * Identity (design.md §1 "Identity"): a schedule or webhook trigger by its name
 * (`schedule.name` / `webhook.name`), a vcs trigger by its event repo and, where several
 * live vcs triggers of one pipeline share that repo, by its filter too (`tiebreak`).
 * The webhook secret is returned only once, on create: when the config sets one it is
 * always "unverified" unless `--force-secrets` selects it.
 */

import { LiveReadError } from "../core/errors.js";
import { RESERVED_KEYS, reservedKeyReason } from "../core/reserved-keys.js";
import { refId, type TriggerAttributes, type V3Resource } from "../core/wire.js";
import { addr } from "../model/address.js";
import { type DesiredTrigger, FILTER_PRESETS, type VcsRepo } from "../model/desired.js";
import type { LiveTrigger } from "../model/live.js";
import { call } from "./calls.js";
import {
  addFields,
  addSecret,
  compareFields,
  compareSecret,
  type FieldRule,
  newComparison,
} from "./compare.js";
import {
  byString,
  type ConfigContext,
  type ConfigEntry,
  type DocMap,
  type DocValue,
  escapeText,
  groupBy,
  hasVcs,
  idsOf,
  isSkip,
  projectShortName,
  type Skip,
  scopeName,
  vcsDoc,
} from "./config-doc.js";
import { defineKind } from "./grouped.js";
import { foundProjects, pageOptions, requireId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { deepEqual, type JsonObject, SENSITIVE, toJson, toJsonObject } from "./values.js";
import { buildVcs, lowerUuid, type RawVcsRepo, VCS_REPO_KEYS } from "./vcs.js";

const RULES: readonly FieldRule[] = [
  { path: "is_disabled", mode: "update", default: false },
  { path: "config.ref", mode: "update" },
  { path: "checkout.ref", mode: "update" },
  { path: "event.type", mode: "replace" },
  { path: "event.vcs", mode: "replace" },
  { path: "event.webhook.name", mode: "update" },
  { path: "event.webhook.source", mode: "update" },
  { path: "event.schedule.name", mode: "update" },
  { path: "event.schedule.cron_expression", mode: "update" },
  { path: "event.schedule.attribution_actor", mode: "update" },
  { path: "event.filter", mode: "update" },
  { path: "parameters", mode: "update" },
];

/** The body member of `POST /triggers/:id/update` that carries a changed field. */
export const triggerUpdateField = (path: string): string => {
  for (const top of ["event.webhook", "event.schedule", "event.filter"]) {
    if (path === top || path.startsWith(`${top}.`)) return top;
  }
  return path;
};

const repoKey = (repo: VcsRepo | undefined): string =>
  repo === undefined ? "vcs:" : `vcs:${repo.provider}/${repo.repo_id}`;

const nameKey = (name: string | undefined): string => `name:${name ?? ""}`;

const desiredView = (d: DesiredTrigger): JsonObject => {
  const event: Record<string, unknown> = { type: d.event.type, vcs: d.event.vcs };
  if (d.event.type === "webhook" || d.event.webhook !== undefined) {
    event.webhook = {
      name: d.key,
      source: d.event.webhook?.source,
      secret: d.event.webhook?.secret === undefined ? undefined : SENSITIVE,
    };
  }
  if (d.event.type === "schedule" || d.event.schedule !== undefined) {
    event.schedule = { name: d.key, ...d.event.schedule };
  }
  event.filter = exactFilter(d.event.filter);
  return toJsonObject({
    is_disabled: d.is_disabled ?? false,
    config: d.config,
    checkout: d.checkout,
    event,
    parameters: d.parameters,
  });
};

/**
 * A filter as the update must send it to leave exactly this filter behind.
 * spec: api-v3.md Triggers: `POST /triggers/:id/update` takes `event? {..., filter?}` and,
 * as every update route of the spec ("only present fields change"), changes only what it is
 * sent: a service that merges nested objects keeps live `rules` the body leaves out. So a
 * declared filter always carries its `rules`, an empty list when the YAML has none, and the
 * live filter reads the same way (no `rules` is `[]`), so the two compare equal.
 */
const exactFilter = (
  filter: { readonly preset?: string; readonly rules?: readonly unknown[] } | undefined,
): Record<string, unknown> | undefined =>
  filter === undefined ? undefined : { ...filter, rules: filter.rules ?? [] };

/**
 * Parameters of a schedule trigger as compared. spec: api-v3.md Triggers: `parameters`
 * "replaces wholesale (omitted keeps, empty object clears)". A YAML without `parameters`
 * leaves the live ones alone (compareFields skips an absent desired field); `parameters: {}`
 * clears them, and a schedule trigger with none reads as `{}` so the next plan is empty.
 */
const liveParameters = (l: LiveTrigger): unknown =>
  l.event.type === "schedule" ? (l.parameters ?? {}) : l.parameters;

const liveView = (l: LiveTrigger): JsonObject => {
  // The webhook secret is only in the create response; never carry it into a plan.
  const webhook =
    l.event.webhook === undefined
      ? undefined
      : { name: l.event.webhook.name, source: l.event.webhook.source };
  return toJsonObject({
    is_disabled: l.is_disabled,
    config: l.config,
    checkout: l.checkout,
    event: { ...l.event, webhook, filter: exactFilter(l.event.filter) },
    parameters: liveParameters(l),
  });
};

export const TRIGGER_EVENT_TYPES = ["vcs", "webhook", "schedule"] as const;
export const ATTRIBUTION_ACTORS = ["system", "current"] as const;

export interface RawFilterRule {
  event_type?: string;
  rule: string;
  event_ref?: string;
}

export interface RawTriggerEvent {
  type: (typeof TRIGGER_EVENT_TYPES)[number];
  vcs?: RawVcsRepo;
  webhook?: { source?: string; secret?: string };
  schedule?: {
    cron_expression: string;
    attribution_actor?: (typeof ATTRIBUTION_ACTORS)[number];
  };
  filter?: { preset?: string; rules?: RawFilterRule[] };
}

/** A trigger as written under a pipeline's `triggers:`. */
export interface RawTrigger {
  id?: string;
  is_disabled?: boolean;
  config?: { ref?: string };
  checkout?: { ref?: string };
  event: RawTriggerEvent;
  /** Decision: parameter values are scalars (string, number, boolean), as pipeline parameters are. */
  parameters?: Record<string, string | number | boolean>;
}

/** The schema objects of a trigger, checked against its raw types (src/kinds/raw-keys.ts). */
export const TRIGGER_KEYS = {
  trigger: keysOf<RawTrigger>()(
    ["id", "is_disabled", "config", "checkout", "event", "parameters"],
    ["event"],
  ),
  "trigger/event": keysOf<RawTriggerEvent>()(
    ["type", "vcs", "webhook", "schedule", "filter"],
    ["type"],
  ),
  "trigger/event/webhook": keysOf<NonNullable<RawTriggerEvent["webhook"]>>()(
    ["source", "secret"],
    [],
  ),
  "trigger/event/schedule": keysOf<NonNullable<RawTriggerEvent["schedule"]>>()(
    ["cron_expression", "attribution_actor"],
    ["cron_expression"],
  ),
  "trigger/event/filter": keysOf<NonNullable<RawTriggerEvent["filter"]>>()(["preset", "rules"], []),
  "trigger/event/filter/rules[]": keysOf<RawFilterRule>()(
    ["event_type", "rule", "event_ref"],
    ["rule"],
  ),
  /** `config` and `checkout`: `{ ref }`. */
  refHolder: keysOf<NonNullable<RawTrigger["config"]>>()(["ref"], []),
  vcsRepo: VCS_REPO_KEYS,
};

/** A listed trigger as the planner sees it: its pipeline's id comes from its references. */
export const toLiveTrigger = (t: V3Resource<TriggerAttributes>): LiveTrigger => {
  const pipelineId = refId(t.references?.pipeline);
  if (!pipelineId) {
    throw new LiveReadError(
      `the service listed trigger ${t.id ?? "?"} without a pipeline reference`,
    );
  }
  return {
    ...t.attributes,
    id: requireId(t, "trigger"),
    pipeline_id: pipelineId,
    synthetic: false,
  };
};

/**
 * The key of a live trigger in drift's unmanaged list: `schedule.name` / `webhook.name`
 * (design.md §1 "Identity"). Decision: a vcs trigger, which has no name in the API, is shown
 * by its event repo (`vcs:acme/api`), the field it is matched by; a trigger without either
 * (not per spec) by its id, so that its line still names one item.
 */
export const liveTriggerKey = (t: TriggerAttributes & { readonly id: string }): string => {
  const e = t.event;
  if (e.type === "schedule" && e.schedule?.name) return e.schedule.name;
  if (e.type === "webhook" && e.webhook?.name) return e.webhook.name;
  if (e.type === "vcs" && e.vcs?.repo_full_name) return `vcs:${e.vcs.repo_full_name}`;
  return t.id;
};

const desiredKey = (d: DesiredTrigger): string =>
  d.event.type === "vcs" ? repoKey(d.event.vcs) : nameKey(d.key);

const liveKey = (l: LiveTrigger): string =>
  l.event.type === "vcs"
    ? repoKey(l.event.vcs)
    : nameKey(l.event.type === "schedule" ? l.event.schedule?.name : l.event.webhook?.name);

const sameFilter = (d: DesiredTrigger, l: LiveTrigger): boolean =>
  deepEqual(toJson(exactFilter(d.event.filter)), toJson(exactFilter(l.event.filter)));

const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [z]) =>
            a < z ? -1 : a > z ? 1 : 0,
          ),
        )
      : x,
  );

const filterDoc = (f: LiveTrigger["event"]["filter"]): DocMap | undefined | Skip => {
  if (f === undefined || f === null) return undefined;
  const out: DocMap = {};
  if (f.preset !== undefined) {
    if (!(FILTER_PRESETS as readonly string[]).includes(f.preset))
      return { skip: `filter preset ${JSON.stringify(f.preset)} is unknown to the config format` };
    out.preset = f.preset;
  }
  // An empty rules list is the same as none (the comparison above reads them equal).
  if (f.rules !== undefined && f.rules.length > 0) {
    const rules: DocValue[] = [];
    for (const r of f.rules) {
      if (typeof r.rule !== "string" || r.rule === "") return { skip: "a filter rule is empty" };
      const rule: DocMap = {};
      if (typeof r.event_type === "string" && r.event_type !== "")
        rule.event_type = escapeText(r.event_type);
      rule.rule = escapeText(r.rule);
      if (typeof r.event_ref === "string" && r.event_ref !== "")
        rule.event_ref = escapeText(r.event_ref);
      rules.push(rule);
    }
    out.rules = rules;
  }
  return out;
};

const CRON_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

/** One trigger's document, without its key. Default left out: is_disabled false. */
const triggerDoc = (
  ctx: ConfigContext,
  t: LiveTrigger,
  envParts: readonly string[],
  address: string,
): DocMap | Skip => {
  const e = t.event;
  const out: DocMap = {};
  if (t.is_disabled === true) out.is_disabled = true;
  // spec: api-v3.md Triggers: config.ref and checkout.ref are optional (`config? {ref
  // string?}`), so a trigger without them is written without them.
  if (typeof t.config?.ref === "string" && t.config.ref !== "")
    out.config = { ref: escapeText(t.config.ref) };
  if (typeof t.checkout?.ref === "string" && t.checkout.ref !== "")
    out.checkout = { ref: escapeText(t.checkout.ref) };
  const event: DocMap = { type: e.type };
  if (e.type === "vcs") {
    if (!hasVcs(e.vcs)) return { skip: "event.vcs is incomplete" };
    event.vcs = vcsDoc(e.vcs);
  } else if (e.type === "webhook") {
    const webhook: DocMap = {};
    if (typeof e.webhook?.source === "string" && e.webhook.source !== "")
      webhook.source = escapeText(e.webhook.source);
    // Decision: every webhook trigger gets a secret placeholder (issue 6). The service
    // never returns the secret, so the plan counts it as unverified and never re-sets it
    // unless --force-secrets selects it.
    webhook.secret = ctx.env(envParts, address, "webhook secret");
    event.webhook = webhook;
  } else if (e.type === "schedule") {
    const sc = e.schedule;
    if (typeof sc?.cron_expression !== "string" || !CRON_FIELDS.test(sc.cron_expression))
      return { skip: "the cron expression does not have five fields" };
    const schedule: DocMap = { cron_expression: sc.cron_expression.trim().split(/\s+/).join(" ") };
    if (sc.attribution_actor === "system" || sc.attribution_actor === "current")
      schedule.attribution_actor = sc.attribution_actor;
    event.schedule = schedule;
  } else {
    return { skip: `event.type ${JSON.stringify(e.type)} is unknown` };
  }
  const filter = filterDoc(e.filter);
  if (isSkip(filter)) return filter;
  if (filter !== undefined) event.filter = filter;
  out.event = event;
  if (t.parameters !== undefined && t.parameters !== null) {
    // spec: api-v3.md Triggers: parameters only for scheduled triggers; the config format
    // holds string, number and boolean values.
    const params: DocMap = {};
    for (const [k, v] of Object.entries(t.parameters)) {
      if (typeof v === "string") params[k] = escapeText(v);
      else if (typeof v === "number" || typeof v === "boolean") params[k] = v;
      else return { skip: `parameter ${JSON.stringify(k)} is not a string, number or boolean` };
    }
    if (e.type === "schedule") out.parameters = params;
    else if (Object.keys(params).length > 0)
      return { skip: "parameters on a trigger that is not scheduled" };
  }
  return out;
};

/** The name of a named trigger (schedule / webhook), or undefined for vcs. */
const triggerName = (t: LiveTrigger): string | undefined =>
  t.event.type === "schedule"
    ? (t.event.schedule?.name ?? "")
    : t.event.type === "webhook"
      ? (t.event.webhook?.name ?? "")
      : undefined;

/** One pipeline's live triggers as the config writes them (see `toConfig` below). */
const triggerEntries = (
  ctx: ConfigContext,
  slug: string,
  pipeline: string,
  triggers: readonly LiveTrigger[],
): ConfigEntry<LiveTrigger>[] => {
  const out: ConfigEntry<LiveTrigger>[] = [];
  const taken = new Set<string>();
  const skip = (key: string, reason: string) =>
    out.push({ ignored: { glob: addr.trigger(slug, pipeline, key), reason } });

  // Named triggers: the key is the name (design.md §1 "Identity"); schedule and webhook
  // triggers share one key space.
  const named = groupBy(
    triggers.filter((t) => t.event.type !== "vcs"),
    (t) => triggerName(t) ?? "",
  );
  for (const name of [...named.keys()].sort()) {
    const list = named.get(name) ?? [];
    if (name === "") {
      skip(name, "a named trigger has an empty name");
      continue;
    }
    if (RESERVED_KEYS.has(name)) {
      skip(name, reservedKeyReason(name));
      continue;
    }
    if (list.length > 1) {
      skip(name, `${list.length} live triggers share this name (ids ${idsOf(list)})`);
      continue;
    }
    const address = addr.trigger(slug, pipeline, name);
    const t = list[0]!;
    const doc = triggerDoc(
      ctx,
      t,
      ["TRIGGER", projectShortName(slug), pipeline, name, "SECRET"],
      address,
    );
    if (isSkip(doc)) {
      skip(name, doc.skip);
      continue;
    }
    out.push({ written: name, item: t, doc });
    taken.add(name);
  }

  // vcs triggers have no name: matched by repo, and by filter among those of one repo
  // (`tiebreak`). Decision: the key is `vcs:<repo_full_name>` (the address the planner gives
  // an unmatched live one), with ` (2)`, ` (3)` for further filters of one repo.
  const vcs = triggers.filter((t) => t.event.type === "vcs");
  const byRepo = groupBy(vcs, (t) => `${t.event.vcs?.provider}/${t.event.vcs?.repo_id}`);
  const repos = [...byRepo.values()]
    .map((list) => ({ list, full: list[0]!.event.vcs?.repo_full_name ?? "" }))
    .sort(byString((x) => x.full));
  for (const { list, full } of repos) {
    const base = `vcs:${full}`;
    const filters = list.map((t) => canonicalJson(t.event.filter ?? null));
    if (
      new Set(filters).size < filters.length ||
      list.some((t) => t.event.vcs?.repo_full_name !== full)
    ) {
      skip(
        base,
        `${list.length} live vcs triggers on this repo cannot be told apart by their filters (ids ${idsOf(list)})`,
      );
      continue;
    }
    const sorted = [...list].sort(byString((t) => canonicalJson(t.event.filter ?? null)));
    let n = 1;
    const docs: ConfigEntry<LiveTrigger>[] = [];
    let failed: string | undefined;
    for (const t of sorted) {
      let key = n === 1 ? base : `${base} (${n})`;
      while (taken.has(key)) key = `${base} (${++n})`;
      n += 1;
      const doc = triggerDoc(ctx, t, [], addr.trigger(slug, pipeline, key));
      if (isSkip(doc)) {
        failed = doc.skip;
        break;
      }
      docs.push({ written: key, item: t, doc });
    }
    if (failed !== undefined) {
      // Leaving one out would make the others ambiguous: the whole repo is ignored.
      skip(base, failed);
      continue;
    }
    for (const d of docs) {
      out.push(d);
      if ("written" in d) taken.add(d.written);
    }
  }
  return out;
};

export const triggerKind = defineKind<DesiredTrigger, LiveTrigger, "pipeline">({
  identity: {
    type: "trigger",
    parent: "pipeline",
    desiredKey: (d) => desiredKey(d),
    liveKey: (l) => liveKey(l),
    // Decision: a live vcs trigger that no desired trigger matches is addressed as
    // `vcs:<repo_full_name>` (it has no name in the API).
    liveAddressKey: (l) =>
      l.event.type === "vcs"
        ? `vcs:${l.event.vcs?.repo_full_name ?? ""}`
        : ((l.event.type === "schedule" ? l.event.schedule?.name : l.event.webhook?.name) ?? ""),
    liveId: (l) => l.id,
    pinnedId: (d) => d.id,
    tiebreak: (d, l) => d.event.type === "vcs" && sameFilter(d, l),
    // spec: api-v3.md Triggers: POST /triggers/:id/update takes `event.schedule` and
    // `event.webhook`, names included (issue 19 `moved`). A vcs trigger has no name: relabel
    // leaves it as it is, and the planner reports that it cannot be moved.
    rename: {
      can: true,
      field: (l) => (l.event.type === "webhook" ? "event.webhook.name" : "event.schedule.name"),
      relabel: (l, name) => {
        const e = l.event;
        if (e.type === "schedule" && e.schedule !== undefined) {
          return { ...l, event: { ...e, schedule: { ...e.schedule, name } } };
        }
        if (e.type === "webhook" && e.webhook !== undefined) {
          return { ...l, event: { ...e, webhook: { ...e.webhook, name } } };
        }
        return l;
      },
    },
  },
  diff: {
    // Decision: delete before create. Two schedule triggers with one name would make the next
    // plan ambiguous, and two vcs triggers on one repo would start every run twice.
    replaceOrder: "delete_before_create",
    replaceOrderWhy:
      "a named trigger must not exist twice, and two vcs triggers of one repo would run twice",
    desiredView: (d) => desiredView(d),
    liveView: (l) => liveView(l),
    compare: (d, l, env) => {
      const acc = newComparison();
      const fields = compareFields(desiredView(d), liveView(l), RULES);
      // A preset cannot be taken away by an update: the update merges `filter` and there is
      // no value that means "no preset" (spec: Triggers update lists `preset?` only). So a
      // YAML filter without the live trigger's preset replaces the trigger.
      const presetGone =
        d.event.filter !== undefined &&
        d.event.filter.preset === undefined &&
        typeof l.event.filter?.preset === "string";
      addFields(
        acc,
        fields.map((f) =>
          presetGone && f.path === "event.filter" ? { ...f, forces_replacement: true } : f,
        ),
      );
      // Decision: a webhook trigger whose YAML sets no secret leaves the service's generated
      // one alone (not a removal): the secret is not managed.
      if (d.event.webhook?.secret !== undefined) {
        const present = l.event.type === "webhook";
        addSecret(
          acc,
          "event.webhook.secret",
          compareSecret(d.event.webhook.secret, { present }, env.forceSecrets),
          present,
        );
      }
      return acc;
    },
    unresolvedSecrets: (d) =>
      d.event.webhook?.secret !== undefined && !d.event.webhook.secret.isResolved
        ? ["event.webhook.secret"]
        : [],
  },
  wire: {
    createCalls: (d) => [
      call("create", "POST", "/triggers", {
        body: "envelope",
        body_fields: [
          "is_disabled",
          ...(d.config?.ref === undefined ? [] : ["config.ref"]),
          ...(d.checkout?.ref === undefined ? [] : ["checkout.ref"]),
          "event",
          ...(d.parameters === undefined ? [] : ["parameters"]),
          "references.pipeline",
        ],
        sensitive_fields: d.event.webhook?.secret === undefined ? [] : ["event.webhook.secret"],
      }),
    ],
    updateCalls: (fields) => {
      const body = [...new Set(fields.map((f) => triggerUpdateField(f.path)))];
      // Issue 28: the spec does not say whether the update merges `event.webhook` or
      // replaces it (spec: api-v3.md Triggers, `event { …, webhook? {name?, source?, secret?}
      // }`). A body with `event.webhook` (a `moved` rename, a new source) but without its
      // secret could leave the trigger without one on a service that replaces the object, and
      // the service never returns it. Decision: whenever `event.webhook` is sent, its secret
      // is sent again, from the config (a webhook trigger always declares one,
      // src/config/rules.ts webhook_secret_required).
      const sendsWebhook = body.includes("event.webhook");
      return [
        call("update", "POST", "/triggers/{id}/update", {
          body: "flat",
          body_fields: body,
          sensitive_fields:
            sendsWebhook || fields.some((f) => f.sensitive) ? ["event.webhook.secret"] : [],
          ...(sendsWebhook && !fields.some((f) => f.sensitive)
            ? {
                note: "event.webhook is sent whole, with the secret from the config again: the spec does not say whether the update merges it",
              }
            : {}),
        }),
      ];
    },
    deleteCalls: () => [call("delete", "DELETE", "/triggers/{id}")],
    // spec: api-v3.md Triggers: listed by filter[pipeline_id] or filter[project_id]. The live
    // reader lists a project's triggers at once (one listing, not one per pipeline); apply's
    // re-list lists the one pipeline's.
    list: async (api, scope, options) => {
      const filter =
        scope.pipeline_id !== undefined
          ? { "filter[pipeline_id]": scope.pipeline_id }
          : { "filter[project_id]": scope.project_id };
      if (Object.values(filter)[0] === undefined) throw new Error("listing needs pipeline_id");
      return (
        await api.listV3<TriggerAttributes>(
          "/triggers",
          filter,
          pageOptions(options, toLiveTrigger),
        )
      ).map(toLiveTrigger);
    },
  },
  place: {
    // Listed once per project (every pipeline's triggers in one listing), read whenever the
    // project declares `pipelines` (a pipeline's `triggers` is owned by its pipeline).
    livePlace: {
      under: "project",
      readFor: (decl) => decl.pipelines !== undefined,
      store: (items) => ({ triggers: items }),
      stored: (p) => p.triggers,
    },
    // Drift lists an unmatched trigger by its name, repo, or else its id (never an empty key).
    unmanaged: { listed: true, key: (l) => liveTriggerKey(l) },
    desiredItems: function* (org) {
      for (const [slug, p] of org.projects) {
        for (const pl of p.pipelines?.values() ?? []) {
          for (const t of pl.triggers?.values() ?? []) {
            yield { address: addr.trigger(slug, pl.name, t.key), item: t };
          }
        }
      }
    },
    liveItems: function* (org) {
      for (const [slug, p] of foundProjects(org)) {
        for (const t of p.triggers ?? []) yield { key: `project:${slug}|trigger:${t.id}`, item: t };
      }
    },
    // Otherwise the plain place: `triggers` of the pipeline, `…pipeline["<name>"].trigger["<key>"]`.
    collection: {
      // Triggers are read per project (when `pipelines` is declared): a pipeline's are those
      // that reference it.
      liveIn: (p, within) =>
        within.project?.triggers?.filter((t) => !t.synthetic && t.pipeline_id === p.id),
      addressKey: (d) => d.key,
      // Decision: the spec does not say whether deleting a pipeline deletes its triggers, so
      // a pipeline delete is preceded by explicit deletes of its triggers: the plan is exact
      // whichever the service does.
      onParentDelete: "deleted_first",
      synthetic: {
        of: (_p, within) => (within.project?.triggers ?? []).filter((t) => t.synthetic),
        clash: (d, l, p) =>
          (l.pipeline_id === p.id && liveKey(l) === desiredKey(d) && d.event.type !== "vcs") ||
          l.id === d.id,
        refusal: (id) =>
          `this is the synthetic OAuth trigger (id ${id}), which cannot be created, updated or deleted; remove it from the config`,
      },
    },
  },
  config: {
    yamlKey: "triggers",
    summary: { key: "triggers", one: "trigger" },
    schemaKeys: TRIGGER_KEYS,
    secretPaths: [
      {
        at: ["event", "webhook", "secret"],
        field: "webhook_secret",
        where: "a trigger's event.webhook.secret",
      },
    ],
    build: (ctx, key, raw: RawTrigger, path): DesiredTrigger => {
      const e = raw.event;
      const webhook = e.webhook;
      const text = (v: string) => ctx.text(v);
      return {
        key,
        source: ctx.at(path),
        ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
        ...(raw.is_disabled !== undefined && { is_disabled: raw.is_disabled }),
        ...(raw.config !== undefined && {
          config: raw.config.ref === undefined ? {} : { ref: text(raw.config.ref) },
        }),
        ...(raw.checkout !== undefined && {
          checkout: raw.checkout.ref === undefined ? {} : { ref: text(raw.checkout.ref) },
        }),
        event: {
          type: e.type,
          ...(e.vcs !== undefined && { vcs: buildVcs(ctx, e.vcs) }),
          ...(webhook !== undefined && {
            webhook: {
              ...(webhook.source !== undefined && { source: text(webhook.source) }),
              ...(webhook.secret !== undefined && {
                secret: ctx.secret([...path, "event", "webhook", "secret"]),
              }),
            },
          }),
          ...(e.schedule !== undefined && {
            schedule: {
              // Decision: whitespace is normalised ("0  2 * * *" is "0 2 * * *") so spacing
              // is never a change in a plan.
              cron_expression: e.schedule.cron_expression.trim().split(/\s+/).join(" "),
              ...(e.schedule.attribution_actor !== undefined && {
                attribution_actor: e.schedule.attribution_actor,
              }),
            },
          }),
          ...(e.filter !== undefined && {
            filter: {
              ...(e.filter.preset !== undefined && { preset: e.filter.preset }),
              ...(e.filter.rules !== undefined && {
                rules: e.filter.rules.map((r) => ({
                  ...(r.event_type !== undefined && { event_type: text(r.event_type) }),
                  rule: text(r.rule),
                  ...(r.event_ref !== undefined && { event_ref: text(r.event_ref) }),
                })),
              }),
            },
          }),
        },
        ...(raw.parameters !== undefined && {
          parameters: Object.fromEntries(
            Object.entries(raw.parameters).map(([k, v]) => [
              k,
              typeof v === "string" ? text(v) : v,
            ]),
          ),
        }),
      };
    },
    export: (items, scope, ctx) =>
      triggerEntries(ctx, scopeName(scope, "project"), scopeName(scope, "parent"), items),
  },
  hooks: {
    // design.md §1 "Identity": a vcs trigger is its repo and, since several may share it,
    // its filter too; schedule and webhook triggers are their name.
    adopt: {
      by: "relist",
      matches: (d, _after, l) =>
        liveKey(l) === desiredKey(d) && (d.event.type !== "vcs" || sameFilter(d, l)),
    },
  },
});
