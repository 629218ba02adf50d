import { createHash } from "node:crypto";
import { isSourceLocation } from "../core/errors.js";
import { isSecret } from "../core/secret.js";
import type { DesiredConfig } from "../model/desired.js";

/**
 * A canonical JSON form of the config: object keys sorted, Maps as objects, every secret
 * replaced by `{ "secret": origin }` (never its value), source locations and file names
 * left out.
 *
 * Decision: locations and file names are not part of the digest, so moving a block
 * between files or lines does not make a saved plan stale; what is declared does.
 */
const canonical = (v: unknown): unknown => {
  if (isSecret(v)) return { secret: v.origin };
  if (v instanceof Map) return canonical(Object.fromEntries(v));
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      // Only an item's location is left out: a trigger's `event.webhook.source` is config.
      if (k === "source" && isSourceLocation(x)) continue;
      out[k] = canonical(x);
    }
    return out;
  }
  return v;
};

/** sha256 (hex) of the canonical JSON of the resolved config, without secret values. */
export const configDigest = (config: DesiredConfig): string =>
  createHash("sha256")
    .update(JSON.stringify(canonical(config.orgs)))
    .digest("hex");
