/**
 * design.md §4 "Integration": webhook URLs are credentials. The plan holds them as scheme +
 * host + a masked path (deletes too, and a URL the config had kept in `${env:…}`), the plan
 * file never holds them in full, and apply takes them from the config.
 */
import { describe, expect, it } from "vitest";
import { buildBody } from "../../src/apply/body.js";
import { indexDesired } from "../../src/apply/desired-index.js";
import { isCredentialLabel, maskUrl } from "../../src/model/url-mask.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import { renderJson, renderMarkdown, renderText } from "../../src/render/index.js";
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
  secret,
} from "../helpers/builders.js";

const SLACK = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/XXXXXXXXXXXXXXXXXXXXXXXX";
const TEAMS =
  "https://acme.webhook.office.com/webhookb2/1234abcd-0000-1111-2222-333344445555@tenant/IncomingWebhook/feedbeefcafe/9999";
const PATHS = ["/services/T0AAAAAAA", "XXXXXXXXXXXXXXXXXXXXXXXX", "/webhookb2/", "IncomingWebhook"];

type DW = ReturnType<typeof dWebhook>;
type LW = ReturnType<typeof lWebhook>;
const plan = (d: DW[] | undefined, l: LW[], options: PlanOptions = {}) =>
  planChanges(
    desired(dOrg({ projects: [dProject(PROJECT, d ? { webhooks: d } : {})] })),
    live(lOrg({ projects: [lProject(PROJECT, { webhooks: l })] })),
    options,
  );

const everyRendering = (p: ReturnType<typeof plan>): string =>
  [renderText(p, { color: false }), renderMarkdown(p), renderJson(p)].join("\n");

const expectNoPath = (text: string): void => {
  for (const part of PATHS) expect(text).not.toContain(part);
};

describe("maskUrl", () => {
  it("keeps scheme, host and port; masks the path, query and user info", () => {
    expect(maskUrl(SLACK)).toMatch(/^https:\/\/hooks\.slack\.com\/…\([0-9a-f]{4}\)$/);
    expect(maskUrl("https://u:p@h.example.com:8443/x?token=abc")).toMatch(
      /^https:\/\/h\.example\.com:8443\/…\([0-9a-f]{4}\)$/,
    );
    expect(maskUrl("not a url")).toBe("(masked url)");
    expect(maskUrl("(sensitive)")).toBe("(sensitive)");
    // Idempotent; two paths on one host differ.
    expect(maskUrl(maskUrl(SLACK))).toBe(maskUrl(SLACK));
    expect(maskUrl(`${SLACK}Z`)).not.toBe(maskUrl(SLACK));
  });

  it("masks a host label that is itself the credential (16+ random-looking characters), keeps readable ones", () => {
    const bin = "https://eo9x2k7q4m1n8b3v6c5z.m.pipedream.net/";
    expect(maskUrl(bin)).toMatch(/^https:\/\/…\.m\.pipedream\.net\/…\([0-9a-f]{4}\)$/);
    expect(maskUrl(maskUrl(bin))).toBe(maskUrl(bin));
    for (const label of [
      "eo9x2k7q4m1n8b3v6c5z",
      "1234abcd-0000-1111-2222-333344445555",
      "0123456789abcdef",
      "qwxzkjhgfdsapoiu",
      "Xk3mQ9pL2vB7nR4t",
    ]) {
      expect(isCredentialLabel(label), label).toBe(true);
    }
    for (const label of [
      "hooks",
      "acme-production-notifications",
      "productionwebhooks",
      "prod-eu-west-1-alerts",
      "eo9x2k7q4m1n8b3",
    ]) {
      expect(isCredentialLabel(label), label).toBe(false);
    }
    expect(maskUrl("https://alerts.acme-production-notifications.com/x")).toMatch(
      /^https:\/\/alerts\.acme-production-notifications\.com\/…/,
    );
  });
});

describe("webhook URLs in a plan", () => {
  it("a fork config that empties webhooks: the deletes show the host, never the path", () => {
    const p = plan([], [lWebhook("slack", { url: SLACK }), lWebhook("teams", { url: TEAMS })]);
    expect(p.changes.map((c) => c.action)).toEqual(["delete", "delete"]);
    const out = everyRendering(p);
    expectNoPath(out);
    expect(out).toContain("https://hooks.slack.com/…(");
    expect(out).toContain("https://acme.webhook.office.com/…(");
  });

  it("a create and a url update are masked on both sides; apply takes the url from the config", () => {
    const cfg = desired(
      dOrg({
        projects: [
          dProject(PROJECT, {
            webhooks: [dWebhook("slack", { url: SLACK }), dWebhook("teams", { url: TEAMS })],
          }),
        ],
      }),
    );
    const p = planChanges(
      cfg,
      live(lOrg({ projects: [lProject(PROJECT, { webhooks: [lWebhook("slack")] })] })),
      {},
    );
    expectNoPath(everyRendering(p));
    const update = p.changes.find((c) => c.action === "update");
    const create = p.changes.find((c) => c.action === "create");
    expect(update?.fields.find((f) => f.path === "url")?.after).toBe(maskUrl(SLACK));
    const index = indexDesired(cfg);
    const bodyOf = (c: (typeof p.changes)[number] | undefined) => {
      if (c === undefined || c.calls[0] === undefined) throw new Error("no call");
      const params = { id: "w1", project_id: "p1" };
      return buildBody(c.calls[0], c, params, index.get(c.org, c.address));
    };
    expect(JSON.stringify(bodyOf(update))).toContain(SLACK);
    expect(JSON.stringify(bodyOf(create))).toContain(TEAMS);
  });

  it("a url the config kept in an env reference stays (sensitive) on the live side of a delete", () => {
    const p = plan(
      [dWebhook("renamed", { url: secret(SLACK) })],
      [lWebhook("slack", { url: SLACK })],
    );
    expectNoPath(everyRendering(p));
  });

  it("--show-urls keeps them in full", () => {
    const p = plan([], [lWebhook("slack", { url: SLACK })], { showUrls: true });
    expect(renderText(p, { color: false })).toContain(SLACK);
  });
});
