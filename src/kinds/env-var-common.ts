/**
 * What context and project env vars share: identity by name, a value that is always
 * sensitive, and the last-four comparison (design.md §1 "Secrets"). Each kind adds its own
 * calls, which is where the two really differ. (`defineFlatKind` gives the rest: an unmatched
 * live variable is addressed by its name, and there is no `id:` pin.)
 */
import type { DesiredEnvVar } from "../model/desired.js";
import type { LiveEnvVar } from "../model/live.js";
import { addSecret, compareSecret, newComparison } from "./compare.js";
import type { ConfigPart, ResourceKind } from "./contract.js";
import { SENSITIVE } from "./values.js";

export type EnvVarKindBase = Pick<
  ResourceKind<DesiredEnvVar, LiveEnvVar>,
  "desiredKey" | "liveKey" | "liveId" | "desiredView" | "liveView" | "compare" | "unresolvedSecrets"
>;

export const envVarKindBase: EnvVarKindBase = {
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveId: () => undefined,
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
};

/** An `env:` map of a context or a project: `NAME: value` (always a secret). */
export const envVarConfig: ConfigPart<DesiredEnvVar, string> = {
  yamlKey: "env",
  shape: "map",
  schemaDef: "envMap",
  secretPaths: [{ at: [], field: "env", where: "env values" }],
  summary: { key: "env_vars", one: "env var" },
  build: (ctx, name, _raw, path) => ({ name, value: ctx.secret(path), source: ctx.at(path) }),
};
