/**
 * Org settings (spec: api-v3.md "Org settings", Orgs: `POST /orgs/:id/update-settings`).
 * A singleton: never created or deleted; only the declared keys are managed, and an update
 * sends only the declared keys that differ (design.md §1 "Ownership").
 */
import type { OrgSettingsAttributes } from "../core/wire.js";
import { addr } from "../model/address.js";
import { type DesiredOrg, ORG_SETTING_NAMES } from "../model/desired.js";
import { scopeId } from "./listing.js";
import { settingsKind } from "./settings-common.js";

/** The declared settings as the config holds them (with its `source`). */
export type OrgSettingsDesired = NonNullable<DesiredOrg["settings"]>;

export const orgSettingsKind = settingsKind<OrgSettingsDesired, OrgSettingsAttributes, "org">({
  type: "org_settings",
  parent: "org",
  names: ORG_SETTING_NAMES,
  updateRoute: "/orgs/{org_id}/update-settings",
  // spec: api-v3.md Orgs: GET /orgs/:id/settings is a singleton (no id).
  readRoute: (scope) => `/orgs/${scopeId(scope, "org_id")}/settings`,
  place: {
    under: "org",
    // Also read with contexts: the org setting is_context_group_restriction_required
    // decides whether a new context may be planned without a group restriction (src/plan).
    readFor: (org) => org.settings !== undefined || org.contexts !== undefined,
    store: (items) => ({ settings: items[0] }),
    stored: (org) => (org.settings === undefined ? undefined : [org.settings]),
  },
  declared: function* (org) {
    if (org.settings !== undefined) yield { address: addr.orgSettings(), item: org.settings };
  },
  read: function* (org) {
    if (org.settings !== undefined) yield { key: "org_settings", item: org.settings };
  },
  name: "org_settings",
  yamlKey: "settings",
  schemaDef: "orgSettings",
  // Two files of one org both declaring `settings:` is an error naming both places.
  declares: "key",
  desiredIn: (org) => org.settings,
  liveIn: (org) => org.settings,
});
