/**
 * Where apply finds a change's secret values: a plan names its sensitive body fields
 * (`ApiCall.sensitive_fields`) but never holds a value (design.md §1 "Secrets"), so the
 * executor looks them up in the resolved config by org and address. Pure.
 */

import { isSecret, Secret } from "../core/secret.js";
import { parseAddress } from "../model/address.js";
import type { DesiredConfig } from "../model/desired.js";

/**
 * The secrets of the desired item at `address` in `org`, keyed by the field path the
 * plan's calls use (`value`, `url`, `signing_secret`, `event.webhook.secret`). Empty when
 * the item has none or is not declared.
 */
export const desiredSecrets = (
  desired: DesiredConfig,
  org: string,
  address: string,
): ReadonlyMap<string, Secret> => {
  const out = new Map<string, Secret>();
  const seg = parseAddress(address);
  if (!seg) return out;
  const [a, b, c] = seg;
  for (const o of desired.orgs) {
    if (o.slug !== org) continue;
    if (a?.name === "context" && a.key !== undefined && b?.name === "env" && b.key !== undefined) {
      const v = o.contexts?.get(a.key)?.env?.get(b.key);
      if (v) out.set("value", v.value);
    }
    if (a?.name !== "project" || a.key === undefined || b?.key === undefined) continue;
    const p = o.projects.get(a.key);
    if (!p) continue;
    if (b.name === "env" && seg.length === 2) {
      const v = p.env?.get(b.key);
      if (v) out.set("value", v.value);
    } else if (b.name === "webhook" && seg.length === 2) {
      const w = p.webhooks?.get(b.key);
      // A plain url too: the plan holds every webhook url masked (src/plan/mask-urls.ts),
      // so apply takes it from the config whether or not it came from `${env:…}`.
      if (w) out.set("url", isSecret(w.url) ? w.url : new Secret(w.url, "config"));
      if (w?.signing_secret) out.set("signing_secret", w.signing_secret);
    } else if (b.name === "pipeline" && c?.name === "trigger" && c.key !== undefined) {
      const t = p.pipelines?.get(b.key)?.triggers?.get(c.key);
      if (t?.event.webhook?.secret) out.set("event.webhook.secret", t.event.webhook.secret);
    }
  }
  return out;
};
