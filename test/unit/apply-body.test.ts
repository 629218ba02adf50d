/**
 * Request building from the plan's call data (src/apply/body.ts): placeholders, pending ids,
 * envelope and flat bodies, secrets taken from the config (never the plan), masks dropped.
 */
import { describe, expect, it } from "vitest";
import {
  ApplyBuildError,
  buildBody,
  fillQuery,
  fillRoute,
  resolveParams,
} from "../../src/apply/body.js";
import { indexDesired } from "../../src/apply/desired-index.js";
import { planChanges } from "../../src/plan/plan.js";
import type { Change } from "../../src/plan/types.js";
import {
  dContext,
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  dWebhook,
  live,
  lOrg,
  lProject,
  lSchedule,
  lWebhook,
  ORG,
  ORG_ID,
  PROJECT,
  PROJECT_ID,
  rExpr,
  secret,
} from "../helpers/builders.js";

const SIGNING = "signing-secret-value-9f2c";
const ENV_VALUE = "context-env-value-77ab";
const HOOK_SECRET = "trigger-hook-secret-3e1d";

const config = desired(
  dOrg({
    contexts: [dContext("deploy", { env: { KEY: secret(ENV_VALUE) }, restrictions: [rExpr("x")] })],
    projects: [
      dProject(PROJECT, {
        webhooks: [
          dWebhook("slack", { signing_secret: secret(SIGNING), events: ["job-completed"] }),
          dWebhook("old", { url: "https://new.example.com" }),
        ],
        pipelines: [
          dPipeline("build", {
            triggers: [
              dTrigger("nightly", {
                event: { type: "schedule", schedule: { cron_expression: "0 3 * * *" } },
              }),
              dTrigger("hook", {
                event: { type: "webhook", webhook: { source: "ext", secret: secret(HOOK_SECRET) } },
              }),
            ],
          }),
        ],
      }),
    ],
  }),
);

const state = live(
  lOrg({
    contexts: [],
    projects: [
      lProject(PROJECT, {
        webhooks: [lWebhook("old", { id: "wh-old" })],
        pipelines: [
          { id: "pl-build", name: "build", config: dPipeline("build").config, synthetic: false },
        ],
        triggers: [lSchedule("nightly", "pl-build")],
      }),
    ],
  }),
);

const plan = planChanges(config, state);
const change = (address: string): Change => {
  const c = plan.changes.find((x) => x.address === address);
  if (!c)
    throw new Error(`no change ${address} in ${plan.changes.map((x) => x.address).join(", ")}`);
  return c;
};
const index = indexDesired(config);
const ids = new Map<string, string>([['context["deploy"]', "ctx-new"]]);
const pending = (a: string) => ids.get(a);

describe("apply: request building", () => {
  it("builds an enveloped create with references from the params", () => {
    const c = change('context["deploy"]');
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const params = resolveParams(c, pending);
    expect(fillRoute(call, params)).toBe("/contexts");
    expect(buildBody(call, c, params, index.get(ORG, c.address))).toEqual({
      data: { attributes: { name: "deploy" }, references: { org: { id: ORG_ID } } },
    });
  });

  it("fills a pending parent id and takes the secret from the config, not the plan", () => {
    const c = change('context["deploy"].env["KEY"]');
    expect(JSON.stringify(c)).not.toContain(ENV_VALUE);
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const params = resolveParams(c, pending);
    expect(fillRoute(call, params)).toBe("/contexts/ctx-new/env-vars/set");
    expect(buildBody(call, c, params, index.get(ORG, c.address))).toEqual({
      name: "KEY",
      value: ENV_VALUE,
    });
  });

  it("refuses a route whose pending parent has no id yet", () => {
    const c = change('context["deploy"].env["KEY"]');
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const params = resolveParams(c, () => undefined);
    expect(() => fillRoute(call, params)).toThrow(ApplyBuildError);
  });

  it("fills query placeholders without encoding (the client encodes)", () => {
    const c = {
      ...change('context["deploy"].restriction["expression:x"]'),
      params: { context_id: "ctx 1", id: "r/1" },
    } as Change;
    const call = {
      ...(c.calls[0] as NonNullable<Change["calls"][number]>),
      route: "/context-restrictions/{id}",
      query: { "filter[context_id]": "{context_id}" },
    };
    expect(fillRoute(call, { context_id: "ctx 1", id: "r/1" })).toBe("/context-restrictions/r%2F1");
    expect(fillQuery(call, { context_id: "ctx 1", id: "r/1" })).toEqual({
      "filter[context_id]": "ctx 1",
    });
  });

  it("puts the webhook signing secret in the create body and keeps the defaults", () => {
    const c = change(`project["${PROJECT}"].webhook["slack"]`);
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const body = buildBody(call, c, resolveParams(c, pending), index.get(ORG, c.address));
    expect(body).toEqual({
      data: {
        attributes: {
          name: "slack",
          scope: "project",
          url: "https://hooks.example.com/a",
          events: ["job-completed"],
          should_verify_tls: true,
          is_enabled: true,
          signing_secret: SIGNING,
        },
        references: { project: { id: PROJECT_ID } },
      },
    });
  });

  it("sends only the changed fields of a flat update, by id", () => {
    const c = change(`project["${PROJECT}"].webhook["old"]`);
    expect(c.action).toBe("update");
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const params = resolveParams(c, pending);
    expect(fillRoute(call, params)).toBe("/webhooks/wh-old/update");
    expect(buildBody(call, c, params, index.get(ORG, c.address))).toEqual({
      url: "https://new.example.com",
    });
  });

  it("sends the trigger webhook secret from the config and never the mask", () => {
    const c = change(`project["${PROJECT}"].pipeline["build"].trigger["hook"]`);
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const body = buildBody(call, c, resolveParams(c, pending), index.get(ORG, c.address));
    const text = JSON.stringify(body);
    expect(text).toContain(HOOK_SECRET);
    expect(text).not.toContain("(sensitive)");
    expect(body?.data).toMatchObject({
      attributes: { event: { type: "webhook", webhook: { name: "hook", source: "ext" } } },
      references: { pipeline: { id: "pl-build" } },
    });
  });

  it("leaves a masked secret out of an update that does not change it", () => {
    const c = {
      ...change(`project["${PROJECT}"].pipeline["build"].trigger["hook"]`),
      action: "update",
      params: { id: "tr-hook" },
      calls: [
        {
          phase: "update",
          method: "POST",
          api: "v3",
          route: "/triggers/{id}/update",
          body: "flat",
          body_fields: ["event.webhook"],
          sensitive_fields: [],
          when: "always",
        },
      ],
    } as Change;
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    expect(buildBody(call, c, { id: "tr-hook" }, index.get(ORG, c.address))).toEqual({
      event: { webhook: { name: "hook", source: "ext" } },
    });
  });

  it("sends config.vcs as the pipeline checkout when the config leaves it out", () => {
    const cfg = desired(dOrg({ projects: [dProject(PROJECT, { pipelines: [dPipeline("new")] })] }));
    const p = planChanges(
      cfg,
      live(lOrg({ projects: [lProject(PROJECT, { pipelines: [], triggers: [] })] })),
    );
    const c = p.changes.find((x) => x.resource_type === "pipeline") as Change;
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    const body = buildBody(
      call,
      c,
      resolveParams(c, pending),
      indexDesired(cfg).get(ORG, c.address),
    );
    const attrs = (
      body as { data: { attributes: { checkout: unknown; config: { vcs: unknown } } } }
    ).data.attributes;
    expect(attrs.checkout).toEqual({ vcs: attrs.config.vcs });
  });

  it("refuses to send a secret the config does not have", () => {
    const c = change('context["deploy"].env["KEY"]');
    const call = c.calls[0];
    if (!call) throw new Error("no call");
    expect(() => buildBody(call, c, resolveParams(c, pending), undefined)).toThrow(
      /not in the config/,
    );
  });
});
