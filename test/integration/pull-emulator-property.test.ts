// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configs hold ${env:NAME} placeholders
/**
 * Property (issue 41 "Done when"), against one emulator over real HTTP: a random config
 * (comments, anchors and aliases, flow and block styles, templates, projects keyed by slug
 * or by name) is applied, random changes are made by hand through the service's own API,
 * then `pull`. After it:
 * - `plan` is empty but for the secrets pull named (each `${env:NAME}` it wrote, set here to
 *   a value that is not the live one, and what it said it could not pull);
 * - no masked rendering (`…(abcd)`, `(sensitive)`) is in any file;
 * - no `${env:NAME}` binds two different live values;
 * - `fmt` then `validate` gives the same desired state, and `fmt` is idempotent;
 * - `pull --dry-run` before it holds no secret, and its diff is a patch giving what pull wrote.
 * Few runs (each is an apply, a pull, two plans and two fmts): PROPERTY_RUNS_SCALE searches
 * longer. A counterexample it found is kept below as a fixed case.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Document, isMap, isScalar, visit } from "yaml";
import type { Seed } from "../../emulator/src/seed.js";
import { loadConfig } from "../../src/config/load.js";
import { isSecret } from "../../src/core/secret.js";
import { canonicalConfig } from "../../src/model/config-canonical.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, TEST_TOKEN, type TestEmulator } from "../helpers/emulator.js";
import { gnuPatch } from "../helpers/gnu-patch.js";
import { propertyRuns } from "../helpers/property-runs.js";
import { flowCollections } from "../helpers/yaml-style.js";

const GH_ORG_ID = "4a000000-0000-4000-8000-000000000001";
const SA_ORG_ID = "4a000000-0000-4000-8000-000000000002";
const PROJECT_IDS = {
  api: "4b000000-0000-4000-8000-000000000001",
  web: "4b000000-0000-4000-8000-000000000002",
} as const;
type ProjectName = keyof typeof PROJECT_IDS;
const SETTINGS = ["enable_auto_cancel_redundant_workflows", "is_build_prs_only"] as const;
const EVENTS = ["workflow-completed", "job-completed"] as const;
type Event = (typeof EVENTS)[number];

// ---------------------------------------------------------------------------------------
// The random config.

/**
 * How an env var's value is written: its own placeholder, a literal, one placeholder shared
 * by every item that says "shared" (with one value), or "bait": the name export would give a
 * var made by hand (`PROJECT_API_HAND_MADE`, `CTX_FRESH_AWS`), which pull must not reuse.
 */
type ValueForm = "env" | "literal" | "shared" | "bait";
const events = fc.subarray<Event>([...EVENTS], { minLength: 1 });
const contextArb = fc.record({
  name: fc.constantFrom("deploy", "build"),
  env: fc.dictionary(
    fc.constantFrom("AWS", "TOKEN"),
    fc.constantFrom<ValueForm>("env", "literal", "shared", "bait"),
    { maxKeys: 2 },
  ),
  restrictions: fc.subarray(['pipeline.git.branch == "main"', 'pipeline.git.tag != ""']),
});
const webhookArb = fc.record({ url: fc.constantFrom<"env" | "literal">("env", "literal"), events });
const projectArb = fc.record({
  name: fc.constantFrom<ProjectName>("api", "web"),
  settings: fc.dictionary(fc.constantFrom(...SETTINGS), fc.boolean(), { maxKeys: 2 }),
  env: fc.subarray(["NPM_TOKEN", "SENTRY_DSN"]),
  webhooks: fc.dictionary(fc.constantFrom("slack", "pager"), webhookArb, { maxKeys: 2 }),
  extendsTemplate: fc.boolean(),
});
const configArb = fc.record({
  keyByName: fc.boolean(),
  contexts: fc.uniqueArray(contextArb, { selector: (c) => c.name, maxLength: 2 }),
  projects: fc.uniqueArray(projectArb, { selector: (p) => p.name, minLength: 1, maxLength: 2 }),
  template: fc.option(
    fc.record({
      settings: fc.dictionary(fc.constantFrom(...SETTINGS), fc.boolean(), { maxKeys: 1 }),
      webhook: fc.option(webhookArb, { nil: undefined }),
    }),
    { nil: undefined },
  ),
  flow: fc.boolean(),
  comments: fc.boolean(),
  /** Contexts in a file of their own (`contexts.yaml`), the rest in `waybill.yaml`. */
  split: fc.boolean(),
  /** A project's second webhook takes the first's keys by a YAML merge key (`<<: *hook`). */
  mergeKeys: fc.boolean(),
  /** The same events list (and restrictions list) written once, with an anchor, then aliased. */
  anchors: fc.boolean(),
});
type ConfigSpec = typeof configArb extends fc.Arbitrary<infer T> ? T : never;

const envRef = (name: string): string => `\${env:${name}}`;
const upper = (s: string): string => s.toUpperCase().replace(/[^A-Z0-9]/g, "_");
const orgSlug = (c: ConfigSpec): string => (c.keyByName ? `circleci/${SA_ORG_ID}` : "gh/acme");
const projectKey = (c: ConfigSpec, p: ProjectName): string => (c.keyByName ? p : `gh/acme/${p}`);

/** The config's text and the environment its placeholders read (the values apply sends). */
const render = (c: ConfigSpec): { files: Record<string, string>; env: Record<string, string> } => {
  const env: Record<string, string> = {};
  const value = (form: ValueForm, name: string): string => {
    if (form === "literal") return `literal-${name.toLowerCase()}-value-41`;
    const bait = name.endsWith("_AWS") ? "CTX_FRESH_AWS" : "PROJECT_API_HAND_MADE";
    const key = form === "shared" ? "SHARED_TOKEN" : form === "bait" ? bait : name;
    env[key] = `live-${key.toLowerCase()}-value-41`;
    return envRef(key);
  };
  const url = (form: "env" | "literal", where: string): string => {
    if (form === "literal") return `https://hooks.example.com/${where.toLowerCase()}`;
    const key = `HOOK_${upper(where)}_URL`;
    env[key] = `https://hooks.example.com/env/${where.toLowerCase()}`;
    return envRef(key);
  };
  // One list object used twice: `yaml` writes it once with an anchor, then as an alias.
  const sharedEvents: Event[] = [...EVENTS];
  const hook = (w: { url: "env" | "literal"; events: Event[] }, where: string) => ({
    url: url(w.url, where),
    events:
      c.anchors && !c.mergeKeys && w.events.length === EVENTS.length ? sharedEvents : w.events,
  });
  const doc: Record<string, unknown> = { org: orgSlug(c) };
  if (c.template !== undefined) {
    doc.templates = {
      projects: {
        service: {
          ...(Object.keys(c.template.settings).length > 0 ? { settings: c.template.settings } : {}),
          ...(c.template.webhook
            ? { webhooks: { team: hook(c.template.webhook, "TEMPLATE_TEAM") } }
            : {}),
        },
      },
    };
  }
  const sharedRestrictions = c.contexts[0]?.restrictions.map((expression) => ({ expression }));
  const contexts = Object.fromEntries(
    c.contexts.map((x) => [
      x.name,
      {
        env: Object.fromEntries(
          Object.entries(x.env).map(([k, form]) => [k, value(form, `CTX_${upper(x.name)}_${k}`)]),
        ),
        // Issue 41: a context made by hand is pulled with what the service gave it; the
        // config's own declare theirs (an all-members group, as apply leaves it, or a list).
        restrictions:
          c.anchors &&
          sharedRestrictions &&
          x.restrictions.join() === c.contexts[0]?.restrictions.join()
            ? sharedRestrictions
            : x.restrictions.map((expression) => ({ expression })),
      },
    ]),
  );
  if (!c.split) doc.contexts = contexts;
  doc.projects = Object.fromEntries(
    c.projects.map((p) => [
      projectKey(c, p.name),
      {
        ...(c.template !== undefined && p.extendsTemplate ? { extends: ["service"] } : {}),
        settings: p.settings,
        env: Object.fromEntries(
          p.env.map((k) => [k, value("env", `PROJECT_${upper(p.name)}_${k}`)]),
        ),
        webhooks: Object.fromEntries(
          Object.entries(p.webhooks).map(([name, w]) => [name, hook(w, `${p.name}_${name}`)]),
        ),
      },
    ]),
  );
  const files: Record<string, string> = { "waybill.yaml": style(c, doc) };
  if (c.split) files["contexts.yaml"] = style(c, { org: orgSlug(c), contexts });
  return { files, env };
};

/** The document as text in the spec's style: flow or block, merge keys, comments. */
const style = (c: ConfigSpec, doc: Record<string, unknown>): string => {
  const d = new Document(doc);
  if (c.mergeKeys) {
    // A project's second webhook: `<<: *hook` to the first, and its own url (its events
    // come from the first's).
    visit(d, {
      Pair: (_, pair) => {
        if (!isScalar(pair.key) || pair.key.value !== "webhooks" || !isMap(pair.value)) return;
        const [first, second] = pair.value.items;
        if (!first || !second || !isMap(first.value) || !isMap(second.value)) return;
        const alias = d.createAlias(first.value, "hook");
        second.value.items = second.value.items.filter(
          (i) => !(isScalar(i.key) && i.key.value === "events"),
        );
        second.value.items.unshift(d.createPair("<<", alias));
      },
    });
  }
  if (c.flow) flowCollections(d);
  const text = d.toString({ indent: 2, indentSeq: true, lineWidth: 0 });
  if (!c.comments) return text;
  const commented = text
    .split("\n")
    .map((l, i) => (l.trim() === "" || i % 2 === 1 ? l : `${l} # note ${i}`))
    .join("\n");
  return `# the org, as Git says it should be\n${commented}`;
};

// ---------------------------------------------------------------------------------------
// The seed (the org and its projects; apply makes the rest) and the changes made by hand.

const seedFor = (c: ConfigSpec): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    c.keyByName
      ? {
          id: SA_ORG_ID,
          slug: orgSlug(c),
          projects: (["api", "web"] as const).map((p) => ({
            id: PROJECT_IDS[p],
            slug: p,
            name: p,
          })),
        }
      : {
          id: GH_ORG_ID,
          slug: "gh/acme",
          name: "acme",
          projects: (["api", "web"] as const).map((p) => ({
            id: PROJECT_IDS[p],
            slug: `gh/acme/${p}`,
            repo: {
              provider: "github_app",
              repo_id: String(p.length),
              repo_full_name: `acme/${p}`,
            },
          })),
        },
  ],
});

type Hand =
  | { kind: "setting"; project: ProjectName; key: (typeof SETTINGS)[number]; value: boolean }
  | { kind: "events"; hook: number; events: Event[] }
  | { kind: "url"; hook: number }
  | { kind: "env"; project: ProjectName; name: string }
  | { kind: "restriction"; context: number; expression: string }
  | { kind: "context"; name: string; key: string }
  | { kind: "webhook"; project: ProjectName; name: string; events: Event[] }
  | { kind: "ctxenv"; context: number; key: string }
  | { kind: "drop"; hook: number };

const project = fc.constantFrom<ProjectName>("api", "web");
const handArb: fc.Arbitrary<Hand> = fc.oneof(
  fc.record({
    kind: fc.constant("setting" as const),
    project,
    key: fc.constantFrom(...SETTINGS),
    value: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("events" as const), hook: fc.nat(5), events }),
  fc.record({ kind: fc.constant("url" as const), hook: fc.nat(5) }),
  fc.record({
    kind: fc.constant("env" as const),
    project,
    name: fc.constantFrom("HAND_MADE", "NPM_TOKEN"),
  }),
  fc.record({
    kind: fc.constant("restriction" as const),
    context: fc.nat(3),
    expression: fc.constantFrom(
      'pipeline.git.tag != ""',
      "pipeline.x == 1",
      // What YAML reads otherwise unless quoted: a `: `, a ` #`, a leading quote or `[`.
      'pipeline.git.branch == "a: b #c"',
      "'quoted' == pipeline.git.tag",
      "[x] == pipeline.git.tag",
    ),
  }),
  // A context made by hand whose name differs from a declared one by case only: what export
  // would call its env var is the name the config already binds (issue 41).
  fc.record({
    kind: fc.constant("context" as const),
    name: fc.constantFrom("Deploy", "Build", "fresh", "odd: name #1", "- dash", 'quote"d'),
    key: fc.constantFrom("AWS", "TOKEN"),
  }),
  fc.record({
    kind: fc.constant("webhook" as const),
    project,
    name: fc.constantFrom("second", "by-hand", "x: y #z", "[list]"),
    events,
  }),
  // An env var added to a declared context: export would name it CTX_<CONTEXT>_<KEY>.
  fc.record({
    kind: fc.constant("ctxenv" as const),
    context: fc.nat(3),
    key: fc.constantFrom("AWS", "TOKEN", "ADDED"),
  }),
  // A webhook deleted by hand: pull runs with --prune then.
  fc.record({ kind: fc.constant("drop" as const), hook: fc.nat(5) }),
);

interface DumpedOrg {
  readonly id: string;
  readonly contexts?: { id: string; name: string; env?: Record<string, string> }[];
  readonly projects?: {
    id: string;
    slug: string;
    name?: string;
    env?: Record<string, string>;
    webhooks?: { id: string; name: string; url: string; signing_secret?: string }[];
  }[];
}
const orgOf = async (emulator: TestEmulator): Promise<DumpedOrg> =>
  ((await emulator.state()).orgs?.[0] ?? {}) as unknown as DumpedOrg;

/** Make the changes through the service's API; each must be accepted. */
const changeByHand = async (emulator: TestEmulator, hands: readonly Hand[]): Promise<void> => {
  let n = 0;
  for (const h of hands) {
    const org = await orgOf(emulator);
    const hooks = (org.projects ?? []).flatMap((p) => p.webhooks ?? []);
    const call = async (method: string, path: string, body: unknown): Promise<void> => {
      const r = await emulator.call(method, path, body);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    };
    n++;
    switch (h.kind) {
      case "setting":
        await call("POST", `/api/v3/projects/${PROJECT_IDS[h.project]}/update-settings`, {
          [h.key]: h.value,
        });
        break;
      case "events":
      case "url": {
        const w = hooks[h.hook % Math.max(1, hooks.length)];
        if (w === undefined) break;
        await call(
          "POST",
          `/api/v3/webhooks/${w.id}/update`,
          h.kind === "events"
            ? { events: h.events }
            : { url: `https://hooks.example.com/hand/${n}` },
        );
        break;
      }
      case "env":
        await call("POST", `/api/v3/projects/${PROJECT_IDS[h.project]}/environment-variables`, {
          name: h.name,
          value: `hand-value-${n}-41`,
        });
        break;
      case "restriction": {
        const ctx = (org.contexts ?? [])[h.context % Math.max(1, org.contexts?.length ?? 0)];
        if (ctx === undefined) break;
        const has = await emulator.call(
          "GET",
          `/api/v3/context-restrictions?filter[context_id]=${ctx.id}`,
        );
        const listed = JSON.stringify(has.body);
        if (listed.includes(JSON.stringify(h.expression).slice(1, -1))) break;
        await call("POST", "/api/v3/context-restrictions", {
          data: {
            attributes: { restriction_type: "expression", match_pattern: h.expression },
            references: { context: { id: ctx.id } },
          },
        });
        break;
      }
      case "context": {
        if ((org.contexts ?? []).some((x) => x.name === h.name)) break;
        const made = await emulator.call("POST", "/api/v3/contexts", {
          data: { attributes: { name: h.name }, references: { org: { id: org.id } } },
        });
        expect(made.status).toBe(201);
        const id = (made.body as { data: { id: string } }).data.id;
        await call("POST", `/api/v3/contexts/${id}/env-vars/set`, {
          name: h.key,
          value: `hand-ctx-${n}-41`,
        });
        break;
      }
      case "ctxenv": {
        const ctx = (org.contexts ?? [])[h.context % Math.max(1, org.contexts?.length ?? 0)];
        if (ctx === undefined) break;
        await call("POST", `/api/v3/contexts/${ctx.id}/env-vars/set`, {
          name: h.key,
          value: `hand-ctxenv-${n}-41`,
        });
        break;
      }
      case "drop": {
        const w = hooks[h.hook % Math.max(1, hooks.length)];
        if (w !== undefined) await call("DELETE", `/api/v3/webhooks/${w.id}`, undefined);
        break;
      }
      case "webhook": {
        // Two webhooks of one name are a case of their own (a config keys them by name).
        const mine = (org.projects ?? []).find((p) => p.id === PROJECT_IDS[h.project]);
        if ((mine?.webhooks ?? []).some((w) => w.name === h.name)) break;
        await call("POST", "/api/v3/webhooks", {
          data: {
            attributes: {
              name: h.name,
              scope: "project",
              url: `https://hooks.example.com/new/${n}`,
              events: h.events,
            },
            references: { project: { id: PROJECT_IDS[h.project] } },
          },
        });
        break;
      }
    }
  }
};

// ---------------------------------------------------------------------------------------

const MASKED = /…\(|\(sensitive\)|\(masked/;

/**
 * Every `${env:NAME}` of the loaded config with the live value at each place it stands
 * (by item address), but at the places `skip` names.
 */
const bindings = (
  desired: DesiredConfig,
  org: DumpedOrg,
  skip: (address: string) => boolean,
): Map<string, Set<string>> => {
  const out = new Map<string, Set<string>>();
  const bind = (v: unknown, live: string | undefined, address: string): void => {
    if (!isSecret(v) || !v.origin.startsWith("env:") || live === undefined) return;
    if (skip(address)) return;
    const name = v.origin.slice(4);
    const set = out.get(name) ?? new Set<string>();
    set.add(live);
    out.set(name, set);
  };
  for (const o of desired.orgs) {
    for (const [name, ctx] of o.contexts ?? []) {
      const live = (org.contexts ?? []).find((x) => x.name === name);
      for (const [k, e] of ctx.env ?? []) {
        bind(e.value, live?.env?.[k], `context["${name}"].env["${k}"]`);
      }
    }
    for (const [key, p] of o.projects) {
      const live = (org.projects ?? []).find((x) => x.slug === key || x.name === key);
      for (const [k, e] of p.env ?? [])
        bind(e.value, live?.env?.[k], `project["${key}"].env["${k}"]`);
      for (const [name, w] of p.webhooks ?? []) {
        const lw = (live?.webhooks ?? []).filter((x) => x.name === name);
        if (lw.length === 1) bind(w.url, lw[0]?.url, `project["${key}"].webhook["${name}"]`);
      }
    }
  }
  return out;
};

describe("pull against the emulator (property)", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  beforeAll(async () => {
    emulator = await startTestEmulator({ tokens: [{ token: TEST_TOKEN }] });
    tmp = await makeTempDir();
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  const check = async (c: ConfigSpec, hands: readonly Hand[], run: number): Promise<void> => {
    const { files, env } = render(c);
    const dir = join(tmp.dir, `run-${run}`);
    for (const [name, content] of Object.entries(files))
      await tmp.write(`run-${run}/${name}`, content);
    const text = Object.entries(files)
      .map(([name, content]) => `# ${name}\n${content}`)
      .join("\n");
    const texts = (): string =>
      readdirSync(dir)
        .sort()
        .map((f) => `# ${f}\n${readFileSync(join(dir, f), "utf8")}`)
        .join("\n");
    await emulator.reset(seedFor(c));
    const cli = (args: string[], extra: Record<string, string> = {}) =>
      runCli([...args, "-c", dir], {
        baseUrl: emulator.url,
        token: emulator.token,
        env: { ...env, ...extra },
      });
    const applied = await cli(["apply", "--auto-approve"]);
    expect(applied.code, `${text}\n${applied.stderr}`).toBe(0);
    expect((await cli(["plan", "--detailed-exitcode"])).code, `apply converged:\n${text}`).toBe(0);

    await changeByHand(emulator, hands);
    const args = hands.some((h) => h.kind === "drop") ? ["pull", "--prune"] : ["pull"];
    const own = Object.fromEntries(
      readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]),
    );
    const dry = await cli([...args, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    const pulled = await cli(args);
    expect(pulled.code, pulled.stderr).toBe(0);
    const after = texts();
    const why = `\n--- before\n${text}\n--- after\n${after}\n--- hands\n${JSON.stringify(hands)}\n--- pull\n${pulled.stderr}\n--- dry run\n${dry.stdout}`;

    // Issue 41: the dry run's diff holds no secret (runCli scans for every env value; these
    // are the literals, URLs and values made by hand), and, where it masks no changed line,
    // `patch` applied to each file gives exactly what pull wrote.
    expect(dry.stdout, why).not.toMatch(
      /literal-[a-z_]+-value-41|hooks\.example\.com|hand-[a-z-]*\d+-41/,
    );
    if (!/the diff masks/.test(dry.stderr)) {
      for (const [f, before] of Object.entries(own)) {
        const part = dry.stdout
          .split(/^(?=Index: )/m)
          .find((d) => d.startsWith(`Index: ${join(dir, f)}\n`));
        expect(part === undefined ? before : gnuPatch(before, part), why).toBe(
          readFileSync(join(dir, f), "utf8"),
        );
      }
    }

    // No masked rendering in any file.
    for (const f of readdirSync(dir))
      expect(readFileSync(join(dir, f), "utf8"), why).not.toMatch(MASKED);

    // The secrets pull named: `  NAME  ADDRESS` (to set), and what it could not pull.
    const named = [...pulled.stderr.matchAll(/^ {2}([A-Z0-9_]+) {2}(.+)$/gm)];
    // A URL read from the environment must still look like one (https), or the load refuses it.
    const toSet = Object.fromEntries(
      named.map((m) => [
        m[1] as string,
        (m[2] as string).includes(".webhook[")
          ? `https://not-the-live-value.example.com/${m[1]}`
          : `not-the-live-value-${m[1]}`,
      ]),
    );
    // What pull said it cannot write because it is secret: a URL the config reads from the
    // environment, a value only its masked rendering shows. Any other "Not pulled" is not.
    const notPulled = pulled.stderr
      .split("\n")
      .filter(
        (l) => l.startsWith("Not pulled: ") && /url differs|not readable|is a secret/.test(l),
      );
    const saidNotPulled = (address: string): boolean =>
      notPulled.some((l) => l.startsWith(`Not pulled: ${address}: `));
    const namedAddresses = new Set(named.map((m) => m[2] as string));

    // The next plan changes only those.
    const plan = await cli(["plan", "--format", "json"], toSet);
    expect(plan.code, plan.stderr + why).toBe(0);
    const changes = (JSON.parse(plan.stdout) as { changes: { address: string }[] }).changes;
    for (const ch of changes) {
      const ok =
        saidNotPulled(ch.address) ||
        [...namedAddresses].some((a) => ch.address === a || ch.address.startsWith(`${a}.`));
      expect(ok, `${ch.address} changes after pull${why}`).toBe(true);
    }

    // No placeholder binds two different live values.
    const loaded = await loadConfig(dir, { env: {}, resolveSecrets: false });
    expect(loaded.ok, JSON.stringify(loaded.ok ? [] : loaded.diagnostics) + why).toBe(true);
    if (!loaded.ok) return;
    // A value pull said it could not write (a URL the config reads from the environment,
    // changed by hand) is the hand change's doing, not pull's: left out.
    const live = await orgOf(emulator);
    for (const [name, values] of bindings(loaded.config, live, saidNotPulled)) {
      expect(values.size, `\${env:${name}} binds ${values.size} live values${why}`).toBe(1);
    }

    // fmt, then validate: the same desired state; fmt is idempotent.
    const fullEnv = { ...env, ...toSet };
    const desiredOf = async () => {
      const r = await loadConfig(dir, { env: fullEnv });
      expect(r.ok, why).toBe(true);
      return r.ok ? canonicalConfig(r.config) : undefined;
    };
    const before = await desiredOf();
    const formatted = await runCli(["fmt", dir]);
    expect(formatted.code, formatted.stderr + why).toBe(0);
    expect(await desiredOf()).toEqual(before);
    const again = await runCli(["fmt", "--check", dir]);
    expect(again.code, again.stdout + again.stderr + why).toBe(0);
    const validated = await runCli(["validate", "-c", dir], { env: fullEnv });
    expect(validated.code, validated.stderr + why).toBe(0);
  };

  // Counterexamples the property found, kept as fixed cases.
  const base: ConfigSpec = {
    keyByName: false,
    contexts: [],
    projects: [],
    template: undefined,
    flow: false,
    comments: true,
    split: false,
    mergeKeys: false,
    anchors: false,
  };
  const twoHooks = {
    name: "web" as const,
    settings: {},
    env: [],
    webhooks: {
      pager: { url: "literal" as const, events: [...EVENTS] },
      slack: { url: "literal" as const, events: [...EVENTS] },
    },
    extendsTemplate: false,
  };

  it("a webhook a template gives, deleted by hand: --prune writes null on the item", async () => {
    // It said "it comes from a template: remove it there", and the next plan created it.
    await check(
      {
        ...base,
        projects: [{ ...twoHooks, webhooks: {}, extendsTemplate: true }],
        template: { settings: {}, webhook: { url: "literal", events: ["job-completed"] } },
      },
      [{ kind: "drop", hook: 0 }],
      1001,
    );
  });

  it("a value another webhook takes by `<<: *hook`, changed by hand: the other keeps its own", async () => {
    // pull changed the anchor's `events`, so the merging webhook's changed too.
    await check(
      { ...base, projects: [twoHooks], mergeKeys: true },
      [{ kind: "events", hook: 0, events: ["workflow-completed"] }],
      1002,
    );
  });

  it("the anchored webhook deleted by hand: --prune writes out the one that merged it", async () => {
    // The `<<: *hook` was left dangling: validate refused the pulled file.
    await check(
      { ...base, projects: [twoHooks], mergeKeys: true },
      [{ kind: "drop", hook: 0 }],
      1003,
    );
  });

  it("a restriction added by hand to each of two contexts that share one list (`*a1`)", async () => {
    // The edit of the alias' user failed ("not a list") and was not pulled.
    const ctx = (name: "deploy" | "build") => ({
      name,
      env: {},
      restrictions: ['pipeline.git.branch == "main"'],
    });
    await check(
      {
        ...base,
        contexts: [ctx("deploy"), ctx("build")],
        projects: [{ ...twoHooks, webhooks: {} }],
        anchors: true,
        flow: true,
      },
      [
        { kind: "restriction", context: 0, expression: "pipeline.x == 1" },
        { kind: "restriction", context: 1, expression: "'quoted' == pipeline.git.tag" },
      ],
      1004,
    );
  });

  it("the dry run masks a URL written in a template no item extends", async () => {
    // No loaded item held it, so the dry run printed it as a context line.
    await check(
      {
        ...base,
        projects: [{ ...twoHooks, webhooks: {} }],
        template: { settings: {}, webhook: { url: "literal", events: ["workflow-completed"] } },
        flow: true,
      },
      [{ kind: "context", name: "fresh", key: "TOKEN" }],
      1005,
    );
  });

  it("pull leaves no drift but named secrets, no mask, no shared placeholder; fmt keeps meaning", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.array(handArb, { minLength: 1, maxLength: 4 }),
        async (c, hands) => {
          await check(c, hands, run++);
        },
      ),
      {
        numRuns: propertyRuns(15),
        seed: Number(process.env.PULL_PROPERTY_SEED ?? 4141),
        endOnFailure: true,
      },
    );
  }, 240_000);
});
