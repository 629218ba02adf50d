/**
 * A VCS repository as a config writes it (pipelines' `config.vcs` and `checkout.vcs`,
 * triggers' `event.vcs`; spec: api-v3.md Pipelines, Triggers) and as the desired model keeps it.
 */
import { isUuid } from "../core/uuid.js";
import type { VcsRepo } from "../model/desired.js";
import type { ConfigBuildContext } from "./contract.js";
import { keysOf } from "./raw-keys.js";

export interface RawVcsRepo {
  provider: string;
  repo_id: string;
  repo_full_name: string;
}

/** The schema's `vcsRepo` object (pipelines' and triggers' `schemaKeys` name it). */
export const VCS_REPO_KEYS = keysOf<RawVcsRepo>()(
  ["provider", "repo_id", "repo_full_name"],
  ["provider", "repo_id", "repo_full_name"],
);

export const buildVcs = (ctx: ConfigBuildContext, r: RawVcsRepo): VcsRepo => ({
  provider: ctx.text(r.provider),
  repo_id: ctx.text(r.repo_id),
  repo_full_name: ctx.text(r.repo_full_name),
});

/**
 * A UUID in lower case; anything else (a slug, `all-members`) as it is. Ids are UUIDs
 * (spec: api-v3.md Envelopes rule 1), which the service writes in lower case; an id written
 * in upper case is the same id, so it is lowered once, when the config is read, and every
 * comparison after (restriction keys, duplicates, pins) meets one spelling.
 */
export const lowerUuid = (v: string): string => (isUuid(v) ? v.toLowerCase() : v);
