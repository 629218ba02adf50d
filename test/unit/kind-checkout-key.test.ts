/**
 * Checkout keys (src/kinds/checkout-key.ts; spec: api-v2-v1.md "Checkout key", Endpoints
 * (V2)), as pure code: identity = type (a live `<vcs>-user-key` is the declared `user-key`);
 * a key has nothing to update, so it is only created or deleted; the service makes the pair,
 * so no call carries a secret; export writes one entry per type.
 */
import { describe, expect, it } from "vitest";
import { checkoutKeyKind, checkoutKeyType } from "../../src/kinds/checkout-key.js";
import type { LiveCheckoutKey } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dProject,
  live,
  lOrg,
  lProject,
  PROJECT,
  source,
} from "../helpers/builders.js";

describe("checkout keys", () => {
  it("a live <vcs>-user-key is the declared user-key (spec: `deploy-key` or a `<vcs>-user-key`)", () => {
    expect(checkoutKeyType("deploy-key")).toBe("deploy-key");
    expect(checkoutKeyType("github-user-key")).toBe("user-key");
    expect(checkoutKeyType("bitbucket-user-key")).toBe("user-key");
    expect(checkoutKeyType("user-key")).toBe("user-key");
    expect(checkoutKeyType("mystery")).toBe("mystery");
  });

  it("plans nothing for matching types, creates a missing one and deletes an undeclared one", () => {
    const key = (type: string, fingerprint: string, preferred = false) => ({
      type,
      fingerprint,
      public_key: "ssh-ed25519 AAAA",
      preferred,
    });
    const p = planChanges(
      desired(
        dOrg({
          projects: [
            {
              ...dProject(PROJECT),
              checkout_keys: [
                { type: "user-key", source },
                { type: "deploy-key", source },
              ],
            },
          ],
        }),
      ),
      live(
        lOrg({
          projects: [
            lProject(PROJECT, {
              checkout_keys: [
                key("github-user-key", "SHA256:u"),
                key("deploy-key", "SHA256:a"),
                key("deploy-key", "SHA256:b", true),
              ],
            }),
          ],
        }),
      ),
    );
    // Two live deploy keys: the preferred one is kept, the other is a surplus.
    expect(p.changes.map((c) => [c.action, c.address, c.params.id])).toEqual([
      ["delete", `project["${PROJECT}"].checkout_key["deploy-key#SHA256:a"]`, "SHA256:a"],
    ]);
    expect(p.changes[0]?.calls.map((c) => `${c.method} ${c.api} ${c.route}`)).toEqual([
      "DELETE v2 /project/{project_slug}/checkout-key/{id}",
    ]);
    expect(p.changes[0]?.params.project_slug).toBe(PROJECT);
  });

  it("export writes one entry per type; several keys of one type, or a type the config cannot say, go under ignore", () => {
    const key = (type: string, fingerprint: string) => ({
      type,
      fingerprint,
      public_key: "",
      preferred: false,
    });
    const ctx = { env: () => expect.unreachable() as never };
    const out = checkoutKeyKind.toConfig(
      [
        key("deploy-key", "a"),
        key("deploy-key", "b"),
        key("gitlab-user-key", "c"),
        key("odd", "d"),
      ],
      { project: PROJECT },
      ctx,
    );
    expect(
      out.map((e) => ("written" in e ? `written ${e.written}` : `ignored ${e.ignored.glob}`)),
    ).toEqual([
      `ignored project["${PROJECT}"].checkout_key["deploy-key"]`,
      `ignored project["${PROJECT}"].checkout_key["odd"]`,
      "written user-key",
    ]);
  });

  it("a create is one V2 POST of the type, announced with its fingerprint and public key", () => {
    expect(checkoutKeyKind.createCalls({ type: "deploy-key", source })).toEqual([
      expect.objectContaining({ method: "POST", api: "v2", body: "flat", body_fields: ["type"] }),
    ]);
    const l = checkoutKeyKind.announce?.fromResponse({
      "public-key": "ssh-ed25519 AAAAxyz",
      type: "deploy-key",
      fingerprint: "aa:bb",
      preferred: true,
    });
    expect(l && checkoutKeyKind.announce?.note(l)).toBe(
      "deploy-key fingerprint aa:bb, public key ssh-ed25519 AAAAxyz",
    );
    expect(checkoutKeyKind.announce?.fromResponse({ message: "no" })).toBeUndefined();
  });
});

describe("checkout key: pure members", () => {
  const k = checkoutKeyKind;
  const lKey = (type: string, fingerprint: string, preferred = false): LiveCheckoutKey => ({
    type,
    fingerprint,
    public_key: "ssh-ed25519 AAAA",
    preferred,
  });

  it("identity is the config's type; the fingerprint is the live id", () => {
    expect(k.desiredKey({ type: "user-key", source })).toBe("user-key");
    const l = lKey("github-user-key", "SHA256:x");
    expect([k.liveKey(l), k.liveAddressKey(l), k.liveId(l)]).toEqual([
      "user-key",
      "user-key",
      "SHA256:x",
    ]);
    expect(k.pinnedId({ type: "deploy-key", source })).toBeUndefined();
  });

  it("of several live keys of one type, the preferred one is the match", () => {
    const d = { type: "deploy-key" as const, source };
    expect(k.tiebreak?.(d, lKey("deploy-key", "a", true))).toBe(true);
    expect(k.tiebreak?.(d, lKey("deploy-key", "b", false))).toBe(false);
  });

  it("nothing compares once the type matches: no fields, no update calls, never replaced", () => {
    const c = k.compare({ type: "deploy-key", source }, lKey("deploy-key", "a"), {
      orgId: "org-1",
      projectId: () => undefined,
      refId: () => undefined,
      forceSecrets: true,
    });
    expect(c).toMatchObject({ fields: [], replace_reasons: [], unverified: [], skipped: [] });
    expect(k.updateCalls([])).toEqual([]);
    expect(k.replaceOrder).toBe("never");
    expect(k.unresolvedSecrets({ type: "deploy-key", source })).toEqual([]);
  });

  it("create and delete are V2 calls by project slug; neither carries a secret", () => {
    const calls = [...k.createCalls({ type: "user-key", source }), ...k.deleteCalls()];
    expect(calls.map((c) => [c.phase, c.method, c.api, c.route, c.body_fields])).toEqual([
      ["create", "POST", "v2", "/project/{project_slug}/checkout-key", ["type"]],
      ["delete", "DELETE", "v2", "/project/{project_slug}/checkout-key/{id}", []],
    ]);
    expect(calls.flatMap((c) => c.sensitive_fields)).toEqual([]);
  });

  it("export writes the config's type word, sorted", () => {
    const out = k.toConfig(
      [lKey("github-user-key", "u"), lKey("deploy-key", "d")],
      { project: PROJECT },
      { env: () => expect.unreachable() as never },
    );
    expect(out.map((e) => ("written" in e ? [e.written, e.doc] : e.ignored.glob))).toEqual([
      ["deploy-key", "deploy-key"],
      ["user-key", "user-key"],
    ]);
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/identified by its type/);
  });
});
