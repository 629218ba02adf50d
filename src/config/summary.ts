import type { DesiredConfig } from "../model/desired.js";

/** What a config declares, counted (for `waybill validate`'s one-line summary). */
export interface ConfigSummary {
  readonly files: number;
  readonly orgs: readonly string[];
  readonly contexts: number;
  readonly restrictions: number;
  readonly projects: number;
  readonly env_vars: number;
  readonly webhooks: number;
  readonly pipelines: number;
  readonly triggers: number;
  /** Issue 18 (added): the org-level OTLP exporters and the projects' checkout keys. */
  readonly otel_exporters: number;
  readonly checkout_keys: number;
}

export const summarizeConfig = (config: DesiredConfig): ConfigSummary => {
  let contexts = 0;
  let restrictions = 0;
  let projects = 0;
  let envVars = 0;
  let webhooks = 0;
  let pipelines = 0;
  let triggers = 0;
  let exporters = 0;
  let keys = 0;
  for (const org of config.orgs) {
    exporters += org.otel_exporters?.length ?? 0;
    for (const c of org.contexts?.values() ?? []) {
      contexts += 1;
      envVars += c.env?.size ?? 0;
      restrictions += c.restrictions?.length ?? 0;
    }
    for (const p of org.projects.values()) {
      projects += 1;
      envVars += p.env?.size ?? 0;
      webhooks += p.webhooks?.size ?? 0;
      keys += p.checkout_keys?.length ?? 0;
      for (const pl of p.pipelines?.values() ?? []) {
        pipelines += 1;
        triggers += pl.triggers?.size ?? 0;
      }
    }
  }
  return {
    files: config.files.length,
    orgs: config.orgs.map((o) => o.slug),
    contexts,
    restrictions,
    projects,
    env_vars: envVars,
    webhooks,
    pipelines,
    triggers,
    otel_exporters: exporters,
    checkout_keys: keys,
  };
};

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `3 files, 1 org (gh/acme): 2 contexts, 1 restriction, ...` */
export const formatSummary = (s: ConfigSummary): string =>
  `${count(s.files, "file")}, ${count(s.orgs.length, "org")} (${s.orgs.join(", ")}): ` +
  [
    count(s.contexts, "context"),
    count(s.restrictions, "restriction"),
    count(s.projects, "project"),
    count(s.env_vars, "env var"),
    count(s.webhooks, "webhook"),
    count(s.pipelines, "pipeline"),
    count(s.triggers, "trigger"),
    // Said only when there are some, so the summary of a config without them is unchanged.
    ...(s.otel_exporters > 0 ? [count(s.otel_exporters, "OTLP exporter")] : []),
    ...(s.checkout_keys > 0 ? [count(s.checkout_keys, "checkout key")] : []),
  ].join(", ");
