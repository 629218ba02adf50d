/**
 * What `drift` lists as information besides the drift itself (issue 4): live items the
 * config does not manage — those in collections the config leaves out under a declared
 * parent (design.md §1 "Ownership": an absent key leaves the collection unmanaged) — and
 * those excluded by `ignore`.
 *
 * Decision: only collections under declared parents are listed (the org's contexts, a
 * declared context's env and restrictions, a declared project's env, webhooks, pipelines and
 * their triggers). Undeclared projects are not listed: Waybill never owns the project list,
 * and listing every project of a large org would drown the drift report. Settings keys that
 * are not declared are not listed either: settings maps are managed key by key by design.
 */
import type { ReadOnlyApi } from "../api/types.js";
import type {
  ContextAttributes,
  ContextEnvVarAttributes,
  ContextRestrictionAttributes,
  PipelineAttributes,
  ProjectEnvVarAttributes,
  TriggerAttributes,
  WebhookAttributes,
} from "../core/wire.js";
import { restrictionKeyValue } from "../kinds/context-restriction.js";
import { toLiveTrigger } from "../kinds/trigger.js";
import { isLockContextName } from "../lock/claim.js";
import { addr, type ResourceType, type RestrictionType } from "../model/address.js";
import type { DesiredOrg, DesiredProject } from "../model/desired.js";
import type { LiveOrg, LiveProject, LiveState, LiveTrigger } from "../model/live.js";
import { consistentLists } from "./paged-list.js";
import { makeIgnoreMatcher } from "./resolve.js";
import { probeSynthetic } from "./synthetic.js";

export interface UnmanagedItem {
  readonly address: string;
  readonly resource_type: ResourceType;
  /** `unmanaged`: its collection is not in the config; `ignored`: an `ignore` glob excludes it. */
  readonly why: "unmanaged" | "ignored";
}

/**
 * The key of a live trigger in an address: `schedule.name` / `webhook.name` (design.md §1
 * "Identity"). Decision: a vcs trigger, which has no name in the API, is shown by its event
 * repo (`vcs:acme/api`), the field it is matched by.
 */
export const liveTriggerKey = (t: TriggerAttributes & { readonly id: string }): string => {
  const e = t.event;
  if (e.type === "schedule" && e.schedule?.name) return e.schedule.name;
  if (e.type === "webhook" && e.webhook?.name) return e.webhook.name;
  if (e.type === "vcs" && e.vcs?.repo_full_name) return `vcs:${e.vcs.repo_full_name}`;
  return t.id;
};

type Emit = (address: string, resource_type: ResourceType, inUnmanagedCollection: boolean) => void;

export const listUnmanaged = async (
  rawApi: ReadOnlyApi,
  desiredOrgs: readonly DesiredOrg[],
  live: LiveState,
): Promise<UnmanagedItem[]> => {
  // Issue 15: every listing here is consistent or fails, as the plan's own reads are.
  const api = consistentLists(rawApi);
  const perOrg = await Promise.all(
    live.orgs.map(async (org) => {
      const decls = desiredOrgs.filter((d) => d.slug === org.slug);
      const isIgnored = makeIgnoreMatcher(decls.flatMap((d) => d.ignore));
      const out: UnmanagedItem[] = [];
      const emit: Emit = (address, resource_type, inUnmanagedCollection) => {
        if (isIgnored(address)) out.push({ address, resource_type, why: "ignored" });
        else if (inUnmanagedCollection) out.push({ address, resource_type, why: "unmanaged" });
      };
      await Promise.all([
        contextItems(api, org, decls, emit),
        ...[...org.projects].map(async ([slug, p]) => {
          if (p.status !== "found") return;
          const project = decls.map((d) => d.projects.get(slug)).find((x) => x !== undefined);
          if (project) await projectItems(api, p, project, emit);
        }),
      ]);
      return out;
    }),
  );
  return perOrg.flat();
};

const contextItems = async (
  api: ReadOnlyApi,
  org: LiveOrg,
  decls: readonly DesiredOrg[],
  emit: Emit,
): Promise<void> => {
  if (org.contexts === undefined) {
    const listed = await api.listV3<ContextAttributes>("/contexts", { "filter[org_id]": org.id });
    // Issue 15: the org lock's claims are Waybill's own, never "unmanaged".
    for (const c of listed)
      if (!isLockContextName(c.attributes.name))
        emit(addr.context(c.attributes.name), "context", true);
    return;
  }
  const declared = new Map(decls.flatMap((d) => [...(d.contexts ?? new Map()).entries()]));
  await Promise.all(
    org.contexts.map(async (c) => {
      emit(addr.context(c.name), "context", false);
      const decl = declared.get(c.name);
      if (!decl) return;
      const [env, restrictions] = await Promise.all([
        c.env
          ? c.env.map((e) => e.name)
          : decl.env === undefined
            ? api
                .listV3<ContextEnvVarAttributes>(`/contexts/${c.id}/env-vars`)
                .then((items) => items.map((i) => i.attributes.name))
            : [],
        c.restrictions
          ? c.restrictions.map((r) => [r.restriction_type, r.key_value] as const)
          : decl.restrictions === undefined
            ? api
                .listV3<ContextRestrictionAttributes>("/context-restrictions", {
                  "filter[context_id]": c.id,
                })
                .then((items) =>
                  items.map(
                    (i) =>
                      [
                        i.attributes.restriction_type,
                        restrictionKeyValue(
                          i.attributes.restriction_type,
                          i.attributes.match_pattern,
                          org.id,
                          (id) =>
                            [...(org.projectIds ?? new Map<string, string>())].find(
                              ([, pid]) => pid === id,
                            )?.[0],
                        ),
                      ] as const,
                  ),
                )
            : [],
      ]);
      for (const name of env) emit(addr.contextEnvVar(c.name, name), "context_env_var", !c.env);
      for (const [type, value] of restrictions) {
        emit(
          addr.contextRestriction(c.name, type as RestrictionType, value),
          "context_restriction",
          !c.restrictions,
        );
      }
    }),
  );
};

const projectItems = async (
  api: ReadOnlyApi,
  p: LiveProject,
  decl: DesiredProject,
  emit: Emit,
): Promise<void> => {
  const slug = p.slug;
  const [env, webhooks, pipelines, triggers] = await Promise.all([
    p.env
      ? p.env.map((e) => e.name)
      : api
          .listV3<ProjectEnvVarAttributes>(`/projects/${p.id}/environment-variables`)
          .then((items) => items.map((i) => i.attributes.name)),
    p.webhooks
      ? p.webhooks.map((w) => w.name)
      : api
          .listV3<WebhookAttributes>("/webhooks", { "filter[project_id]": p.id })
          .then((items) => items.map((i) => i.attributes.name)),
    p.pipelines
      ? p.pipelines.map((x) => ({ id: x.id, name: x.name }))
      : api
          .listV3<PipelineAttributes>("/pipelines", { "filter[project_id]": p.id })
          .then((items) => items.map((i) => ({ id: i.id ?? "", name: i.attributes.name }))),
    p.triggers
      ? p.triggers
      : api
          .listV3<TriggerAttributes>("/triggers", { "filter[project_id]": p.id })
          .then((items): LiveTrigger[] => items.map(toLiveTrigger)),
  ]);
  for (const name of env) emit(addr.projectEnvVar(slug, name), "project_env_var", !p.env);
  for (const name of webhooks) emit(addr.webhook(slug, name), "webhook", !p.webhooks);
  // The synthetic OAuth pipeline and its trigger (spec: api-v3.md Pipelines, Triggers) are
  // listed but can never be managed (design.md §1 "Identity"): they are left out. A read
  // plan marked them already; listed here, each is told apart by its probe (src/live/synthetic.ts).
  const synthetic = new Set(
    p.pipelines
      ? p.pipelines.filter((x) => x.synthetic).map((x) => x.id)
      : (
          await Promise.all(
            pipelines.map(async (x) => ((await probeSynthetic(api, x.id)) ? [x.id] : [])),
          )
        ).flat(),
  );
  const pipelineName = new Map(pipelines.map((x) => [x.id, x.name]));
  for (const x of pipelines) {
    if (!synthetic.has(x.id)) emit(addr.pipeline(slug, x.name), "pipeline", !p.pipelines);
  }
  for (const t of triggers) {
    if (t.synthetic || synthetic.has(t.pipeline_id)) continue;
    const pipeline = pipelineName.get(t.pipeline_id) ?? t.pipeline_id;
    // A trigger is unmanaged when its pipeline is, or when its declared pipeline leaves
    // `triggers` out; a trigger of an undeclared pipeline in a managed collection goes with
    // its pipeline's delete.
    const declaredPipeline = decl.pipelines?.get(pipeline);
    const unmanaged = p.pipelines === undefined || declaredPipeline?.triggers === undefined;
    const planned = p.pipelines !== undefined && declaredPipeline === undefined;
    emit(addr.trigger(slug, pipeline, liveTriggerKey(t)), "trigger", unmanaged && !planned);
  }
};
