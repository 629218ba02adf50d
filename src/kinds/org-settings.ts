/**
 * Org settings (spec: api-v3.md "Org settings", Orgs: `POST /orgs/:id/update-settings`).
 * A singleton: never created or deleted; only the declared keys are managed, and an update
 * sends only the declared keys that differ (design.md §1 "Ownership").
 */
import type { OrgSettingsAttributes } from "../api/wire.js";
import { type DesiredOrg, ORG_SETTING_NAMES } from "../model/desired.js";
import { call } from "./calls.js";
import { addFields, compareFields, newComparison } from "./compare.js";
import type { ResourceKind } from "./contract.js";
import { declaredSettings, settingsRules } from "./settings-common.js";
import { toJsonObject } from "./values.js";

/** The declared settings as the config holds them (with its `source`). */
export type OrgSettingsDesired = NonNullable<DesiredOrg["settings"]>;

export const orgSettingsKind: ResourceKind<OrgSettingsDesired, OrgSettingsAttributes> = {
  type: "org_settings",
  parent: "org",
  replaceOrder: "never",
  replaceOrderWhy: "a singleton: it always exists and is only updated",
  desiredKey: () => "settings",
  liveKey: () => "settings",
  liveAddressKey: () => "settings",
  liveId: () => undefined,
  pinnedId: () => undefined,
  desiredView: (d) => declaredSettings(d, ORG_SETTING_NAMES),
  liveView: (l) => toJsonObject(l),
  compare: (d, l) => {
    const declared = declaredSettings(d, ORG_SETTING_NAMES);
    const acc = newComparison();
    addFields(acc, compareFields(declared, toJsonObject(l), settingsRules(declared)));
    return acc;
  },
  unresolvedSecrets: () => [],
  createCalls: () => [],
  updateCalls: (fields) => [
    call("update", "POST", "/orgs/{org_id}/update-settings", {
      body: "flat",
      body_fields: fields.map((f) => f.path),
    }),
  ],
  deleteCalls: () => [],
};
