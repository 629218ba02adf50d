/**
 * A seeded org holding every kind, and a config over it, shared by the plan and drift
 * integration tests. Secret values are long and distinctive so the output scans
 * (expectNoSecrets) cannot miss them or match by chance.
 */
import type { Seed } from "../../emulator/src/seed.js";

export const ORG_ID = "0a7e0000-0000-4000-8000-000000000001";
export const API_ID = "0b7e0000-0000-4000-8000-000000000001";
export const WEB_ID = "0b7e0000-0000-4000-8000-000000000002";
export const CTX_PROD_ID = "0c7e0000-0000-4000-8000-000000000001";
export const CTX_STALE_ID = "0c7e0000-0000-4000-8000-000000000002";
export const CTX_LEGACY_ID = "0c7e0000-0000-4000-8000-000000000003";
export const WEBHOOK_SLACK_ID = "0d7e0000-0000-4000-8000-000000000001";
export const WEBHOOK_OLD_ID = "0d7e0000-0000-4000-8000-000000000002";
export const PIPELINE_BUILD_ID = "0e7e0000-0000-4000-8000-000000000001";
export const TRIGGER_NIGHTLY_ID = "0f7e0000-0000-4000-8000-000000000001";

export const REPO = { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" };

/** Live secret values (in the seed). */
export const LIVE_SECRETS = {
  prodKey: "live-prod-aws-secret-value-K1111",
  prodToken: "live-prod-deploy-token-value-T2222",
  stale1: "live-stale-secret-number-one-S3333",
  stale2: "live-stale-secret-number-two-S4444",
  npm: "live-npm-token-value-N5555",
  slackSigning: "live-slack-signing-secret-G6666",
} as const;

/** Desired secret values (in the environment of the CLI). */
export const DESIRED_SECRETS = {
  // Different last four than the live value: planned as an update.
  PROD_AWS_SECRET: "desired-prod-aws-secret-value-K9999",
  // A different value with the same last four: unverified, left alone.
  PROD_DEPLOY_TOKEN: "desired-other-deploy-token-T2222",
  NPM_TOKEN: "desired-npm-token-value-N7777",
  NEW_SECRET: "desired-brand-new-secret-value-Z8888",
  SLACK_SIGNING_SECRET: "desired-slack-signing-secret-G1212",
} as const;

export const ALL_SECRETS: readonly string[] = [
  ...Object.values(LIVE_SECRETS),
  ...Object.values(DESIRED_SECRETS),
];

/** `${env:NAME}` as config text (built so no source string holds a template placeholder). */
export const envRef = (name: string): string => "$" + "{env:" + name + "}";

export const baseSeed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      settings: { enable_private_orbs: false, enable_ai_agents: true },
      contexts: [
        {
          id: CTX_PROD_ID,
          name: "deploy-prod",
          env: {
            AWS_REGION: "eu-west-1",
            AWS_SECRET_ACCESS_KEY: LIVE_SECRETS.prodKey,
            DEPLOY_TOKEN: LIVE_SECRETS.prodToken,
          },
          restrictions: [
            { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
            { restriction_type: "group", match_pattern: ORG_ID },
          ],
        },
        {
          id: CTX_STALE_ID,
          name: "stale",
          env: { ONE: LIVE_SECRETS.stale1, TWO: LIVE_SECRETS.stale2 },
        },
        { id: CTX_LEGACY_ID, name: "legacy-build" },
      ],
      projects: [
        {
          id: API_ID,
          slug: "gh/acme/api",
          repo: REPO,
          settings: { enable_auto_cancel_redundant_workflows: false, is_oss: false },
          env: { NPM_TOKEN: LIVE_SECRETS.npm, OLD_VAR: "live-old-variable-value-O1010" },
          webhooks: [
            {
              id: WEBHOOK_SLACK_ID,
              name: "slack",
              url: "https://hooks.example.com/services/T0",
              events: ["workflow-completed"],
              signing_secret: LIVE_SECRETS.slackSigning,
            },
            {
              id: WEBHOOK_OLD_ID,
              name: "old-hook",
              url: "https://old.example.com/hook",
              events: ["job-completed"],
            },
          ],
          pipelines: [
            {
              id: PIPELINE_BUILD_ID,
              name: "build",
              config: { type: "vcs", file_path: ".service/config.yml", vcs: REPO },
              checkout: { vcs: REPO },
              triggers: [
                {
                  id: TRIGGER_NIGHTLY_ID,
                  event: {
                    type: "schedule",
                    schedule: {
                      name: "nightly",
                      cron_expression: "0 2 * * *",
                      attribution_actor: "system",
                    },
                  },
                  config: { ref: "main" },
                  checkout: { ref: "main" },
                  parameters: { deploy: false },
                },
              ],
            },
          ],
        },
        { id: WEB_ID, slug: "gh/acme/web", oauth: true },
      ],
    },
  ],
});

/**
 * A config that matches the seed exactly: with `matchingEnv` (the live secret values) the
 * plan is empty. `gh/acme/web` is an OAuth project: `pipelines: {}` makes its synthetic
 * pipeline a would-be delete, which the probe must turn into no change. Tests derive changed
 * configs from this text by replacement.
 */
export const matchingConfig = `org: gh/acme
settings:
  enable_private_orbs: false
contexts:
  deploy-prod:
    env:
      AWS_REGION: eu-west-1
      AWS_SECRET_ACCESS_KEY: \${env:PROD_AWS_SECRET}
      DEPLOY_TOKEN: \${env:PROD_DEPLOY_TOKEN}
    restrictions:
      - expression: pipeline.git.branch == "main"
      - group: all-members
  stale:
    env:
      ONE: \${env:STALE_ONE}
      TWO: \${env:STALE_TWO}
ignore:
  - context["legacy-*"]
projects:
  gh/acme/api:
    settings:
      enable_auto_cancel_redundant_workflows: false
    env:
      NPM_TOKEN: \${env:NPM_TOKEN}
      OLD_VAR: \${env:OLD_VAR}
    webhooks:
      slack:
        url: https://hooks.example.com/services/T0
        events: [workflow-completed]
        signing_secret: \${env:SLACK_SIGNING_SECRET}
      old-hook:
        url: https://old.example.com/hook
        events: [job-completed]
    pipelines:
      build:
        config:
          type: vcs
          file_path: .service/config.yml
          vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
        checkout:
          vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
        triggers:
          nightly:
            event:
              type: schedule
              schedule: { cron_expression: "0 2 * * *", attribution_actor: system }
            config: { ref: main }
            checkout: { ref: main }
            parameters: { deploy: false }
  gh/acme/web:
    pipelines: {}
`;

/** The environment for matchingConfig: the live values, so nothing differs. */
export const matchingEnv: Readonly<Record<string, string>> = {
  PROD_AWS_SECRET: LIVE_SECRETS.prodKey,
  PROD_DEPLOY_TOKEN: LIVE_SECRETS.prodToken,
  STALE_ONE: LIVE_SECRETS.stale1,
  STALE_TWO: LIVE_SECRETS.stale2,
  NPM_TOKEN: LIVE_SECRETS.npm,
  OLD_VAR: "live-old-variable-value-O1010",
  SLACK_SIGNING_SECRET: LIVE_SECRETS.slackSigning,
};
