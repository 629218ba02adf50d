/**
 * Plans with every action and every kind of secret, for the renderer tests. The secret
 * values are known so a test can scan every output for them.
 */
import { planChanges } from "../../src/plan/plan.js";
import type { Plan, PlanOptions } from "../../src/plan/types.js";
import {
  dContext,
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  dWebhook,
  lContext,
  lEnv,
  live,
  lOrg,
  lPipeline,
  lProject,
  lRestriction,
  lSchedule,
  lTrigger,
  lWebhook,
  OTHER_REPO,
  PROJECT,
  PROJECT_ID,
  REPO,
  rExpr,
  rProject,
  secret,
} from "./builders.js";

/** Every secret value used in `mixedPlan`, including distinctive last four characters. */
export const SECRET_VALUES = [
  "ctx-secret-AAAA-Q7Z9",
  "ctx-secret-BBBB-W3X8",
  "prj-secret-CCCC-K2M4",
  "https://hooks.example.com/secret-url-DDDD-P5R6",
  "signing-secret-EEEE-J8L1",
  "trigger-secret-FFFF-N6T3",
] as const;

export const mixedInputs = () => {
  const [c1, c2, p1, url, signing, trig] = SECRET_VALUES;
  const d = desired(
    dOrg({
      settings: { enable_private_orbs: true },
      contexts: [
        dContext("deploy", {
          env: { NEW_KEY: secret(c1), CHANGED: secret(c2) },
          restrictions: [rProject(PROJECT), rExpr("branch == main")],
        }),
        dContext("fresh", { env: { X: secret(c1) } }),
      ],
      projects: [
        dProject(PROJECT, {
          settings: { pr_only_branch_overrides: ["main", "release"] },
          env: { NPM_TOKEN: secret(p1) },
          webhooks: [
            dWebhook("slack", { url: secret(url), signing_secret: secret(signing) }),
            dWebhook("scoped", { scope: "org" }),
          ],
          pipelines: [
            dPipeline("build", {
              description: "line one\nline two\nline three",
              triggers: [
                dTrigger("nightly", {
                  event: { type: "schedule", schedule: { cron_expression: "0 3 * * *" } },
                }),
                dTrigger("hook", {
                  event: { type: "webhook", webhook: { source: "ext", secret: secret(trig) } },
                }),
              ],
            }),
            dPipeline("moved", {
              config: { type: "vcs", file_path: ".service/config.yml", vcs: OTHER_REPO },
            }),
          ],
        }),
      ],
    }),
  );
  const l = live(
    lOrg({
      settings: { enable_private_orbs: false },
      contexts: [
        lContext("deploy", {
          env: { CHANGED: "old-value-0000", GONE: "zzzz" },
          restrictions: [lRestriction("project", PROJECT, { pattern: PROJECT_ID })],
        }),
        lContext("old", { env: { A: "1111", B: "2222" } }),
      ],
      projects: [
        lProject(PROJECT, {
          settings: { pr_only_branch_overrides: ["main"] },
          env: [lEnv("NPM_TOKEN", "xxxx0000"), lEnv("LEGACY", "abcd")],
          webhooks: [
            lWebhook("slack", { url: "https://hooks.example.com/old", has_signing_secret: true }),
            lWebhook("scoped"),
            lWebhook("gone"),
          ],
          pipelines: [
            lPipeline("build", { description: "line one\nline 2\nline three" }),
            lPipeline("moved"),
          ],
          triggers: [
            lSchedule("nightly", "pl:build"),
            lTrigger("tr:hook", "pl:build", {
              type: "webhook",
              webhook: { name: "hook", source: "ext" },
            }),
            lTrigger("tr:v", "pl:moved", { type: "vcs", vcs: REPO }),
          ],
        }),
      ],
    }),
  );
  return { desired: d, live: l };
};

export const mixedPlan = (options: PlanOptions = {}): Plan => {
  const { desired: d, live: l } = mixedInputs();
  return planChanges(d, l, options);
};
