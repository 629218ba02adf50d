/**
 * What `waybill export` reads: everything of one org (settings, every context with its env
 * vars and restrictions) and of the chosen projects, as the kinds' `list` returned it, in
 * the live model the planner compares (src/model/live.ts): every collection read, `projects`
 * holding the chosen projects. Values of secrets are never part of it: the API never returns
 * them (design.md §1 "Secrets").
 */
import type { LiveOrg } from "../model/live.js";

export type ExportSnapshot = LiveOrg & {
  /**
   * Ids of listed projects no config key can name (docs/spec-notes.md "Reading the real
   * service": listed without a slug, and without a name in an org of an OAuth VCS provider):
   * not read, and written under `ignore` with why.
   */
  readonly unnamedProjects?: readonly string[];
};
