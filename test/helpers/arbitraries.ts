/** fast-check arbitraries of desired configs (small, but covering every kind). */
import fc from "fast-check";
import { Secret } from "../../src/core/secret.js";
import {
  type DesiredConfig,
  type DesiredRestriction,
  FILTER_PRESETS,
  type WebhookEvent,
} from "../../src/model/desired.js";
import {
  dContext,
  desired,
  dOrg,
  dPipeline,
  dProject,
  dTrigger,
  dVcsTrigger,
  dWebhook,
  PROJECT,
  REPO,
  rExpr,
  rGroup,
  rProject,
} from "./builders.js";

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,7}$/);
/**
 * Secret values are distinctive (`sv-` and at least 6 more characters, longer than any
 * generated name) so a test can scan outputs for them.
 */
const secretArb = fc
  .stringMatching(/^[A-Za-z0-9]{6,16}$/)
  .map((v) => new Secret(`sv-${v}`, "env:X"));
const env = fc
  .uniqueArray(fc.tuple(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,7}$/), secretArb), {
    maxLength: 4,
    selector: ([k]) => k,
  })
  .map((entries) => Object.fromEntries(entries));

const restriction: fc.Arbitrary<DesiredRestriction> = fc.oneof(
  fc.constantFrom("gh/acme/api", "gh/acme/web").map(rProject),
  fc.string({ minLength: 1, maxLength: 12 }).map(rExpr),
  fc.constantFrom("all-members", "0e0e0e0e-1111-4222-8333-944445555666").map(rGroup),
);
const restrictions = fc.uniqueArray(restriction, {
  maxLength: 3,
  selector: (r) =>
    `${r.type}:${r.type === "project" ? r.project : r.type === "group" ? r.group : r.expression}`,
});

const context = fc
  .record({
    name,
    env: fc.option(env, { nil: undefined }),
    restrictions: fc.option(restrictions, { nil: undefined }),
  })
  .map((c) =>
    dContext(c.name, {
      ...(c.env === undefined ? {} : { env: c.env }),
      ...(c.restrictions === undefined ? {} : { restrictions: c.restrictions }),
    }),
  );

const events = fc
  .subarray<WebhookEvent>(["workflow-completed", "job-completed"], { minLength: 1 })
  .map((e) => e as readonly WebhookEvent[]);

const webhook = fc
  .record({
    name,
    events,
    scope: fc.option(fc.constantFrom("project", "org"), { nil: undefined }),
    should_verify_tls: fc.option(fc.boolean(), { nil: undefined }),
    is_enabled: fc.option(fc.boolean(), { nil: undefined }),
    signing_secret: fc.option(secretArb, { nil: undefined }),
    // A secret url is the webhook's own, or one shared across webhooks and configs, so a
    // live webhook under another name can hold a url the config marks secret (issue 21: a
    // renamed webhook's delete block).
    secretUrl: fc.oneof(fc.boolean(), fc.constantFrom("shared-1", "shared-2")),
  })
  .map(({ name: n, secretUrl, ...w }) =>
    dWebhook(n, {
      events: w.events,
      url:
        secretUrl === false
          ? `https://h.example.com/${n}`
          : new Secret(
              `https://h.example.com/SECRET-${secretUrl === true ? n : secretUrl}`,
              "env:U",
            ),
      ...(w.scope === undefined ? {} : { scope: w.scope }),
      ...(w.should_verify_tls === undefined ? {} : { should_verify_tls: w.should_verify_tls }),
      ...(w.is_enabled === undefined ? {} : { is_enabled: w.is_enabled }),
      ...(w.signing_secret === undefined ? {} : { signing_secret: w.signing_secret }),
    }),
  );

const schedule = fc
  .record({
    key: name,
    cron: fc.constantFrom("0 2 * * *", "*/5 * * * *"),
    disabled: fc.option(fc.boolean(), { nil: undefined }),
    parameters: fc.option(fc.dictionary(name, fc.oneof(fc.boolean(), fc.integer())), {
      nil: undefined,
    }),
    ref: fc.option(fc.constantFrom("main", "dev"), { nil: undefined }),
  })
  .map((t) =>
    dTrigger(`s-${t.key}`, {
      event: { type: "schedule", schedule: { cron_expression: t.cron } },
      ...(t.disabled === undefined ? {} : { is_disabled: t.disabled }),
      ...(t.parameters === undefined ? {} : { parameters: t.parameters }),
      ...(t.ref === undefined ? {} : { config: { ref: t.ref } }),
    }),
  );

const hookTrigger = fc
  .record({ key: name, secret: fc.option(secretArb, { nil: undefined }) })
  .map((t) =>
    dTrigger(`w-${t.key}`, {
      event: {
        type: "webhook",
        webhook: { source: "ext", ...(t.secret === undefined ? {} : { secret: t.secret }) },
      },
    }),
  );

const vcsTriggers = fc
  .uniqueArray(fc.constantFrom(...FILTER_PRESETS), { maxLength: 2 })
  .map((presets) => presets.map((p) => dVcsTrigger(`v-${p}`, { preset: p }, REPO)));

const pipeline = fc
  .record({
    name,
    description: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    schedules: fc.uniqueArray(schedule, { maxLength: 2, selector: (t) => t.key }),
    hooks: fc.uniqueArray(hookTrigger, { maxLength: 2, selector: (t) => t.key }),
    vcs: vcsTriggers,
    managed: fc.boolean(),
  })
  .map((p) =>
    dPipeline(p.name, {
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.managed ? { triggers: [...p.schedules, ...p.hooks, ...p.vcs] } : {}),
    }),
  );

const project = fc
  .record({
    settings: fc.option(
      fc.record(
        {
          is_oss: fc.boolean(),
          enable_dynamic_config: fc.boolean(),
          pr_only_branch_overrides: fc.uniqueArray(name, { maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
    env: fc.option(env, { nil: undefined }),
    webhooks: fc.option(fc.uniqueArray(webhook, { maxLength: 3, selector: (w) => w.name }), {
      nil: undefined,
    }),
    pipelines: fc.option(fc.uniqueArray(pipeline, { maxLength: 3, selector: (p) => p.name }), {
      nil: undefined,
    }),
  })
  .map((p) =>
    dProject(PROJECT, {
      ...(p.settings === undefined ? {} : { settings: p.settings }),
      ...(p.env === undefined ? {} : { env: p.env }),
      ...(p.webhooks === undefined ? {} : { webhooks: p.webhooks }),
      ...(p.pipelines === undefined ? {} : { pipelines: p.pipelines }),
    }),
  );

export const desiredConfigArb: fc.Arbitrary<DesiredConfig> = fc
  .record({
    settings: fc.option(
      fc.record(
        { enable_private_orbs: fc.boolean(), enable_ai_agents: fc.boolean() },
        { requiredKeys: [] },
      ),
      {
        nil: undefined,
      },
    ),
    contexts: fc.option(fc.uniqueArray(context, { maxLength: 3, selector: (c) => c.name }), {
      nil: undefined,
    }),
    project,
  })
  .map((o) =>
    desired(
      dOrg({
        ...(o.settings === undefined ? {} : { settings: o.settings }),
        ...(o.contexts === undefined ? {} : { contexts: o.contexts }),
        projects: [o.project],
      }),
    ),
  );
