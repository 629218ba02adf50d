/**
 * What context and project env vars share, as groups of the grouped spec (`defineKind`):
 * identity by name (no id, and no rename: a variable is set by name and its value is never
 * returned), a value that is always sensitive with the last-four comparison (design.md §1
 * "Secrets"), the `env` map of the config, and the place: `<parent>.env["NAME"]`, the name
 * filling the calls' `name` param. Each kind adds its own calls, which is where the two
 * really differ, and its type, parent and replace order.
 */
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { addSecret, compareSecret, newComparison } from "./compare.js";
import { cannotRename } from "./contract.js";
import type { ConfigGroup, DiffGroup, IdentityGroup } from "./grouped.js";
import { SENSITIVE } from "./values.js";

type D = DesiredEnvVar;
type L = LiveEnvVar;

export const envVarIdentity: Omit<IdentityGroup<D, L, "context" | "project">, "type" | "parent"> = {
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveId: () => undefined,
  // spec: api-v3.md Context / Project environment variables: a variable is set by name, and
  // its value is never returned, so a new name is a new variable that cannot be copied.
  rename: cannotRename(
    "an environment variable is set by name and its value is never returned, so a new name is a new variable: declare it under the new name (the old one is deleted)",
  ),
};

export const envVarDiff: DiffGroup<D, L, { name: string; value: string }> = {
  desiredView: (d) => ({ name: d.name, value: SENSITIVE }),
  liveView: (l) => ({ name: l.name, value: SENSITIVE }),
  compare: (d, l, env) => {
    const acc = newComparison();
    // Decision: a live variable without `truncated_value` (not returned) cannot be
    // compared, so it is "unverified" rather than re-set on every apply.
    const outcome = compareSecret(
      d.value,
      { present: true, lastFour: l.truncated_value },
      env.forceSecrets,
    );
    addSecret(acc, "value", outcome, true);
    return acc;
  },
  unresolvedSecrets: (d) => (d.value.isResolved ? [] : ["value"]),
  // Never the last four (a secret's part).
  fingerprint: (l) => ({ name: l.name }),
};

/** Addressed `env["NAME"]` under its parent; the name fills the calls' `name` param. */
export const envVarPlace = {
  collection: { segment: { name: "env", keyed: true }, keyParam: "name" },
} as const;

/** An `env:` map of a context or a project: `NAME: value` (always a secret). */
export const envVarConfig: Omit<ConfigGroup<D, L>, "export"> = {
  yamlKey: "env",
  schemaDef: "envMap",
  secretPaths: [{ at: [], field: "env", where: "env values" }],
  summary: { key: "env_vars", one: "env var" },
  build: (ctx, name, _raw: string, path) => ({
    name,
    value: ctx.secret(path),
    source: ctx.at(path),
  }),
};
