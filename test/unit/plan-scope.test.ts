/**
 * src/plan/scope.ts: which addresses a config change reaches, when it cannot be scoped, and
 * the config narrowed to a scope (design.md §5 "Scoped plans and the reviewed plan"). The
 * git side and the reads are in test/integration/plan-changed-since.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { addr } from "../../src/model/address.js";
import { narrowDesired, scopeIndex, scopeOfChange } from "../../src/plan/scope.js";
import { dContext, dEnv, desired, dOrg, dProject, dWebhook, secret } from "../helpers/builders.js";

const webProject = () =>
  dProject("gh/acme/web", { webhooks: [dWebhook("slack")], env: { X: "x" } });
/** The org every case starts from; `more` replaces or adds its members (a case's change). */
const base = (more: Parameters<typeof dOrg>[0] = {}) =>
  desired(
    dOrg({
      contexts: [dContext("deploy", { env: { A: "one" } }), dContext("build")],
      projects: [dProject("gh/acme/api", { webhooks: [dWebhook("slack")] }), webProject()],
      ...more,
    }),
  );

const addresses = (d: ReturnType<typeof scopeOfChange>) =>
  d.kind === "scoped" ? d.scope.addresses.map((a) => a.address) : d.reason;

describe("scopeOfChange", () => {
  it("the same config: nothing in scope, every address counted", () => {
    const d = scopeOfChange(base(), base(), "main");
    expect(d).toMatchObject({ kind: "scoped", scope: { since: "main", addresses: [] } });
    // 2 contexts, 1 context env var, 2 projects, 2 webhooks, 1 project env var.
    expect(d.kind === "scoped" && d.scope.total).toBe(8);
  });

  it("one webhook's field: that webhook only, not its project", () => {
    const now = base({
      projects: [
        dProject("gh/acme/api", { webhooks: [dWebhook("slack", { events: ["job-completed"] })] }),
        webProject(),
      ],
    });
    expect(addresses(scopeOfChange(base(), now, "main"))).toEqual([
      addr.webhook("gh/acme/api", "slack"),
    ]);
  });

  it("a secret from the environment is compared by where it comes from; a value in the file by its value", () => {
    const withValue = (value: Secret) =>
      desired(
        dOrg({
          contexts: [dContext("deploy", { env: { A: value } })],
          projects: [],
        }),
      );
    // Rotated in the environment: not a change of the config.
    expect(
      addresses(
        scopeOfChange(
          withValue(secret("old-value", "env:A")),
          withValue(secret("new-value", "env:A")),
          "main",
        ),
      ),
    ).toEqual([]);
    // Another variable: a change.
    expect(
      addresses(
        scopeOfChange(withValue(secret("v", "env:A")), withValue(secret("v", "env:B")), "main"),
      ),
    ).toEqual([addr.contextEnvVar("deploy", "A")]);
    // Written in the file: its value is the config.
    expect(
      addresses(scopeOfChange(withValue(new Secret("one")), withValue(new Secret("two")), "main")),
    ).toEqual([addr.contextEnvVar("deploy", "A")]);
  });

  it("an item removed from a collection the config still manages is in scope", () => {
    const now = base({ contexts: [dContext("deploy", { env: { A: "one" } })] });
    expect(addresses(scopeOfChange(base(), now, "main"))).toEqual([addr.context("build")]);
  });

  it.each([
    [
      "the list of orgs changed",
      desired(dOrg({ projects: [] }), dOrg({ slug: "gh/other", projects: [] })),
      "the list of orgs changed since main",
    ],
    [
      "a collection became unmanaged",
      base({ projects: [dProject("gh/acme/api", {}), webProject()] }),
      '`webhooks` of project["gh/acme/api"] became unmanaged since main',
    ],
    ["ignore changed", base({ ignore: ['context["legacy-*"]'] }), "`ignore` changed since main"],
  ])("%s: a full plan, with the reason", (_, now, reason) => {
    const d = scopeOfChange(base(), now, "main");
    expect(d.kind).toBe("full");
    expect(addresses(d)).toContain(reason);
  });

  it("a change reaching most of many projects is planned in full; a few of them are scoped", () => {
    const projects = (n: number, changed: number) =>
      desired(
        dOrg({
          projects: Array.from({ length: n }, (_, i) =>
            dProject(`gh/acme/p${i}`, {
              webhooks: [dWebhook("slack", i < changed ? { events: ["job-completed"] } : {})],
            }),
          ),
        }),
      );
    const broad = scopeOfChange(projects(40, 0), projects(40, 21), "main");
    expect(broad.kind === "full" && broad.reason).toContain("reaches 21 of 40 projects");
    expect(addresses(scopeOfChange(projects(40, 0), projects(40, 20), "main"))).toHaveLength(20);
  });
});

describe("narrowDesired", () => {
  it("keeps the projects and contexts in scope, each with only the collections that hold an address in scope", () => {
    const idx = scopeIndex([
      { org: "gh/acme", address: addr.webhook("gh/acme/web", "slack") },
      { org: "gh/acme", address: addr.contextEnvVar("deploy", "A") },
    ]);
    const org = narrowDesired(base(), idx).orgs[0];
    expect([...(org?.projects.keys() ?? [])]).toEqual(["gh/acme/web"]);
    const web = org?.projects.get("gh/acme/web");
    expect(web?.webhooks?.size).toBe(1);
    // The project's env is not in scope: neither read nor planned.
    expect(web?.env).toBeUndefined();
    expect([...(org?.contexts?.keys() ?? [])]).toEqual(["deploy"]);
    expect(org?.contexts?.get("deploy")?.env?.get("A")).toEqual(dEnv("A", "one"));
  });

  it("an org setting in scope keeps the org's settings, nothing else", () => {
    const was = desired(dOrg({ settings: { enable_private_orbs: false }, projects: [] }));
    const now = desired(dOrg({ settings: { enable_private_orbs: true }, projects: [] }));
    const d = scopeOfChange(was, now, "main");
    expect(addresses(d)).toEqual([addr.orgSettings()]);
    const org =
      d.kind === "scoped" ? narrowDesired(now, scopeIndex(d.scope.addresses)).orgs[0] : undefined;
    expect(org?.settings?.enable_private_orbs).toBe(true);
    expect(org?.contexts).toBeUndefined();
  });

  it("nothing of the org in scope: no collection is left to read", () => {
    const org = narrowDesired(base(), scopeIndex([])).orgs[0];
    expect(org?.projects.size).toBe(0);
    expect(org?.contexts).toBeUndefined();
  });
});
