/**
 * The resolved desired items by org and address, so apply can take secret values from the
 * config (the plan never holds one: design.md §1 "Secrets") and match re-listed items by
 * the kind's identity key.
 */
import { desiredRestrictionValue } from "../kinds/context-restriction.js";
import { addr } from "../model/address.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredEnvVar,
  DesiredPipeline,
  DesiredRestriction,
  DesiredTrigger,
  DesiredWebhook,
} from "../model/desired.js";

export type DesiredItem =
  | { readonly type: "context"; readonly item: DesiredContext }
  | { readonly type: "context_env_var"; readonly item: DesiredEnvVar }
  | { readonly type: "context_restriction"; readonly item: DesiredRestriction }
  | { readonly type: "project_env_var"; readonly item: DesiredEnvVar }
  | { readonly type: "webhook"; readonly item: DesiredWebhook }
  | { readonly type: "pipeline"; readonly item: DesiredPipeline }
  | { readonly type: "trigger"; readonly item: DesiredTrigger };

export interface DesiredIndex {
  get(org: string, address: string): DesiredItem | undefined;
}

const key = (org: string, address: string): string => `${org}\u0000${address}`;

export const indexDesired = (desired: DesiredConfig): DesiredIndex => {
  const items = new Map<string, DesiredItem>();
  for (const org of desired.orgs) {
    const put = (address: string, item: DesiredItem): void => {
      items.set(key(org.slug, address), item);
    };
    for (const c of org.contexts?.values() ?? []) {
      put(addr.context(c.name), { type: "context", item: c });
      for (const e of c.env?.values() ?? []) {
        put(addr.contextEnvVar(c.name, e.name), { type: "context_env_var", item: e });
      }
      for (const r of c.restrictions ?? []) {
        put(addr.contextRestriction(c.name, r.type, desiredRestrictionValue(r)), {
          type: "context_restriction",
          item: r,
        });
      }
    }
    for (const [slug, p] of org.projects) {
      for (const e of p.env?.values() ?? []) {
        put(addr.projectEnvVar(slug, e.name), { type: "project_env_var", item: e });
      }
      for (const w of p.webhooks?.values() ?? []) {
        put(addr.webhook(slug, w.name), { type: "webhook", item: w });
      }
      for (const pl of p.pipelines?.values() ?? []) {
        put(addr.pipeline(slug, pl.name), { type: "pipeline", item: pl });
        for (const t of pl.triggers?.values() ?? []) {
          put(addr.trigger(slug, pl.name, t.key), { type: "trigger", item: t });
        }
      }
    }
  }
  return { get: (org, address) => items.get(key(org, address)) };
};
