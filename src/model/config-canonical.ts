/**
 * The canonical form of a resolved config, shared by the saved plan's config digest
 * (src/config/digest.ts) and the plan digest (src/plan/digest.ts): object keys sorted, Maps
 * as objects, every secret replaced by `{ "secret": origin }` (never its value, nor a hash
 * of one), source locations and file names left out.
 *
 * Decision: locations and file names are not part of it, so moving a block between files or
 * lines changes neither digest; what is declared does.
 */
import { isSourceLocation } from "../core/errors.js";
import { isSecret } from "../core/secret.js";

export const canonicalConfig = (v: unknown): unknown => {
  if (isSecret(v)) return { secret: v.origin };
  if (v instanceof Map) return canonicalConfig(Object.fromEntries(v));
  if (Array.isArray(v)) return v.map(canonicalConfig);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      // Only an item's location is left out: a trigger's `event.webhook.source` is config.
      if (k === "source" && isSourceLocation(x)) continue;
      out[k] = canonicalConfig(x);
    }
    return out;
  }
  return v;
};
