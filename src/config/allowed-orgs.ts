/**
 * Issue 43 "Allowed orgs bound every lookup" (design.md §4 "Integration": `--allowed-orgs`).
 * The allowed orgs bound more than the config's `org:`: a reference to a project of another
 * org (a context restriction's `project: gh/other/app`) would have the plan look that project
 * up and print its id, so a fork's pull request could probe any org the token can read (a
 * project declared under another org's slug is refused by validation: `project_outside_org`). Each is refused, with FILE:LINE:COL,
 * before any request. Pure.
 *
 * Decision: a project is known to be of an org by its slug (`<vcs>/<org>/<name>`: the org is
 * all but the last segment). A project or group named by id cannot be placed without a
 * request, so it is taken as written, as the service will take it: the plan resolves a group
 * only among the config's own org's groups, and a restriction's project id is sent as it is.
 */
import type { SourceLocation } from "../core/errors.js";
import { referencesWritten } from "../kinds/references.js";
import { KINDS } from "../kinds/registry.js";
import type { DesiredConfig } from "../model/desired.js";
import type { ConfigDiagnostic } from "./diagnostic.js";

/** The org of a project slug (`gh/acme/api` → `gh/acme`); undefined for a name or an id. */
export const orgOfProjectSlug = (slug: string): string | undefined => {
  const at = slug.lastIndexOf("/");
  return at <= 0 || !slug.includes("/") || slug.indexOf("/") === at ? undefined : slug.slice(0, at);
};

/** One diagnostic per reference to a project of an org outside `allowed`. */
export const outsideAllowedOrgs = (
  desired: DesiredConfig,
  allowed: readonly string[],
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  const check = (slug: string, at: SourceLocation, path: string): void => {
    const org = orgOfProjectSlug(slug);
    if (org === undefined || allowed.includes(org)) return;
    out.push({
      file: at.file,
      line: at.line,
      col: at.col,
      path,
      code: "org_not_allowed",
      message: `project ${JSON.stringify(slug)} belongs to org ${JSON.stringify(org)}, which is not among the allowed orgs (${allowed.join(", ")}; --allowed-orgs or WAYBILL_ALLOWED_ORGS), so it is not looked up; name a project of an allowed org, or allow the org`,
    });
  };
  for (const org of desired.orgs) {
    for (const { written } of referencesWritten(org, KINDS.project.type)) {
      if (written.form === "id") continue;
      check(written.value, written.source, written.path);
    }
  }
  return out;
};
