// Seeded org generator for the benchmarks (issue 8). Pure: the same preset always gives
// the same seed (docs/emulator.md "Seed"), config and secrets, so two runs compare.
//
//   generateOrg(preset) → { seed, emptySeed, configYaml, changedConfigYaml, secrets, counts }
//
// `seed` is the org as the config declares it (a plan against it is empty); `emptySeed` has
// the same org and projects but nothing else (apply creates everything); `changedConfigYaml`
// differs from `configYaml` in about 10% of the managed items (values, urls, cron
// expressions and restrictions changed), so a plan against `seed` has that many updates.

export const TOKEN = "bench-token";
export const ORG_SLUG = "gh/bench";

/** Sizes per preset. `large` is the one issue 8 sets targets for. */
export const PRESETS = {
  tiny: { projects: 4, contexts: 2, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  small: { projects: 20, contexts: 10, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  large: { projects: 200, contexts: 100, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  /** Issue 22's rate-limited apply: 100 projects, 50 contexts (1,900 writes from empty). */
  medium: { projects: 100, contexts: 50, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  /** 5,000 managed items: the planner-alone CPU target. */
  xl: { projects: 250, contexts: 125, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  /** Issue 22's large org: 2,000 projects, 1,000 contexts (40,000 managed items). */
  "large-org": { projects: 2000, contexts: 1000, projectEnv: 5, webhooks: 3, contextEnv: 10 },
  /** Issue 33: 10,000 projects, 5,000 contexts (200,000 managed items; 50 files). */
  "huge-org": { projects: 10000, contexts: 5000, projectEnv: 5, webhooks: 3, contextEnv: 10 },
};

/** Secrets come from a small pool of env vars, as a real pipeline's secret store would. */
const SECRET_POOL = 20;
const secretName = (n) => `BENCH_SECRET_${String(n % SECRET_POOL).padStart(2, "0")}`;
const secretValue = (n) => `bench-secret-value-${String(n % SECRET_POOL).padStart(4, "0")}`;
const changedSecretName = (n) => `BENCH_CHANGED_${String(n % SECRET_POOL).padStart(2, "0")}`;
const changedSecretValue = (n) =>
  `bench-changed-value-z${String(n % SECRET_POOL).padStart(2, "0")}z`;

const pad = (n) => String(n).padStart(3, "0");
const projectSlug = (i) => `p${pad(i)}`;
const contextName = (i) => `ctx-${pad(i)}`;
const repo = (i) => ({
  provider: "github_app",
  repo_id: String(100000 + i),
  repo_full_name: `bench/${projectSlug(i)}`,
});

/** One project's desired content, shared by the seed and the config. `changed` flips ~10%. */
const projectModel = (i, p, changed) => {
  const env = [];
  for (let j = 0; j < p.projectEnv; j++) {
    const n = i * p.projectEnv + j;
    const flip = changed && n % 10 === 0;
    env.push({
      name: `VAR_${j}`,
      ref: flip ? changedSecretName(n) : secretName(n),
      value: flip ? changedSecretValue(n) : secretValue(n),
    });
  }
  const webhooks = [];
  for (let j = 0; j < p.webhooks; j++) {
    const flip = changed && (i * p.webhooks + j) % 10 === 0;
    webhooks.push({
      name: `hook-${j}`,
      url: `https://hooks.example.com/${projectSlug(i)}/${j}${flip ? "/v2" : ""}`,
      events: j % 2 === 0 ? ["workflow-completed"] : ["workflow-completed", "job-completed"],
    });
  }
  const flipPipeline = changed && i % 10 === 0;
  const flipTrigger = changed && i % 10 === 5;
  return {
    slug: projectSlug(i),
    repo: repo(i),
    env,
    webhooks,
    pipelines: [
      {
        name: "build",
        description: flipPipeline ? "Build and test (changed)" : "Build and test",
        file_path: ".service/config.yml",
        trigger: { type: "vcs", name: "pushes" },
      },
      {
        name: "nightly",
        description: "Nightly checks",
        file_path: ".service/nightly.yml",
        trigger: {
          type: "schedule",
          name: "nightly",
          cron: flipTrigger ? "0 3 * * *" : "0 2 * * *",
        },
      },
    ],
  };
};

const contextModel = (i, p, changed) => {
  const env = [];
  for (let j = 0; j < p.contextEnv; j++) {
    const n = 100000 + i * p.contextEnv + j;
    const flip = changed && n % 10 === 0;
    env.push({
      name: `CTX_VAR_${j}`,
      ref: flip ? changedSecretName(n) : secretName(n),
      value: flip ? changedSecretValue(n) : secretValue(n),
    });
  }
  const flip = changed && i % 10 === 3;
  return {
    name: contextName(i),
    env,
    // Three restrictions: one project, one expression, all members of the org.
    restrictionProject: projectSlug((i * 7) % p.projects),
    expression: flip ? 'pipeline.git.branch == "release"' : 'pipeline.git.branch == "main"',
  };
};

const seedProject = (m, withContent) => ({
  slug: m.slug,
  name: m.slug,
  repo: m.repo,
  ...(withContent
    ? {
        env: Object.fromEntries(m.env.map((v) => [v.name, v.value])),
        webhooks: m.webhooks.map((w) => ({
          name: w.name,
          scope: "project",
          url: w.url,
          events: w.events,
        })),
        pipelines: m.pipelines.map((pl) => ({
          name: pl.name,
          description: pl.description,
          config: { type: "vcs", file_path: pl.file_path, vcs: m.repo },
          checkout: { vcs: m.repo },
          triggers: [
            pl.trigger.type === "vcs"
              ? { event: { type: "vcs", vcs: m.repo, filter: { preset: "all-pushes" } } }
              : {
                  config: { ref: "main" },
                  checkout: { ref: "main" },
                  event: {
                    type: "schedule",
                    schedule: {
                      name: pl.trigger.name,
                      cron_expression: pl.trigger.cron,
                      attribution_actor: "system",
                    },
                  },
                },
          ],
        })),
      }
    : {}),
});

const seedContext = (c, orgSlug) => ({
  name: c.name,
  env: Object.fromEntries(c.env.map((v) => [v.name, v.value])),
  restrictions: [
    { restriction_type: "project", match_pattern: c.restrictionProject },
    { restriction_type: "expression", match_pattern: c.expression },
    { restriction_type: "group", match_pattern: orgSlug },
  ],
});

const q = (s) => JSON.stringify(s);

const yamlConfig = (projects, contexts) => {
  const out = [`org: ${ORG_SLUG}`, "contexts:"];
  for (const c of contexts) {
    out.push(`  ${c.name}:`, "    env:");
    for (const v of c.env) out.push(`      ${v.name}: \${env:${v.ref}}`);
    out.push(
      "    restrictions:",
      `      - project: ${ORG_SLUG}/${c.restrictionProject}`,
      `      - expression: ${q(c.expression)}`,
      "      - group: all-members",
    );
  }
  out.push("projects:");
  for (const m of projects) {
    const vcs = `{ provider: ${m.repo.provider}, repo_id: ${q(m.repo.repo_id)}, repo_full_name: ${m.repo.repo_full_name} }`;
    out.push(`  ${ORG_SLUG}/${m.slug}:`, "    env:");
    for (const v of m.env) out.push(`      ${v.name}: \${env:${v.ref}}`);
    out.push("    webhooks:");
    for (const w of m.webhooks) {
      out.push(
        `      ${w.name}:`,
        `        url: ${w.url}`,
        `        events: [${w.events.join(", ")}]`,
      );
    }
    out.push("    pipelines:");
    for (const pl of m.pipelines) {
      out.push(
        `      ${pl.name}:`,
        `        description: ${q(pl.description)}`,
        "        config:",
        "          type: vcs",
        `          file_path: ${pl.file_path}`,
        `          vcs: ${vcs}`,
        "        checkout:",
        `          vcs: ${vcs}`,
        "        triggers:",
      );
      if (pl.trigger.type === "vcs") {
        out.push(
          `          ${pl.trigger.name}:`,
          "            event:",
          "              type: vcs",
          `              vcs: ${vcs}`,
          "              filter: { preset: all-pushes }",
        );
      } else {
        out.push(
          `          ${pl.trigger.name}:`,
          "            event:",
          "              type: schedule",
          `              schedule: { cron_expression: ${q(pl.trigger.cron)}, attribution_actor: system }`,
          "            config: { ref: main }",
          "            checkout: { ref: main }",
        );
      }
    }
  }
  return `${out.join("\n")}\n`;
};

/**
 * The same config as files of at most 200 projects and 100 contexts each (the `large`
 * preset's size, ~380 KB), for a folder config: a file over 1 MiB is refused by the loader.
 * Every file names the org; the loader merges the declarations of one org across files.
 */
const FILE_PROJECTS = 200;
const FILE_CONTEXTS = 100;
const yamlConfigFiles = (projects, contexts) => {
  const files = [];
  const n = Math.max(
    1,
    Math.ceil(projects.length / FILE_PROJECTS),
    Math.ceil(contexts.length / FILE_CONTEXTS),
  );
  for (let i = 0; i < n; i++) {
    const ps = projects.slice(i * FILE_PROJECTS, (i + 1) * FILE_PROJECTS);
    const cs = contexts.slice(i * FILE_CONTEXTS, (i + 1) * FILE_CONTEXTS);
    // A file with no contexts leaves the key out: an empty map would claim "no contexts".
    const text = yamlConfig(ps, cs);
    files.push({
      name: `part-${String(i).padStart(2, "0")}.yaml`,
      text: cs.length > 0 ? text : text.replace("contexts:\n", ""),
    });
  }
  return files;
};

/** Managed items by kind (what a per-item refresh would GET one by one). */
const countItems = (p) => ({
  projects: p.projects,
  project_env_vars: p.projects * p.projectEnv,
  webhooks: p.projects * p.webhooks,
  pipelines: p.projects * 2,
  triggers: p.projects * 2,
  contexts: p.contexts,
  context_env_vars: p.contexts * p.contextEnv,
  context_restrictions: p.contexts * 3,
});

export const generateOrg = (presetName) => {
  const p = PRESETS[presetName];
  if (!p) throw new Error(`unknown preset ${presetName} (${Object.keys(PRESETS).join(", ")})`);
  const build = (changed) => ({
    projects: Array.from({ length: p.projects }, (_, i) => projectModel(i, p, changed)),
    contexts: Array.from({ length: p.contexts }, (_, i) => contextModel(i, p, changed)),
  });
  const base = build(false);
  const changed = build(true);
  const org = (withContent) => ({
    slug: ORG_SLUG,
    name: "Bench",
    // Contexts created by apply would otherwise get a second all-members restriction.
    default_context_restriction: false,
    projects: base.projects.map((m) => seedProject(m, withContent)),
    ...(withContent ? { contexts: base.contexts.map((c) => seedContext(c, ORG_SLUG)) } : {}),
  });
  const secrets = {};
  for (let n = 0; n < SECRET_POOL; n++) {
    secrets[secretName(n)] = secretValue(n);
    secrets[changedSecretName(n)] = changedSecretValue(n);
  }
  return {
    preset: p,
    seed: { tokens: [{ token: TOKEN }], orgs: [org(true)] },
    emptySeed: { tokens: [{ token: TOKEN }], orgs: [org(false)] },
    configYaml: yamlConfig(base.projects, base.contexts),
    changedConfigYaml: yamlConfig(changed.projects, changed.contexts),
    /** The same two configs split into files for a folder config (built only when read). */
    get configFiles() {
      return yamlConfigFiles(base.projects, base.contexts);
    },
    get changedConfigFiles() {
      return yamlConfigFiles(changed.projects, changed.contexts);
    },
    secrets,
    counts: countItems(p),
    // Pipelines the 10% variant changes directly (i % 10 === 0) or through a trigger
    // (i % 10 === 5): each needs one synthetic probe (src/live/synthetic.ts).
    touchedPipelines: changed.projects.filter((_, i) => i % 10 === 0 || i % 10 === 5).length,
  };
};
