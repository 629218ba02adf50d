import type { ResourceKind } from "../kinds/contract.js";
import { ALL_KINDS, kindOf } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";
import type { DesiredConfig, DesiredOrg } from "../model/desired.js";

/**
 * What a config declares, counted (for `waybill validate`'s one-line summary and its JSON).
 * The counts come from the kinds (`config.summary`, src/kinds/contract.ts): a new kind is
 * counted without an edit here.
 */
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
  /** Every other kind's count, by its `config.summary.key` (otel_exporters, checkout_keys…). */
  readonly [count: string]: number | readonly string[];
}

/**
 * The counts every summary shows, in the order of its line (the JSON and the line of a
 * config without the later kinds stay as they were); other kinds follow, when they have items.
 */
const ALWAYS = [
  "contexts",
  "restrictions",
  "projects",
  "env_vars",
  "webhooks",
  "pipelines",
  "triggers",
] as const;

/** The words of each count, from the kinds, plus the projects (which are not a kind). */
const words = (): Map<string, { one: string; many: string }> => {
  const out = new Map<string, { one: string; many: string }>([
    ["projects", { one: "project", many: "projects" }],
  ]);
  for (const kind of ALL_KINDS) {
    const s = kind.config.summary;
    if (s !== undefined && !out.has(s.key))
      out.set(s.key, { one: s.one, many: s.many ?? `${s.one}s` });
  }
  return out;
};

/**
 * The declared parents of a kind's items in an org: the org, its projects, or the declared
 * items of the parent kind (a trigger's pipelines), each a kind's `collection.desiredIn`.
 */
const declaredParents = (org: DesiredOrg, parent: string): readonly unknown[] => {
  if (parent === "org") return [org];
  if (parent === "project") return [...org.projects.values()];
  const kind = kindOf(parent as ResourceType);
  return declaredParents(org, kind.parent).flatMap(
    (p) => kind.collection.desiredIn(p as never) ?? [],
  );
};

/**
 * How many items of a kind an org declares: the sizes of its collections, not its
 * `desiredItems` (which makes every item's address: ~70 ms and 30 MB of garbage for the
 * 40,000-item config, issue 33). test/unit/config-summary.test.ts checks both agree.
 */
const countDeclared = (org: DesiredOrg, kind: ResourceKind<unknown, unknown>): number => {
  let n = 0;
  for (const parent of declaredParents(org, kind.parent)) {
    n += kind.collection.desiredIn(parent as never)?.length ?? 0;
  }
  return n;
};

export const summarizeConfig = (config: DesiredConfig): ConfigSummary => {
  const counts = new Map<string, number>([...words().keys()].map((k) => [k, 0]));
  const add = (key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);
  for (const org of config.orgs) {
    add("projects", org.projects.size);
    for (const kind of ALL_KINDS) {
      const key = kind.config.summary?.key;
      if (key === undefined) continue;
      add(key, countDeclared(org, kind));
    }
  }
  const summary: Record<string, number | readonly string[]> = {
    files: config.files.length,
    orgs: config.orgs.map((o) => o.slug),
  };
  for (const key of ALWAYS) summary[key] = counts.get(key) ?? 0;
  for (const [key, n] of counts) if (!(key in summary)) summary[key] = n;
  return summary as ConfigSummary;
};

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `3 files, 1 org (gh/acme): 2 contexts, 1 restriction, ...` */
export const formatSummary = (s: ConfigSummary): string => {
  const named = words();
  const part = (key: string): string => {
    const w = named.get(key) ?? { one: key, many: key };
    return count(Number(s[key] ?? 0), w.one, w.many);
  };
  const later = [...named.keys()].filter(
    (k) => !(ALWAYS as readonly string[]).includes(k) && Number(s[k] ?? 0) > 0,
  );
  return (
    `${count(s.files, "file")}, ${count(s.orgs.length, "org")} (${s.orgs.join(", ")}): ` +
    // Later kinds are said only when there are some, so the summary of a config without
    // them is unchanged.
    [...ALWAYS, ...later].map(part).join(", ")
  );
};
