/**
 * Configs for the apply integration tests, over the shared plan seed
 * (test/integration/plan-fixture.ts). `createConfig` adds one new item of every kind;
 * `changeConfig` (applied after it) updates, replaces and deletes items of every kind.
 */
import type { Seed } from "../../emulator/src/seed.js";
import { DESIRED_SECRETS, envRef, matchingConfig, matchingEnv } from "./plan-fixture.js";

export const NEW_REPO = { provider: "github_app", repo_id: "456", repo_full_name: "acme/api2" };

/** matchingConfig plus a new item of every kind that can be created. */
export const createConfig = matchingConfig
  .replace(
    "  stale:\n",
    `  new-ctx:
    env:
      NEW_KEY: ${envRef("NEW_SECRET")}
    restrictions:
      - expression: pipeline.git.branch == "dev"
  stale:
`,
  )
  .replace(
    `      OLD_VAR: ${envRef("OLD_VAR")}\n`,
    `      OLD_VAR: ${envRef("OLD_VAR")}\n      NEW_VAR: ${envRef("NEW_SECRET")}\n`,
  )
  .replace(
    "      old-hook:\n",
    `      deploys:
        url: https://deploys.example.com/hook
        events: [job-completed, workflow-completed]
        signing_secret: ${envRef("NEW_SECRET")}
      old-hook:
`,
  )
  .replace(
    "  gh/acme/web:\n",
    `      deploy:
        description: deploys
        config:
          type: vcs
          file_path: .service/deploy.yml
          vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
        triggers:
          on-push:
            event:
              type: vcs
              vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
              filter: { preset: all-pushes }
          hook:
            event:
              type: webhook
              webhook: { source: github, secret: "${envRef("NEW_SECRET")}" }
            config: { ref: main }
            checkout: { ref: main }
          weekly:
            event:
              type: schedule
              schedule: { cron_expression: "0 3 * * 1", attribution_actor: system }
            config: { ref: main }
            checkout: { ref: main }
            parameters: { full: true }
  gh/acme/web:
`,
  );

/**
 * After createConfig: an update, a replace and a delete of every kind that has them.
 * - org settings, project settings: updated
 * - context `stale`: deleted; deploy-prod env: one updated, one deleted; restrictions: one
 *   deleted (all-members), one created (a project restriction)
 * - project env: NPM_TOKEN updated (POST refused → DELETE → POST), OLD_VAR deleted
 * - webhooks: slack replaced (its signing secret dropped, url changed), old-hook updated
 *   (events, is_enabled), deploys deleted
 * - pipelines: build replaced (config.vcs; its trigger is replaced with it), deploy updated;
 *   triggers: weekly and on-push updated, hook deleted, build's nightly replaced
 */
export const changeConfig = createConfig
  .replace("  enable_private_orbs: false\n", "  enable_private_orbs: true\n")
  .replace("      AWS_REGION: eu-west-1\n", "")
  .replace("      - group: all-members\n", "      - project: gh/acme/api\n")
  .replace(
    `  stale:
    env:
      ONE: ${envRef("STALE_ONE")}
      TWO: ${envRef("STALE_TWO")}
`,
    "",
  )
  .replace(
    "      enable_auto_cancel_redundant_workflows: false\n",
    "      enable_auto_cancel_redundant_workflows: true\n",
  )
  .replace(`      OLD_VAR: ${envRef("OLD_VAR")}\n`, "")
  .replace("https://hooks.example.com/services/T0", "https://hooks.example.com/services/T1")
  .replace(
    `      deploys:
        url: https://deploys.example.com/hook
        events: [job-completed, workflow-completed]
        signing_secret: ${envRef("NEW_SECRET")}
`,
    "",
  )
  .replace(
    "        url: https://old.example.com/hook\n        events: [job-completed]\n",
    "        url: https://old.example.com/hook\n        events: [workflow-completed]\n        is_enabled: false\n",
  )
  .replace(`        signing_secret: ${envRef("SLACK_SIGNING_SECRET")}\n`, "")
  .replace(
    `          file_path: .service/config.yml
          vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
        checkout:
          vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }`,
    `          file_path: .service/config.yml
          vcs: { provider: github_app, repo_id: "456", repo_full_name: acme/api2 }
        checkout:
          vcs: { provider: github_app, repo_id: "456", repo_full_name: acme/api2 }`,
  )
  .replace("        description: deploys\n", "        description: deploys to prod\n")
  .replace(
    `          hook:
            event:
              type: webhook
              webhook: { source: github, secret: "${envRef("NEW_SECRET")}" }
            config: { ref: main }
            checkout: { ref: main }
`,
    "",
  )
  .replace(
    `          on-push:
            event:
              type: vcs
              vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
              filter: { preset: all-pushes }
`,
    `          on-push:
            event:
              type: vcs
              vcs: { provider: github_app, repo_id: "123", repo_full_name: acme/api }
              filter: { preset: only-tags }
`,
  )
  .replace('cron_expression: "0 3 * * 1"', 'cron_expression: "0 4 * * 1"');

/** The environment for both configs (changeConfig updates the two secrets that differ). */
export const applyEnv: Readonly<Record<string, string>> = {
  ...matchingEnv,
  NEW_SECRET: DESIRED_SECRETS.NEW_SECRET,
};

export const changeEnv: Readonly<Record<string, string>> = {
  ...applyEnv,
  PROD_AWS_SECRET: DESIRED_SECRETS.PROD_AWS_SECRET,
  NPM_TOKEN: DESIRED_SECRETS.NPM_TOKEN,
};

/** Every identity key must be unique in its parent: the emulator's state has no duplicate. */
export const duplicates = (s: Seed): string[] => {
  const out: string[] = [];
  const seen = (what: string, keys: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    for (const [k, n] of counts) if (n > 1) out.push(`${what}: ${k} x${n}`);
  };
  for (const org of s.orgs ?? []) {
    seen(
      `${org.slug} contexts`,
      (org.contexts ?? []).map((c) => c.name),
    );
    for (const c of org.contexts ?? []) {
      seen(
        `context ${c.name} restrictions`,
        (c.restrictions ?? []).map((r) => `${r.restriction_type}:${r.match_pattern}`),
      );
    }
    for (const p of org.projects ?? []) {
      seen(
        `${p.slug} webhooks`,
        (p.webhooks ?? []).map((w) => w.name),
      );
      seen(
        `${p.slug} pipelines`,
        (p.pipelines ?? []).map((x) => x.name),
      );
      for (const pl of p.pipelines ?? []) {
        seen(
          `${p.slug} ${pl.name} triggers`,
          (pl.triggers ?? []).map((t) => {
            const e = t.event as {
              type: string;
              vcs?: { repo_id?: string };
              schedule?: { name?: string };
              webhook?: { name?: string };
              filter?: unknown;
            };
            // Identity (design.md §1): vcs triggers by repo and, where several share it, filter.
            return e.type === "vcs"
              ? `vcs:${e.vcs?.repo_id}:${JSON.stringify(e.filter ?? null)}`
              : `${e.type}:${e.schedule?.name ?? e.webhook?.name}`;
          }),
        );
      }
    }
  }
  return out;
};

/**
 * The writes of a run apart from its org lock's (issue 15: apply takes the lock, a context
 * it creates and deletes, before it reads). Tests that use this also check the contexts
 * themselves, so a real context write cannot hide here.
 */
export const configWrites = <Q extends { readonly method: string; readonly path: string }>(
  log: readonly Q[],
): Q[] =>
  log.filter(
    (q) =>
      q.method !== "GET" &&
      !(q.method === "POST" && q.path === "/api/v3/contexts") &&
      !(q.method === "DELETE" && /^\/api\/v3\/contexts\/[^/]+$/.test(q.path)),
  );

/** The org's context names, sorted. */
export const contextNames = (s: Seed): string[] =>
  (s.orgs?.[0]?.contexts ?? []).map((c) => c.name).sort();
