/**
 * Project settings (spec: api-v3.md "Project settings", Projects:
 * `POST /projects/:id/update-settings`). A singleton like org settings;
 * `pr_only_branch_overrides` is a list the service keeps unordered, so it compares as a set.
 */
import type { ProjectSettingsAttributes } from "../api/wire.js";
import { type DesiredProject, PROJECT_SETTING_NAMES } from "../model/desired.js";
import { call } from "./calls.js";
import { addFields, compareFields, newComparison } from "./compare.js";
import type { ResourceKind } from "./contract.js";
import { declaredSettings, settingsRules } from "./settings-common.js";
import { toJsonObject } from "./values.js";

export type ProjectSettingsDesired = NonNullable<DesiredProject["settings"]>;

export const projectSettingsKind: ResourceKind<ProjectSettingsDesired, ProjectSettingsAttributes> =
  {
    type: "project_settings",
    parent: "project",
    replaceOrder: "never",
    replaceOrderWhy: "a singleton: it always exists and is only updated",
    desiredKey: () => "settings",
    liveKey: () => "settings",
    liveAddressKey: () => "settings",
    liveId: () => undefined,
    pinnedId: () => undefined,
    desiredView: (d) => declaredSettings(d, PROJECT_SETTING_NAMES),
    liveView: (l) => toJsonObject(l),
    compare: (d, l) => {
      const declared = declaredSettings(d, PROJECT_SETTING_NAMES);
      const acc = newComparison();
      addFields(acc, compareFields(declared, toJsonObject(l), settingsRules(declared)));
      return acc;
    },
    unresolvedSecrets: () => [],
    createCalls: () => [],
    updateCalls: (fields) => [
      call("update", "POST", "/projects/{project_id}/update-settings", {
        body: "flat",
        body_fields: fields.map((f) => f.path),
      }),
    ],
    deleteCalls: () => [],
  };
