/**
 * SSO group mappings (src/kinds/sso-group-mappings.ts; spec: api-v3.md Orgs: GET and PUT
 * `/orgs/:id/sso-group-mappings`, the PUT "replaces all"), as pure code: one singleton per
 * org, compared as a set of (IdP group name, group id) pairs; one PUT sends the whole set
 * when it differs, sorted; a group named in the config resolves through the org's groups, to
 * a param filled at apply when this plan creates the group. No secrets.
 *
 * Group ids here are lower-case UUIDs: how the case of an id is treated is not this file's
 * business.
 */
import { describe, expect, it } from "vitest";
import type { KindEnv } from "../../src/kinds/contract.js";
import { ssoGroupMappingsKind } from "../../src/kinds/sso-group-mappings.js";
import type { DesiredSsoGroupMappings } from "../../src/model/desired.js";
import type { LiveSsoGroupMappings } from "../../src/model/live.js";
import { source } from "../helpers/builders.js";

const G_OPS = "11111111-1111-4111-8111-111111111111";
const G_DEV = "22222222-2222-4222-8222-222222222222";

const env: KindEnv = {
  orgId: "org-1",
  projectId: () => undefined,
  refId: (_to, name) =>
    name === "ops" ? G_OPS : name === "new-team" ? { pending: 'group["new-team"]' } : undefined,
  forceSecrets: false,
};

const dMappings = (...pairs: [string, string][]): DesiredSsoGroupMappings => ({
  source,
  mappings: pairs.map(([idp_group_name, group]) => ({ idp_group_name, group, source })),
});
const lMappings = (...pairs: [string, string, string?][]): LiveSsoGroupMappings => ({
  mappings: pairs.map(([idp_group_name, group_id, group_name]) => ({
    idp_group_name,
    group_id,
    ...(group_name === undefined ? {} : { group_name }),
  })),
});
const pair = (idp: string, id: string | null) => ({
  attributes: { idp_group_name: idp },
  references: { group: { id } },
});

const k = ssoGroupMappingsKind;

describe("sso group mappings", () => {
  it("is a singleton: one key, no id, no pin", () => {
    const l = lMappings();
    expect([k.desiredKey(dMappings()), k.liveKey(l), k.liveAddressKey(l)]).toEqual([
      "sso_group_mappings",
      "sso_group_mappings",
      "sso_group_mappings",
    ]);
    expect(k.liveId(l)).toBeUndefined();
    expect(k.pinnedId(dMappings())).toBeUndefined();
    expect(k.replaceOrder).toBe("never");
  });

  it("compares as a set: order does not matter, a group by name is its id", () => {
    const d = dMappings(["okta-dev", G_DEV], ["okta-ops", "ops"]);
    const l = lMappings(["okta-ops", G_OPS], ["okta-dev", G_DEV]);
    expect(k.compare(d, l, env)).toMatchObject({ fields: [], replace_reasons: [] });
  });

  it("a different set is one in-place change of `mappings`, both sides sorted by IdP name", () => {
    const c = k.compare(
      dMappings(["okta-ops", "ops"], ["okta-dev", G_DEV]),
      lMappings(["okta-ops", G_DEV]),
      env,
    );
    expect(c.fields).toEqual([
      {
        path: "mappings",
        before: [pair("okta-ops", G_DEV)],
        after: [pair("okta-dev", G_DEV), pair("okta-ops", G_OPS)],
      },
    ]);
    expect(c.replace_reasons).toEqual([]);
    // An empty list is the whole set too: it removes every live pair.
    expect(k.compare(dMappings(), lMappings(["okta-ops", G_OPS]), env).fields).toHaveLength(1);
  });

  it("one PUT sends the whole set; no create, no delete", () => {
    const c = k.compare(dMappings(["okta-ops", "ops"]), lMappings(), env);
    expect(k.updateCalls(c.fields)).toEqual([
      expect.objectContaining({
        phase: "update",
        method: "PUT",
        api: "v3",
        route: "/orgs/{org_id}/sso-group-mappings",
        body: "envelope",
        body_fields: ["mappings"],
        sensitive_fields: [],
      }),
    ]);
    expect(k.updateCalls(c.fields)[0]?.param_fields).toBeUndefined();
    expect(k.createCalls(dMappings())).toEqual([]);
    expect(k.deleteCalls()).toEqual([]);
  });

  it("a group this plan creates is a pending param, filled into its pair at apply", () => {
    const d = dMappings(["okta-ops", "ops"], ["okta-new", "new-team"]);
    const c = k.compare(d, lMappings(["okta-ops", G_OPS]), env);
    // Sorted: okta-new is pair 0, and has no id yet.
    expect(c.fields[0]?.after).toEqual([pair("okta-new", null), pair("okta-ops", G_OPS)]);
    expect(k.updateCalls(c.fields)[0]?.param_fields).toEqual({
      "mappings.0.references.group.id": "group_id_0",
    });
    expect(k.refParams?.(d, env)).toEqual({ group_id_0: { pending: 'group["new-team"]' } });
  });

  it("export writes each pair's group by name when known, else by id, sorted", () => {
    const out = k.toConfig(
      [lMappings(["okta-ops", G_OPS, "ops"], ["okta-dev", G_DEV])],
      {},
      { env: () => expect.unreachable() as never },
    );
    expect(out).toEqual([
      {
        written: "sso_group_mappings",
        item: expect.anything(),
        doc: [
          { idp_group_name: "okta-dev", group: G_DEV },
          { idp_group_name: "okta-ops", group: "ops" },
        ],
      },
    ]);
  });

  it("an uncertain PUT is sent again (it replaces the whole set)", () => {
    expect(k.adopt.by).toBe("resend");
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/no name/);
  });
});
