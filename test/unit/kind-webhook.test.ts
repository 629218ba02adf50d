import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { SIGNING_SECRET_REMOVAL } from "../../src/kinds/webhook.js";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import {
  desired,
  dOrg,
  dProject,
  dWebhook,
  live,
  lOrg,
  lProject,
  lWebhook,
  PROJECT,
  PROJECT_ID,
  secret,
} from "../helpers/builders.js";

type DW = ReturnType<typeof dWebhook>;
type LW = ReturnType<typeof lWebhook>;

const plan = (d: DW[] | undefined, l: LW[], options: PlanOptions = {}, ignore: string[] = []) =>
  planChanges(
    desired(dOrg({ projects: [dProject(PROJECT, d ? { webhooks: d } : {})], ignore })),
    live(lOrg({ projects: [lProject(PROJECT, { webhooks: l })] })),
    options,
  );

const brief = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.address}`);
const A = 'project["gh/acme/api"].webhook["slack"]';

describe("webhook", () => {
  it.each([
    { name: "no-op", d: [dWebhook("slack")], l: [lWebhook("slack")], want: [] },
    {
      name: "defaults are not changes",
      d: [dWebhook("slack")],
      l: [lWebhook("slack", { scope: "project", should_verify_tls: true, is_enabled: true })],
      want: [],
    },
    {
      name: "explicit defaults equal live",
      d: [dWebhook("slack", { scope: "project", should_verify_tls: true, is_enabled: true })],
      l: [lWebhook("slack")],
      want: [],
    },
    {
      name: "events compare as a set",
      d: [dWebhook("slack", { events: ["job-completed", "workflow-completed"] })],
      l: [lWebhook("slack", { events: ["workflow-completed", "job-completed"] })],
      want: [],
    },
    { name: "create", d: [dWebhook("slack")], l: [], want: [`create ${A}`] },
    { name: "delete", d: [], l: [lWebhook("slack")], want: [`delete ${A}`] },
    { name: "unmanaged", d: undefined, l: [lWebhook("slack")], want: [] },
  ])("$name", ({ d, l, want }) => {
    expect(brief(plan(d, l))).toEqual(want);
  });

  it.each([
    { field: "url", d: { url: "https://hooks.example.com/b" }, l: {} },
    { field: "events", d: { events: ["job-completed"] as const }, l: {} },
    { field: "should_verify_tls", d: { should_verify_tls: false }, l: {} },
  ])("update of $field goes through /update with only that field", ({ field, d }) => {
    const p = plan([dWebhook("slack", d as Partial<DW>)], [lWebhook("slack")]);
    expect(brief(p)).toEqual([`update ${A}`]);
    expect(p.changes[0]?.fields.map((f) => f.path)).toEqual([field]);
    expect(p.changes[0]?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/webhooks/{id}/update",
        body: "flat",
        body_fields: [field],
      }),
    ]);
    expect(p.changes[0]?.params.id).toBe("wh:slack");
  });

  it("is_enabled goes through set-enabled, a second call of the same update", () => {
    const p = plan(
      [dWebhook("slack", { is_enabled: false, url: "https://hooks.example.com/b" })],
      [lWebhook("slack")],
    );
    expect(p.changes[0]?.calls.map((c) => [c.route, c.body_fields])).toEqual([
      ["/webhooks/{id}/update", ["url"]],
      ["/webhooks/{id}/set-enabled", ["is_enabled"]],
    ]);
    const only = plan([dWebhook("slack", { is_enabled: false })], [lWebhook("slack")]);
    expect(only.changes[0]?.calls.map((c) => c.route)).toEqual(["/webhooks/{id}/set-enabled"]);
  });

  it("omitted is_enabled / should_verify_tls mean their defaults (true)", () => {
    const p = plan(
      [dWebhook("slack")],
      [lWebhook("slack", { is_enabled: false, should_verify_tls: false })],
    );
    expect(p.changes[0]?.fields).toEqual([
      { path: "should_verify_tls", before: false, after: true },
      { path: "is_enabled", before: false, after: true },
    ]);
  });

  it("a renamed webhook (pinned id) updates its name", () => {
    const p = plan([dWebhook("slack", { id: "wh:old" })], [lWebhook("old")]);
    expect(brief(p)).toEqual([`update ${A}`]);
    expect(p.changes[0]?.fields).toEqual([{ path: "name", before: "old", after: "slack" }]);
  });

  it("a changed scope forces replacement, create before delete", () => {
    const p = plan([dWebhook("slack", { scope: "org" })], [lWebhook("slack")]);
    expect(brief(p)).toEqual([`replace ${A}`]);
    const c = p.changes[0];
    expect(c?.action === "replace" && c.replace_order).toBe("create_before_delete");
    expect(c?.fields).toEqual([
      { path: "scope", before: "project", after: "org", forces_replacement: true },
    ]);
    expect(c?.calls.map((x) => `${x.phase} ${x.method} ${x.route}`)).toEqual([
      "create POST /webhooks",
      "delete DELETE /webhooks/{id}",
    ]);
    const ops = orderOperations(p).operations.map((o) => o.phase);
    expect(ops).toEqual(["create", "delete"]);
  });

  it("at the project's maximum, a replace deletes first", () => {
    const others = Array.from({ length: 24 }, (_, i) => lWebhook(`w${i}`));
    const p = plan(
      [dWebhook("slack", { scope: "org" }), ...others.map((w) => dWebhook(w.name))],
      [lWebhook("slack"), ...others],
    );
    const c = p.changes[0];
    expect(c?.action === "replace" && c.replace_order).toBe("delete_before_create");
  });

  it("dropping a stored signing secret forces replacement, with that reason", () => {
    const p = plan([dWebhook("slack")], [lWebhook("slack", { has_signing_secret: true })]);
    expect(brief(p)).toEqual([`replace ${A}`]);
    expect(p.changes[0]?.reason).toContain(SIGNING_SECRET_REMOVAL);
  });

  it("a replaced webhook re-sends its secret: not counted as unverified", () => {
    const p = plan(
      [dWebhook("slack", { scope: "org", signing_secret: secret("s3cr3t") })],
      [lWebhook("slack", { has_signing_secret: true })],
    );
    expect(p.changes[0]?.action).toBe("replace");
    expect(p.unverified_secrets).toBe(0);
    // The url is always taken from the config at apply (the plan holds it masked).
    expect(p.changes[0]?.calls[0]?.sensitive_fields).toEqual(["url", "signing_secret"]);
  });

  it("a signing secret is never returned: unverified when set; forced → update", () => {
    const d = [dWebhook("slack", { signing_secret: secret("s3cr3t-value") })];
    const l = [lWebhook("slack", { has_signing_secret: true })];
    const p = plan(d, l);
    expect(brief(p)).toEqual([]);
    expect(p.unverified).toEqual([`${A}#signing_secret`]);
    const f = plan(d, l, { forceSecrets: ["*"] });
    expect(brief(f)).toEqual([`update ${A}`]);
    expect(f.changes[0]?.calls[0]).toMatchObject({
      body_fields: ["signing_secret"],
      sensitive_fields: ["signing_secret"],
    });
  });

  it("adding a signing secret to a webhook without one is an update", () => {
    const p = plan([dWebhook("slack", { signing_secret: secret("abc") })], [lWebhook("slack")]);
    expect(brief(p)).toEqual([`update ${A}`]);
    expect(p.changes[0]?.fields[0]).toEqual({
      path: "signing_secret",
      before: null,
      after: "(sensitive)",
      sensitive: true,
    });
  });

  it("a url from a secret compares exactly but is masked", () => {
    const same = plan(
      [dWebhook("slack", { url: secret("https://hooks.example.com/a") })],
      [lWebhook("slack")],
    );
    expect(brief(same)).toEqual([]);
    const diff = plan(
      [dWebhook("slack", { url: secret("https://hooks.example.com/zz") })],
      [lWebhook("slack")],
    );
    expect(diff.changes[0]?.fields).toEqual([
      { path: "url", before: "(sensitive)", after: "(sensitive)", sensitive: true },
    ]);
    expect(JSON.stringify(diff)).not.toContain("hooks.example.com/zz");
    expect(JSON.stringify(diff)).not.toContain("hooks.example.com/a");
  });

  it("--skip-secrets: an unresolved signing secret is not compared", () => {
    const p = plan(
      [dWebhook("slack", { signing_secret: Secret.unresolved("env:S") })],
      [lWebhook("slack", { has_signing_secret: true })],
      { skipSecrets: true },
    );
    expect(brief(p)).toEqual([]);
    expect(p.skipped_secrets).toBe(1);
    expect(p.saveable).toBe(false);
  });

  it("create body fields; the project id is a param", () => {
    const p = plan([dWebhook("slack", { signing_secret: secret("x") })], []);
    expect(p.changes[0]?.calls[0]).toMatchObject({
      method: "POST",
      route: "/webhooks",
      body: "envelope",
      sensitive_fields: ["url", "signing_secret"],
    });
    expect(p.changes[0]?.calls[0]?.body_fields).toContain("references.project");
    expect(p.changes[0]?.params.project_id).toBe(PROJECT_ID);
    expect(p.changes[0]?.after).toMatchObject({
      scope: "project",
      should_verify_tls: true,
      is_enabled: true,
      signing_secret: "(sensitive)",
    });
  });

  it("two live webhooks with one name: the equal one is kept, the other removed with a reason; id pins", () => {
    const l = [lWebhook("slack", { id: "w1" }), lWebhook("slack", { id: "w2" })];
    // Both equal the config: the lowest id is kept, deterministically.
    const tie = plan([dWebhook("slack")], l);
    expect(tie.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `delete project["gh/acme/api"].webhook["slack#w2"]`,
    ]);
    expect(tie.changes[0]?.reason).toMatch(/^surplus: 2 live items share this key; keeping w1/);
    expect(tie.changes[0]?.reason).toContain("lowest id");
    expect(plan([dWebhook("slack")], [...l].reverse()).changes).toEqual(tie.changes);
    // The one whose fields equal the config wins over a lower id (an interrupted replace).
    const replaced = [
      lWebhook("slack", { id: "w1", url: "https://old.example.com/x" }),
      lWebhook("slack", { id: "w2" }),
    ];
    const p1 = plan([dWebhook("slack")], replaced);
    expect(p1.changes.map((c) => [c.action, c.params.id])).toEqual([["delete", "w1"]]);
    expect(p1.changes[0]?.reason).toContain("keeping w2 (its fields equal the config)");
    const p = plan([dWebhook("slack", { id: "w1" })], l);
    expect(p.changes.map((c) => [c.action, c.params.id])).toEqual([["delete", "w2"]]);
    // The pinned one changes too: the two changes still have distinct addresses.
    const both = plan([dWebhook("slack", { id: "w1", should_verify_tls: false })], l);
    expect(both.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `update ${A}`,
      `delete project["gh/acme/api"].webhook["slack#w2"]`,
    ]);
  });

  it("of two same-name webhooks, the one holding the signing secret Waybill set is kept", () => {
    const d = [dWebhook("slack", { signing_secret: new Secret("s3cr3t-value", "env:S") })];
    const l = [
      lWebhook("slack", { id: "w1", has_signing_secret: false }),
      lWebhook("slack", { id: "w2", has_signing_secret: true }),
    ];
    const p = plan(d, l);
    expect(p.changes.map((c) => [c.action, c.params.id])).toEqual([["delete", "w1"]]);
    // A config without a secret keeps the one without (a stored secret cannot be removed).
    const none = plan([dWebhook("slack")], l);
    expect(none.changes.map((c) => [c.action, c.params.id])).toEqual([["delete", "w2"]]);
  });

  it("two undeclared live webhooks with one name get distinct addresses", () => {
    const p = plan([], [lWebhook("x", { id: "w1" }), lWebhook("x", { id: "w2" })]);
    expect(new Set(p.changes.map((c) => c.address)).size).toBe(2);
  });

  it("ignore", () => {
    const p = plan([], [lWebhook("slack")], {}, ['project["gh/acme/api"].webhook["*"]']);
    expect(p.changes).toEqual([]);
  });
});
