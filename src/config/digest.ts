import { createHash } from "node:crypto";
import { canonicalConfig } from "../model/config-canonical.js";
import type { DesiredConfig } from "../model/desired.js";

/**
 * sha256 (hex) of the canonical JSON of the resolved config, without secret values
 * (src/model/config-canonical.ts).
 */
export const configDigest = (config: DesiredConfig): string =>
  createHash("sha256")
    .update(JSON.stringify(canonicalConfig(config.orgs)))
    .digest("hex");
