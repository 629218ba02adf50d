/**
 * The canonical form of a resolved config, shared by the saved plan's config digest
 * (src/config/digest.ts) and the plan digest (src/plan/digest.ts): object keys sorted, Maps
 * as objects, every secret replaced by `{ "secret": origin }` (never its value, nor a hash
 * of one), source locations and file names left out.
 *
 * `secretForm`: what a secret becomes (its origin, by default); the comparison of two configs
 * (src/plan/scope.ts) also tells two literal values apart, never publishing either.
 *
 * Decision: locations and file names are not part of it, so moving a block between files or
 * lines changes neither digest; what is declared does.
 */
import { isSourceLocation } from "../core/errors.js";
import { isSecret, type Secret } from "../core/secret.js";

export const canonicalConfig = (
  v: unknown,
  secretForm: (s: Secret) => unknown = (s) => ({ secret: s.origin }),
): unknown => {
  if (isSecret(v)) return secretForm(v);
  if (v instanceof Map) return canonicalConfig(Object.fromEntries(v), secretForm);
  if (Array.isArray(v)) return v.map((x) => canonicalConfig(x, secretForm));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      // Only an item's location is left out: a trigger's `event.webhook.source` is config.
      if (k === "source" && isSourceLocation(x)) continue;
      out[k] = canonicalConfig(x, secretForm);
    }
    return out;
  }
  return v;
};
