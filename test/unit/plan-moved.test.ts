/**
 * Issue 19 `moved`: a rename is an in-place update of the name through the kind's update
 * call, keeping the live id, where the API can rename (webhooks, pipelines, schedule and
 * webhook triggers); and a plan that deletes one item and creates an identical one hints
 * at the `moved` entry to add.
 */
import { describe, expect, it } from "vitest";
import { buildBody, resolveParams } from "../../src/apply/body.js";
import { indexDesired } from "../../src/apply/desired-index.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  dWebhook,
  live,
  lOrg,
  lPipeline,
  lProject,
  lSchedule,
  lTrigger,
  lWebhook,
  ORG,
  PROJECT,
  secret,
} from "../helpers/builders.js";

const P = `project["${PROJECT}"]`;
const move = (from: string, to: string) => ({
  from,
  to,
  source: { file: "waybill.yaml", line: 9, col: 5 },
});

describe("moved", () => {
  const liveState = live(
    lOrg({
      projects: [
        lProject(PROJECT, {
          webhooks: [lWebhook("slack", { url: "https://hooks.example.com/a" })],
          pipelines: [lPipeline("build")],
          triggers: [lSchedule("nightly", "pl:build")],
        }),
      ],
    }),
  );
  const renamedConfig = (moved: ReturnType<typeof move>[]) =>
    desired({
      ...dOrg({
        projects: [
          dProject(PROJECT, {
            webhooks: [dWebhook("slack-alerts")],
            pipelines: [
              dPipeline("ci", {
                triggers: [
                  dTrigger("every-night", {
                    event: {
                      type: "schedule",
                      schedule: { cron_expression: "0 2 * * *", attribution_actor: "system" },
                    },
                  }),
                ],
              }),
            ],
          }),
        ],
      }),
      moved,
    });

  it("without moved, a new name is a delete and a create, and the plan hints at the entry", () => {
    const plan = planChanges(renamedConfig([]), liveState);
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toContain(
      `delete ${P}.webhook["slack"]`,
    );
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toContain(
      `create ${P}.webhook["slack-alerts"]`,
    );
    expect(plan.warnings).toContain(
      `${P}.webhook["slack"] → ${P}.webhook["slack-alerts"] looks like a rename (same fields): add a moved entry to rename it in place and keep its id, e.g. moved: [{ from: '${P}.webhook["slack"]', to: '${P}.webhook["slack-alerts"]' }]`,
    );
  });

  it("renames a webhook, a pipeline and a schedule trigger in place, keeping their ids", () => {
    const plan = planChanges(
      renamedConfig([
        move(`${P}.webhook["slack"]`, `${P}.webhook["slack-alerts"]`),
        move(`${P}.pipeline["build"]`, `${P}.pipeline["ci"]`),
        move(
          `${P}.pipeline["ci"].trigger["nightly"]`,
          `${P}.pipeline["ci"].trigger["every-night"]`,
        ),
      ]),
      liveState,
    );
    const summary = plan.changes.map((c) => ({
      action: c.action,
      address: c.address,
      id: "id" in c ? c.id : undefined,
      fields: c.fields.map((f) => `${f.path}: ${String(f.before)} -> ${String(f.after)}`),
      body: c.calls.flatMap((x) => x.body_fields),
    }));
    expect(summary).toEqual([
      {
        action: "update",
        address: `${P}.pipeline["ci"]`,
        id: "pl:build",
        fields: ["name: build -> ci"],
        body: ["name"],
      },
      {
        action: "update",
        address: `${P}.pipeline["ci"].trigger["every-night"]`,
        id: "tr:nightly",
        fields: ["event.schedule.name: nightly -> every-night"],
        body: ["event.schedule"],
      },
      {
        action: "update",
        address: `${P}.webhook["slack-alerts"]`,
        id: "wh:slack",
        fields: ["name: slack -> slack-alerts"],
        body: ["name"],
      },
    ]);
    expect(plan.changes[2]?.reason).toContain(`renamed in place from ${P}.webhook["slack"]`);
    expect(plan.warnings).toEqual([]);
  });

  it("a stale entry (the rename is done) is a no-op; both names live is a warning", () => {
    const done = live(
      lOrg({ projects: [lProject(PROJECT, { webhooks: [lWebhook("slack-alerts")] })] }),
    );
    const config = desired({
      ...dOrg({ projects: [dProject(PROJECT, { webhooks: [dWebhook("slack-alerts")] })] }),
      moved: [move(`${P}.webhook["slack"]`, `${P}.webhook["slack-alerts"]`)],
    });
    expect(planChanges(config, done).changes).toEqual([]);

    const both = live(
      lOrg({
        projects: [lProject(PROJECT, { webhooks: [lWebhook("slack"), lWebhook("slack-alerts")] })],
      }),
    );
    const plan = planChanges(config, both);
    expect(plan.warnings.some((w) => w.includes("both exist live"))).toBe(true);
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `delete ${P}.webhook["slack"]`,
    ]);
  });

  it("a moved webhook trigger keeps its secret: the rename sends event.webhook with it", () => {
    // Issue 28: the spec does not say whether `event.webhook` merges on update, so a rename
    // that sent `{ name, source }` alone could leave the trigger without its secret.
    const cfg = desired({
      ...dOrg({
        projects: [
          dProject(PROJECT, {
            pipelines: [
              dPipeline("build", {
                triggers: [
                  dTrigger("release-hook", {
                    event: {
                      type: "webhook",
                      webhook: { source: "release-bot", secret: secret("hook-secret-9f3a") },
                    },
                  }),
                ],
              }),
            ],
          }),
        ],
      }),
      moved: [
        move(
          `${P}.pipeline["build"].trigger["old-hook"]`,
          `${P}.pipeline["build"].trigger["release-hook"]`,
        ),
      ],
    });
    const plan = planChanges(
      cfg,
      live(
        lOrg({
          projects: [
            lProject(PROJECT, {
              pipelines: [lPipeline("build")],
              triggers: [
                lTrigger("tr-1", "pl:build", {
                  type: "webhook",
                  webhook: { name: "old-hook", source: "release-bot" },
                }),
              ],
            }),
          ],
        }),
      ),
    );
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `update ${P}.pipeline["build"].trigger["release-hook"]`,
    ]);
    const change = plan.changes[0];
    const call = change?.calls[0];
    if (change === undefined || call === undefined) throw new Error("no update");
    expect(call.sensitive_fields).toEqual(["event.webhook.secret"]);
    const body = buildBody(
      call,
      change,
      resolveParams(change, () => undefined),
      indexDesired(cfg).get(ORG, change.address),
    );
    expect(body).toEqual({
      event: {
        webhook: { name: "release-hook", source: "release-bot", secret: "hook-secret-9f3a" },
      },
    });
    // The plan itself never holds the value.
    expect(JSON.stringify(plan)).not.toContain("hook-secret-9f3a");
  });
});
