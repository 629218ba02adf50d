/**
 * The pure core of `waybill export` (issue 6): a snapshot of the live state → config
 * documents in the config format (design.md §1 "Config format"), the environment variables
 * they need, and warnings. No I/O, no clock: the caller passes what it needs.
 *
 * The output is meant to plan with no changes: every field the planner compares is written
 * as the service holds it, and defaults the planner fills in are left out (design.md §1
 * "Plans": webhook scope `project`, should_verify_tls true, is_enabled true, trigger
 * is_disabled false).
 */

import type { LiveWebhook } from "../kinds/webhook.js";
import { addr, type RestrictionType, restrictionKey } from "../model/address.js";
import {
  FILTER_PRESETS,
  ORG_SETTING_NAMES,
  PROJECT_SETTING_NAMES,
  WEBHOOK_EVENTS,
} from "../model/desired.js";
import type { LivePipeline, LiveTrigger } from "../model/live.js";
import { assignEnvNames, type EnvNameRequest, type EnvVarNeed } from "./env-names.js";
import type { ExportSnapshot, SnapshotContext, SnapshotProject } from "./snapshot.js";

/** A placeholder whose variable name is given once every request is known. */
class EnvRef {
  constructor(readonly request: EnvNameRequest) {}
}

/** A config document as plain data (maps keep insertion order = output order). */
export type DocValue = string | number | boolean | null | EnvRef | DocValue[] | DocMap;
export interface DocMap {
  [key: string]: DocValue;
}

/**
 * Something live that the config format cannot express: written as an `ignore` entry.
 * Decision: such an item (two live items with one key, a webhook scope other than
 * `project`, vcs triggers of one repo that only
 * differ by id, ...) is not guessed at: its address goes under `ignore`, with the reason as
 * a comment and a warning on stderr, so plan neither deletes it nor reports it, and a human
 * decides (pin one with `id:`, or fix it in the service).
 */
export interface IgnoreEntry {
  /** The address glob (an exact address). */
  readonly glob: string;
  /** Why, as a YAML comment and a warning. */
  readonly reason: string;
}

export interface ExportFileDoc {
  /** `org` for the org and its contexts, else the project slug. */
  readonly kind: "org" | "project";
  readonly slug: string;
  /** The document body (org, settings, contexts | projects), placeholders resolved. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly ignore: readonly IgnoreEntry[];
}

export interface ExportResult {
  readonly org: ExportFileDoc;
  readonly projects: readonly ExportFileDoc[];
  /** Sorted by address. */
  readonly envVars: readonly EnvVarNeed[];
  readonly warnings: readonly string[];
}

const byString =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

/**
 * The config loader reads `$${` as a literal `${` in every plain string and treats `${env:`
 * / `${file:` as a reference (src/config/references.ts), so a live value that holds `${` is
 * written with it doubled, and reads back as the same text.
 */
// A replacer function: in a replacement string `$$` would mean one `$`.
export const escapeText = (s: string): string => s.replaceAll("${", () => "$${");

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROJECT_SLUG = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** The ids of items that share one key, sorted, for messages. */
const ids = (list: readonly { readonly id: string }[]): string =>
  list
    .map((x) => x.id)
    .sort()
    .join(", ");

/** Group items by key, keeping the first-seen order of keys. */
const groupBy = <T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
};

interface Builder {
  readonly requests: EnvNameRequest[];
  readonly warnings: string[];
  env(parts: readonly string[], address: string, what: EnvNameRequest["what"]): EnvRef;
}

const newBuilder = (): Builder => {
  const requests: EnvNameRequest[] = [];
  return {
    requests,
    warnings: [],
    env: (parts, address, what) => {
      const request = { parts, address, what };
      requests.push(request);
      return new EnvRef(request);
    },
  };
};

/**
 * Settings as the service returns them, keys in the spec's order. Decision: every setting
 * the service returns is written (there are no documented defaults to leave out), and keys
 * the config format does not know are left out (they stay unmanaged).
 */
const settingsDoc = (live: Readonly<Record<string, unknown>>, names: readonly string[]): DocMap => {
  const out: DocMap = {};
  for (const name of names) {
    const v = live[name];
    if (typeof v === "boolean") out[name] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string" && x !== "")) {
      out[name] = [...new Set(v as string[])].map(escapeText);
    }
  }
  return out;
};

/** A project's short name (the part after the org), for variable and file names. */
export const projectShortName = (slug: string): string =>
  slug.split("/").slice(2).join("/") || slug;

// ---------------------------------------------------------------------------------------
// Org and contexts
// ---------------------------------------------------------------------------------------

const RESTRICTION_ORDER: Readonly<Record<RestrictionType, number>> = {
  project: 0,
  expression: 1,
  group: 2,
};

const contextDoc = (b: Builder, c: SnapshotContext, ignore: IgnoreEntry[]): DocMap => {
  const env: DocMap = {};
  for (const name of [...new Set(c.env)].sort()) {
    const address = addr.contextEnvVar(c.name, name);
    if (!ENV_NAME.test(name)) {
      ignore.push({
        glob: address,
        reason: "the name is not a valid environment variable name in the config format",
      });
      continue;
    }
    env[name] = b.env(["CTX", c.name, name], address, "env var");
  }
  const restrictions: DocValue[] = [];
  const byKey = groupBy(c.restrictions, (r) => restrictionKey(r.type, r.value));
  const sorted = [...byKey.entries()].sort(([, [a]], [, [z]]) =>
    a!.type === z!.type
      ? a!.value < z!.value
        ? -1
        : a!.value > z!.value
          ? 1
          : 0
      : RESTRICTION_ORDER[a!.type] - RESTRICTION_ORDER[z!.type],
  );
  for (const [, list] of sorted) {
    const r = list[0]!;
    const address = addr.contextRestriction(c.name, r.type, r.value);
    if (list.length > 1) {
      ignore.push({
        glob: address,
        reason: `${list.length} live restrictions share this key (ids ${ids(list)})`,
      });
      continue;
    }
    if (r.type === "project" && !PROJECT_SLUG.test(r.value) && !/^[0-9a-f-]{36}$/i.test(r.value)) {
      ignore.push({ glob: address, reason: "the project is neither a slug nor an id" });
      continue;
    }
    if (r.type === "group" && r.value !== "all-members" && !/^[0-9a-f-]{36}$/i.test(r.value)) {
      ignore.push({ glob: address, reason: "the group pattern is not a group id" });
      continue;
    }
    if (r.value === "") {
      ignore.push({ glob: address, reason: "the pattern is empty" });
      continue;
    }
    restrictions.push({ [r.type]: escapeText(r.value) });
  }
  return { env, restrictions };
};

const orgBody = (b: Builder, s: ExportSnapshot, ignore: IgnoreEntry[]): DocMap => {
  const contexts: DocMap = {};
  const byName = groupBy(s.contexts, (c) => c.name);
  for (const name of [...byName.keys()].sort()) {
    const list = byName.get(name) ?? [];
    if (list.length > 1 || name === "") {
      ignore.push({
        glob: addr.context(name),
        reason:
          name === ""
            ? "the context has an empty name"
            : `${list.length} live contexts share this name (ids ${ids(list)}); to manage one, declare it with id: and remove this entry (plan would then delete the others)`,
      });
      continue;
    }
    contexts[name] = contextDoc(b, list[0]!, ignore);
  }
  return {
    org: s.org.slug,
    settings: settingsDoc(s.settings, ORG_SETTING_NAMES),
    contexts,
  };
};

// ---------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------

const webhookDoc = (
  b: Builder,
  slug: string,
  w: LiveWebhook,
): DocMap | { readonly skip: string } => {
  // The schema allows only the scope the V2 API knows (design.md §1 "Plans").
  if (w.scope !== "project") return { skip: `scope ${JSON.stringify(w.scope)} is not project` };
  // The schema's url pattern: https:// and no white space.
  if (!/^https:\/\/\S+$/.test(w.url))
    return { skip: "the url is not an https:// URL without spaces" };
  const events = [...new Set(w.events)];
  if (events.length === 0 || events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e)))
    return { skip: `events ${JSON.stringify(w.events)} are not expressible` };
  const out: DocMap = { url: escapeText(w.url), events: [...events].sort() };
  if (w.should_verify_tls === false) out.should_verify_tls = false;
  if (w.is_enabled === false) out.is_enabled = false;
  // spec: api-v3.md Webhook: signing_secret is write-only; has_signing_secret tells.
  if (w.has_signing_secret) {
    out.signing_secret = b.env(
      ["WEBHOOK", projectShortName(slug), w.name, "SIGNING_SECRET"],
      addr.webhook(slug, w.name),
      "signing_secret",
    );
  }
  return out;
};

const vcsDoc = (v: { provider: string; repo_id: string; repo_full_name: string }): DocMap => ({
  provider: escapeText(v.provider),
  repo_id: escapeText(String(v.repo_id)),
  repo_full_name: escapeText(v.repo_full_name),
});

const hasVcs = (v: unknown): v is { provider: string; repo_id: string; repo_full_name: string } =>
  typeof v === "object" &&
  v !== null &&
  ["provider", "repo_id", "repo_full_name"].every((k) => {
    const x = (v as Record<string, unknown>)[k];
    return (typeof x === "string" && x !== "") || typeof x === "number";
  });

const pipelineDoc = (p: LivePipeline): DocMap | { readonly skip: string } => {
  const c = p.config;
  if (typeof c?.file_path !== "string" || c.file_path === "")
    return { skip: "no config.file_path" };
  const config: DocMap = { type: c.type, file_path: escapeText(c.file_path) };
  if (typeof c.file_type === "string" && c.file_type !== "")
    config.file_type = escapeText(c.file_type);
  if (c.type === "vcs") {
    if (!hasVcs(c.vcs)) return { skip: "config.vcs is incomplete" };
    config.vcs = vcsDoc(c.vcs);
  } else if (c.type === "hosted") {
    if (typeof c.hosted?.provider !== "string" || c.hosted.provider === "")
      return { skip: "config.hosted is incomplete" };
    config.hosted = { provider: escapeText(c.hosted.provider) };
  } else {
    return { skip: `config.type ${JSON.stringify(c.type)} is neither vcs nor hosted` };
  }
  const out: DocMap = {};
  // Decision: an empty description is left out (nothing to manage); any other is written.
  if (typeof p.description === "string" && p.description !== "")
    out.description = escapeText(p.description);
  out.config = config;
  if (hasVcs(p.checkout?.vcs)) out.checkout = { vcs: vcsDoc(p.checkout.vcs) };
  // spec: api-v3.md Pipelines: POST /pipelines requires `checkout`; the config says so for a
  // hosted pipeline (src/config/rules.ts), so one read without it cannot be written.
  else if (c.type === "hosted") return { skip: "a hosted pipeline without checkout.vcs" };
  return out;
};

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

const filterDoc = (
  f: LiveTrigger["event"]["filter"],
): DocMap | undefined | { readonly skip: string } => {
  if (f === undefined || f === null) return undefined;
  const out: DocMap = {};
  if (f.preset !== undefined) {
    if (!(FILTER_PRESETS as readonly string[]).includes(f.preset))
      return { skip: `filter preset ${JSON.stringify(f.preset)} is unknown to the config format` };
    out.preset = f.preset;
  }
  // An empty rules list is the same as none (src/kinds/trigger.ts compares them equal).
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

const isSkip = (v: unknown): v is { readonly skip: string } =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as { skip?: unknown }).skip === "string" &&
  Object.keys(v).length === 1;

const CRON_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

/** One trigger's document, without its key. */
const triggerDoc = (
  b: Builder,
  t: LiveTrigger,
  envParts: readonly string[],
  address: string,
): DocMap | { readonly skip: string } => {
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
    webhook.secret = b.env(envParts, address, "webhook secret");
    event.webhook = webhook;
  } else if (e.type === "schedule") {
    const s = e.schedule;
    if (typeof s?.cron_expression !== "string" || !CRON_FIELDS.test(s.cron_expression))
      return { skip: "the cron expression does not have five fields" };
    const schedule: DocMap = { cron_expression: s.cron_expression.trim().split(/\s+/).join(" ") };
    if (s.attribution_actor === "system" || s.attribution_actor === "current")
      schedule.attribution_actor = s.attribution_actor;
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

const triggersDoc = (
  b: Builder,
  slug: string,
  pipeline: string,
  triggers: readonly LiveTrigger[],
  ignore: IgnoreEntry[],
): DocMap => {
  const out: DocMap = {};
  const taken = new Set<string>();
  const skip = (key: string, reason: string) =>
    ignore.push({ glob: addr.trigger(slug, pipeline, key), reason });

  // Named triggers: the key is the name (design.md §1 "Identity"); schedule and webhook
  // triggers share one key space (src/kinds/trigger.ts).
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
    if (list.length > 1) {
      skip(name, `${list.length} live triggers share this name (ids ${ids(list)})`);
      continue;
    }
    const address = addr.trigger(slug, pipeline, name);
    const doc = triggerDoc(
      b,
      list[0]!,
      ["TRIGGER", projectShortName(slug), pipeline, name, "SECRET"],
      address,
    );
    if (isSkip(doc)) {
      skip(name, doc.skip);
      continue;
    }
    out[name] = doc;
    taken.add(name);
  }

  // vcs triggers have no name: matched by repo, and by filter among those of one repo
  // (src/kinds/trigger.ts). Decision: the key is `vcs:<repo_full_name>` (the address the
  // planner gives an unmatched live one), with ` (2)`, ` (3)` for further filters of one repo.
  const vcs = triggers.filter((t) => t.event.type === "vcs");
  const byRepo = groupBy(vcs, (t) => `${t.event.vcs?.provider}/${t.event.vcs?.repo_id}`);
  const entries = [...byRepo.values()]
    .map((list) => ({ list, full: list[0]!.event.vcs?.repo_full_name ?? "" }))
    .sort(byString((x) => x.full));
  for (const { list, full } of entries) {
    const base = `vcs:${full}`;
    const filters = list.map((t) => canonicalJson(t.event.filter ?? null));
    if (
      new Set(filters).size < filters.length ||
      list.some((t) => t.event.vcs?.repo_full_name !== full)
    ) {
      skip(
        base,
        `${list.length} live vcs triggers on this repo cannot be told apart by their filters (ids ${ids(list)})`,
      );
      continue;
    }
    const sorted = [...list].sort(byString((t) => canonicalJson(t.event.filter ?? null)));
    let n = 1;
    const docs: [string, DocMap][] = [];
    let failed: string | undefined;
    for (const t of sorted) {
      let key = n === 1 ? base : `${base} (${n})`;
      while (taken.has(key)) key = `${base} (${++n})`;
      n += 1;
      const doc = triggerDoc(b, t, [], addr.trigger(slug, pipeline, key));
      if (isSkip(doc)) {
        failed = doc.skip;
        break;
      }
      docs.push([key, doc]);
    }
    if (failed !== undefined) {
      // Leaving one out would make the others ambiguous: the whole repo is ignored.
      skip(base, failed);
      continue;
    }
    for (const [key, doc] of docs) {
      out[key] = doc;
      taken.add(key);
    }
  }
  return out;
};

/**
 * Decision: every collection of an exported project is written, `{}` when the service has
 * none, so the exported config is authoritative from the start (design.md §1 "Ownership"):
 * an item added by hand later shows up in plan instead of being silently unmanaged. The same
 * holds for `contexts` and each context's `env` and `restrictions`.
 */
const projectBody = (b: Builder, p: SnapshotProject, ignore: IgnoreEntry[]): DocMap => {
  const env: DocMap = {};
  for (const name of [...new Set(p.env)].sort()) {
    const address = addr.projectEnvVar(p.slug, name);
    if (!ENV_NAME.test(name)) {
      ignore.push({
        glob: address,
        reason: "the name is not a valid environment variable name in the config format",
      });
      continue;
    }
    env[name] = b.env(["PROJECT", projectShortName(p.slug), name], address, "env var");
  }

  const webhooks: DocMap = {};
  const hooks = groupBy(p.webhooks, (w) => w.name);
  for (const name of [...hooks.keys()].sort()) {
    const list = hooks.get(name) ?? [];
    const address = addr.webhook(p.slug, name);
    if (list.length > 1 || name === "") {
      ignore.push({
        glob: address,
        reason:
          name === ""
            ? "the webhook has an empty name"
            : `${list.length} live webhooks share this name (ids ${ids(list)}); to manage one, declare it with id: and remove this entry (plan would then delete the others)`,
      });
      continue;
    }
    const doc = webhookDoc(b, p.slug, list[0]!);
    if (isSkip(doc)) ignore.push({ glob: address, reason: doc.skip });
    else webhooks[name] = doc;
  }

  const pipelines: DocMap = {};
  // The synthetic OAuth pipeline and its triggers are never managed (design.md §1
  // "Identity"), so they are left out; plan recognises them on its own.
  const real = p.pipelines.filter((x) => !x.synthetic);
  const byName = groupBy(real, (x) => x.name);
  for (const name of [...byName.keys()].sort()) {
    const list = byName.get(name) ?? [];
    const address = addr.pipeline(p.slug, name);
    if (list.length > 1 || name === "") {
      ignore.push({
        glob: address,
        reason:
          name === ""
            ? "the pipeline has an empty name"
            : `${list.length} live pipelines share this name (ids ${ids(list)}); to manage one, declare it with id: and remove this entry (plan would then delete the others)`,
      });
      continue;
    }
    const pipeline = list[0]!;
    const doc = pipelineDoc(pipeline);
    if (isSkip(doc)) {
      ignore.push({ glob: address, reason: doc.skip });
      continue;
    }
    doc.triggers = triggersDoc(
      b,
      p.slug,
      name,
      p.triggers.filter((t) => t.pipeline_id === pipeline.id && !t.synthetic),
      ignore,
    );
    pipelines[name] = doc;
  }
  return {
    settings: settingsDoc(p.settings, PROJECT_SETTING_NAMES),
    env,
    webhooks,
    pipelines,
  };
};

// ---------------------------------------------------------------------------------------
// Whole export
// ---------------------------------------------------------------------------------------

const resolveRefs = (v: DocValue, names: ReadonlyMap<EnvNameRequest, string>): unknown => {
  if (v instanceof EnvRef) return `\${env:${names.get(v.request)}}`;
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, names));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = resolveRefs(x, names);
    return out;
  }
  return v;
};

/** Build the export of one org and its chosen projects (projects sorted by slug). */
export const buildExport = (snapshot: ExportSnapshot): ExportResult => {
  const b = newBuilder();
  const orgIgnore: IgnoreEntry[] = [];
  const org = orgBody(b, snapshot, orgIgnore);
  const projects = [...snapshot.projects].sort(byString((p) => p.slug)).map((p) => {
    const ignore: IgnoreEntry[] = [];
    return { slug: p.slug, body: projectBody(b, p, ignore), ignore };
  });

  const { needs: envVars, nameOf: names } = assignEnvNames(b.requests);

  const warnings = [...orgIgnore, ...projects.flatMap((p) => p.ignore)].map(
    (i) =>
      `${i.glob} is not exported (${i.reason}); it is listed under ignore so plan leaves it alone`,
  );
  return {
    org: {
      kind: "org",
      slug: snapshot.org.slug,
      body: resolveRefs(org, names) as Record<string, unknown>,
      ignore: orgIgnore,
    },
    projects: projects.map((p) => ({
      kind: "project",
      slug: p.slug,
      body: {
        org: snapshot.org.slug,
        projects: { [p.slug]: resolveRefs(p.body, names) },
      },
      ignore: p.ignore,
    })),
    envVars,
    warnings,
  };
};
