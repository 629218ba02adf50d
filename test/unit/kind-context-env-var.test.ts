/**
 * Context env vars (src/kinds/context-env-var.ts; spec: api-v3.md Contexts: `POST
 * /contexts/:id/env-vars/set`, `DELETE /contexts/:id/env-vars?filter[name]=`): identity =
 * name; create and update are the same upsert; the value is always sensitive and compared
 * by its last four only; export writes every value as a `${env:}` placeholder.
 */
import { describe, expect, it } from "vitest";
import { PlanError } from "../../src/core/errors.js";
import { Secret } from "../../src/core/secret.js";
import { type EnvNameRequest, EnvRef } from "../../src/kinds/config-doc.js";
import { contextEnvVarKind } from "../../src/kinds/context-env-var.js";
import type { KindEnv } from "../../src/kinds/contract.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import {
  dContext,
  dEnv,
  desired,
  dOrg,
  lContext,
  lEnv,
  live,
  lOrg,
  PROJECT,
  PROJECT_ID,
  secret,
} from "../helpers/builders.js";

type Ctx = ReturnType<typeof dContext>;
type LCtx = ReturnType<typeof lContext>;

const plan = (
  contexts: Ctx[] | undefined,
  liveContexts: LCtx[],
  options: PlanOptions = {},
  extra: { ignore?: string[] } = {},
) =>
  planChanges(
    desired(dOrg({ ...(contexts ? { contexts } : {}), ...extra })),
    live(lOrg({ contexts: liveContexts, projectIds: { [PROJECT]: PROJECT_ID } })),
    options,
  );

const brief = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.address}`);

describe("context env var", () => {
  const one = (value: string | Secret, liveValue: string | undefined, options: PlanOptions = {}) =>
    plan(
      [dContext("c", { env: { K: value } })],
      liveValue === undefined ? [lContext("c")] : [lContext("c", { env: { K: liveValue } })],
      options,
    );

  it("create is the set call, with the parent id", () => {
    const p = one("secret-value", undefined);
    expect(brief(p)).toEqual(['create context["c"].env["K"]']);
    expect(p.changes[0]?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/contexts/{context_id}/env-vars/set",
        body_fields: ["name", "value"],
        sensitive_fields: ["value"],
      }),
    ]);
    expect(p.changes[0]?.params).toMatchObject({ context_id: "ctx:c", name: "K" });
  });

  it("changed last four → update with the same set call", () => {
    const p = one("new-value-9999", "old-value-1111");
    expect(brief(p)).toEqual(['update context["c"].env["K"]']);
    const c = p.changes[0];
    expect(c?.fields).toEqual([
      { path: "value", before: "(sensitive)", after: "(sensitive)", sensitive: true },
    ]);
    expect(c?.calls[0]).toMatchObject({
      route: "/contexts/{context_id}/env-vars/set",
      phase: "update",
    });
    expect(p.unverified_secrets).toBe(0);
  });

  it("same last four → unverified, no change", () => {
    const p = one("value-1234", "other-1234");
    expect(brief(p)).toEqual([]);
    expect(p.unverified_secrets).toBe(1);
    expect(p.unverified).toEqual(['context["c"].env["K"]#value']);
  });

  it("--force-secrets re-sets an unverified secret", () => {
    const p = one("value-1234", "other-1234", { forceSecrets: ['context["c"].*'] });
    expect(brief(p)).toEqual(['update context["c"].env["K"]']);
    expect(p.unverified_secrets).toBe(0);
    expect(brief(one("value-1234", "other-1234", { forceSecrets: ["*"] }))).toHaveLength(1);
    expect(brief(one("value-1234", "other-1234", { forceSecrets: [] }))).toHaveLength(0);
    expect(
      brief(one("value-1234", "other-1234", { forceSecrets: ['context["d"].*'] })),
    ).toHaveLength(0);
  });

  it("--skip-secrets: no value update for an existing var; a create is marked", () => {
    const skipped = one(Secret.unresolved("env:X"), "other-1234", { skipSecrets: true });
    expect(brief(skipped)).toEqual([]);
    expect(skipped.skipped_secrets).toBe(1);
    expect(skipped.saveable).toBe(false);
    const created = one(Secret.unresolved("env:X"), undefined, { skipSecrets: true });
    expect(brief(created)).toEqual(['create context["c"].env["K"]']);
    expect(created.changes[0]?.unresolved_secrets).toEqual(["value"]);
    expect(created.saveable).toBe(false);
  });

  it("an unresolved secret without --skip-secrets is an error", () => {
    expect(() => one(Secret.unresolved("env:X"), undefined)).toThrow(PlanError);
  });

  it("delete uses filter[name]", () => {
    const p = plan([dContext("c", { env: {} })], [lContext("c", { env: { OLD: "abcd" } })]);
    expect(brief(p)).toEqual(['delete context["c"].env["OLD"]']);
    expect(p.changes[0]?.calls[0]).toMatchObject({
      method: "DELETE",
      route: "/contexts/{context_id}/env-vars",
      query: { "filter[name]": "{name}" },
    });
  });

  it("env of a new context depends on the context (pending id)", () => {
    const p = plan([dContext("new", { env: { A: "x" } })], []);
    expect(brief(p)).toEqual(['create context["new"]', 'create context["new"].env["A"]']);
    expect(p.changes[1]?.params.context_id).toEqual({ pending: 'context["new"]' });
    expect(p.changes[1]?.depends_on).toEqual(['context["new"]']);
  });

  it("a var without truncated_value is unverified, not re-set", () => {
    const p = planChanges(
      desired(dOrg({ contexts: [dContext("c", { env: { K: "abcdef" } })] })),
      live(lOrg({ contexts: [{ id: "c1", name: "c", env: [{ name: "K" }], restrictions: [] }] })),
    );
    expect(p.changes).toEqual([]);
    expect(p.unverified_secrets).toBe(1);
  });
});

describe("context env var: pure members", () => {
  const k = contextEnvVarKind;
  const env = (forceSecrets = false): KindEnv => ({
    orgId: "org-1",
    projectId: () => undefined,
    refId: () => undefined,
    forceSecrets,
  });

  it("identity is the name; a variable has no id and no pin", () => {
    expect(k.desiredKey(dEnv("AWS_REGION", "eu-west-1"))).toBe("AWS_REGION");
    const l = lEnv("AWS_REGION", "eu-west-1");
    expect([k.liveKey(l), k.liveAddressKey(l), k.liveId(l)]).toEqual([
      "AWS_REGION",
      "AWS_REGION",
      undefined,
    ]);
    expect(k.pinnedId(dEnv("AWS_REGION", "x"))).toBeUndefined();
  });

  it("compares by last four: a change updates in place (never a replace), same four is unverified", () => {
    const changed = k.compare(dEnv("K", "value-9999"), lEnv("K", "old-1111"), env());
    expect(changed.fields).toEqual([
      { path: "value", before: "(sensitive)", after: "(sensitive)", sensitive: true },
    ]);
    expect(changed.replace_reasons).toEqual([]);
    const same = k.compare(dEnv("K", "value-1111"), lEnv("K", "old-1111"), env());
    expect(same.fields).toEqual([]);
    expect(same.unverified).toEqual(["value"]);
    expect(
      k.compare(dEnv("K", "value-1111"), lEnv("K", "old-1111"), env(true)).fields,
    ).toHaveLength(1);
    expect(k.replaceOrder).toBe("never");
  });

  it("create and update are the one upsert call; the value is sensitive and never in the call", () => {
    const d = dEnv("K", secret("super-secret-value-1234"));
    const create = k.createCalls(d);
    const update = k.updateCalls(k.compare(d, lEnv("K", "zzzz"), env()).fields);
    for (const [calls, phase] of [
      [create, "create"],
      [update, "update"],
    ] as const) {
      expect(calls).toEqual([
        {
          phase,
          method: "POST",
          api: "v3",
          route: "/contexts/{context_id}/env-vars/set",
          body: "flat",
          body_fields: ["name", "value"],
          sensitive_fields: ["value"],
          when: "always",
        },
      ]);
    }
    expect(JSON.stringify([create, update, k.desiredView(d, env())])).not.toContain(
      "super-secret-value",
    );
    expect(k.unresolvedSecrets(d)).toEqual([]);
    expect(k.unresolvedSecrets(dEnv("K", Secret.unresolved("env:K")))).toEqual(["value"]);
  });

  it("delete goes by name in filter[name], with no body", () => {
    expect(k.deleteCalls()).toEqual([
      expect.objectContaining({
        method: "DELETE",
        route: "/contexts/{context_id}/env-vars",
        query: { "filter[name]": "{name}" },
        body: "none",
      }),
    ]);
  });

  it("export writes each variable as a placeholder; a name the config cannot hold is ignored", () => {
    const asked: EnvNameRequest[] = [];
    const ctx = {
      env: (parts: readonly string[], address: string, what: string) => {
        asked.push({ parts, address, what });
        return new EnvRef({ parts, address, what });
      },
    };
    const out = k.toConfig(
      [lEnv("B", "bbbb"), lEnv("A", "aaaa"), lEnv("A", "aaaa"), lEnv("bad-name", "xxxx")],
      { parent: "deploy" },
      ctx,
    );
    expect(out.map((e) => ("written" in e ? e.written : `ignored ${e.ignored.glob}`))).toEqual([
      "A",
      "B",
      'ignored context["deploy"].env["bad-name"]',
    ]);
    expect(out.every((e) => !("written" in e) || e.doc instanceof EnvRef)).toBe(true);
    expect(asked).toEqual([
      { parts: ["CTX", "deploy", "A"], address: 'context["deploy"].env["A"]', what: "env var" },
      { parts: ["CTX", "deploy", "B"], address: 'context["deploy"].env["B"]', what: "env var" },
    ]);
    expect(JSON.stringify(out.map((e) => ("written" in e ? e.doc : null)))).not.toMatch(
      /aaaa|bbbb/,
    );
  });

  it("cannot be renamed: a new name is a new variable", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/new name is a new variable/);
  });
});
