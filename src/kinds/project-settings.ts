/**
 * Project settings (spec: api-v3.md "Project settings", Projects:
 * `POST /projects/:id/update-settings`). A singleton like org settings;
 * `pr_only_branch_overrides` is a list the service keeps unordered, so it compares as a set.
 */
import type { ProjectSettingsAttributes } from "../core/wire.js";
import { addr } from "../model/address.js";
import { type DesiredProject, PROJECT_SETTING_NAMES } from "../model/desired.js";
import { foundProjects, scopeId } from "./listing.js";
import { settingsKind } from "./settings-common.js";

export type ProjectSettingsDesired = NonNullable<DesiredProject["settings"]>;

export const projectSettingsKind = settingsKind<
  ProjectSettingsDesired,
  ProjectSettingsAttributes,
  "project"
>({
  type: "project_settings",
  parent: "project",
  names: PROJECT_SETTING_NAMES,
  updateRoute: "/projects/{project_id}/update-settings",
  readRoute: (scope) => `/projects/${scopeId(scope, "project_id")}/settings`,
  place: {
    under: "project",
    readFor: (decl) => decl.settings !== undefined,
    store: (items) => ({ settings: items[0] }),
    stored: (p) => (p.settings === undefined ? undefined : [p.settings]),
  },
  declared: function* (org) {
    for (const [slug, p] of org.projects) {
      if (p.settings !== undefined) yield { address: addr.projectSettings(slug), item: p.settings };
    }
  },
  read: function* (org) {
    for (const [slug, p] of foundProjects(org)) {
      if (p.settings !== undefined) yield { key: `project:${slug}|settings`, item: p.settings };
    }
  },
  name: "settings",
  yamlKey: "settings",
  schemaDef: "projectSettings",
  desiredIn: (p) => p.settings,
  liveIn: (p) => p.settings,
});
