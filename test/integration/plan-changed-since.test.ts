/**
 * `plan --changed-since REF` and apply's re-read under the lock (design.md §5 "Scoped plans
 * and the reviewed plan"): the config at REF is read with git from a temporary repository,
 * and only the addresses whose desired state differs are read and planned. The emulator's
 * request log shows what was read. A change that cannot be scoped is planned in full, with
 * the reason.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import type { LoggedRequest } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { commitBase } from "../helpers/git-repo.js";

const N = 30;
const slug = (i: number) => `gh/acme/svc-${String(i).padStart(2, "0")}`;
const HOOK = "https://hooks.example.com/services/T0/B0/changedSince";

const seed = (): Seed => ({
  orgs: [
    {
      slug: "gh/acme",
      name: "acme",
      contexts: ["deploy", "build", "release"].map((name) => ({ name, env: { REGION: "eu" } })),
      projects: Array.from({ length: N }, (_, i) => ({
        slug: slug(i),
        settings: { enable_auto_cancel_redundant_workflows: true },
        webhooks: [
          { name: "slack", url: HOOK, events: ["workflow-completed"] },
          ...(i === 3 ? [{ name: "old", url: HOOK, events: ["job-completed"] }] : []),
        ],
      })),
    },
  ],
});

/** The config as committed at `base`: it matches the seed (a full plan is empty). */
const templates = (autoCancel = true, special = true) =>
  [
    "org: gh/acme",
    "templates:",
    "  projects:",
    ...(
      [
        ["service", autoCancel],
        ["special", special],
      ] as const
    ).flatMap(([name, value]) => [
      `    ${name}:`,
      "      settings:",
      `        enable_auto_cancel_redundant_workflows: ${value}`,
    ]),
    "",
  ].join("\n");

const contexts = (region = "eu") =>
  [
    "org: gh/acme",
    "contexts:",
    ...["deploy", "build", "release"].flatMap((name) => [
      `  ${name}:`,
      "    env:",
      `      REGION: ${name === "build" ? region : "eu"}`,
    ]),
    "",
  ].join("\n");

const projects = (edit: (i: number) => string[] = () => []) => {
  const lines = ["org: gh/acme", "projects:"];
  for (let i = 0; i < N; i++) {
    // Two projects take the `special` template: an edit of it reaches only them.
    lines.push(
      `  ${slug(i)}:`,
      `    extends: [${i === 1 || i === 2 ? "special" : "service"}]`,
      "    webhooks:",
    );
    const own = edit(i);
    if (own.length > 0) lines.push(...own);
    else {
      lines.push("      slack:", `        url: ${HOOK}`, "        events: [workflow-completed]");
      if (i === 3)
        lines.push("      old:", `        url: ${HOOK}`, "        events: [job-completed]");
    }
  }
  return `${lines.join("\n")}\n`;
};

const hook = (name: string, events: string) => [
  `      ${name}:`,
  `        url: ${HOOK}`,
  `        events: [${events}]`,
];

describe("plan --changed-since", () => {
  const suite = useEmulatorSuite(seed, {});
  let n = 0;
  /** A fresh repository: the base config committed and tagged `base`; the folder's path. */
  const repo = async (): Promise<{ dir: string; cfg: string; write: typeof writeFile }> => {
    const dir = join(suite.tmp.dir, `repo-${n++}`);
    await rm(dir, { recursive: true, force: true });
    const cfg = join(dir, "waybill");
    await mkdir(join(cfg, "teams"), { recursive: true });
    await writeFile(join(cfg, "00-templates.yaml"), templates());
    await writeFile(join(cfg, "10-contexts.yaml"), contexts());
    await writeFile(join(cfg, "teams", "projects.yaml"), projects());
    commitBase(dir, "base");
    return { dir, cfg, write: writeFile };
  };
  const planJson = async (cfg: string, ...more: string[]) => {
    const r = await suite.run(["plan", "-c", cfg, "--format", "json", ...more]);
    expect(r.code, r.stderr).toBe(0);
    return {
      r,
      plan: JSON.parse(r.stdout) as {
        changes: { address: string; action: string }[];
        scope?: { since: string; addresses: { org: string; address: string }[]; total: number };
        warnings: string[];
        digest: string;
      },
    };
  };
  const reads = (log: readonly LoggedRequest[], what: RegExp) =>
    log.filter((q) => q.method === "GET" && what.test(`${q.path}?${new URLSearchParams(q.query)}`));
  /** Project ids by slug, from the emulator's state. */
  const projectIds = async () => {
    const state = await suite.emulator.state();
    return new Map((state.orgs?.[0]?.projects ?? []).map((p) => [p.slug, p.id as string]));
  };
  /** Requests that read one project's own collections (by its id or slug). */
  const projectReads = async (log: readonly LoggedRequest[], s: string) => {
    const id = (await projectIds()).get(s) as string;
    return log.filter(
      (q) =>
        q.method === "GET" &&
        (q.path.includes(id) ||
          q.path.includes(encodeURIComponent(s)) ||
          q.path.includes(s) ||
          Object.values(q.query).includes(id)),
    );
  };

  it("a one-webhook change plans only that webhook: its project is read, no other", async () => {
    const { cfg } = await repo();
    await writeFile(
      join(cfg, "teams", "projects.yaml"),
      projects((i) => (i === 7 ? hook("slack", "job-completed") : [])),
    );
    const text = await suite.run(["plan", "-c", cfg, "--changed-since", "base"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split("\n")[0]).toMatch(
      /^partial plan: 1 of \d+ addresses, those changed since base; drift elsewhere is not checked$/,
    );
    const textLog = await suite.emulator.requests();
    await suite.emulator.clearRequests();
    const { plan } = await planJson(cfg, "--changed-since", "base");
    const address = `project["${slug(7)}"].webhook["slack"]`;
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([[address, "update"]]);
    expect(plan.scope?.since).toBe("base");
    expect(plan.scope?.addresses).toEqual([{ org: "gh/acme", address }]);
    expect(plan.scope?.total).toBeGreaterThan(N * 2);
    const log = await suite.emulator.requests();
    // The org, the project's look-up and its webhooks: nothing of the 29 other projects, no
    // context (a full plan of this config reads 30 projects' collections and 3 contexts').
    expect(log.length).toBeLessThanOrEqual(4);
    expect(log).toEqual(textLog.map((q) => ({ ...q, seq: expect.any(Number) })));
    expect(reads(log, /webhooks/)).toHaveLength(1);
    expect(reads(log, /contexts/)).toEqual([]);
    for (const i of [0, 6, 8, 29]) expect(await projectReads(log, slug(i))).toEqual([]);
    // The same config planned in full reads every project: the scope is what saved it.
    await suite.emulator.clearRequests();
    const full = await planJson(cfg);
    expect(full.plan.changes.map((c) => c.address)).toEqual([address]);
    expect(full.plan.scope).toBeUndefined();
    expect(full.plan.digest).not.toBe(plan.digest);
    expect((await suite.emulator.requests()).length).toBeGreaterThan(N * 2);
  });

  it("a webhook removed from the config is deleted by the scoped plan, and apply deletes it", async () => {
    const { cfg } = await repo();
    await writeFile(
      join(cfg, "teams", "projects.yaml"),
      projects((i) => (i === 3 ? hook("slack", "workflow-completed") : [])),
    );
    const { plan } = await planJson(cfg, "--changed-since", "base");
    const address = `project["${slug(3)}"].webhook["old"]`;
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([[address, "delete"]]);
    const a = await suite.run(["apply", "-c", cfg, "--changed-since", "base", "--auto-approve"]);
    expect(a.code, a.stderr).toBe(0);
    const state = await suite.emulator.state();
    const p3 = state.orgs?.[0]?.projects?.find((p) => p.slug === slug(3));
    expect(p3?.webhooks?.map((w) => w.name)).toEqual(["slack"]);
  });

  it("a changed context env var reads only that context's collections", async () => {
    const { cfg } = await repo();
    await writeFile(join(cfg, "10-contexts.yaml"), contexts("us"));
    const { plan } = await planJson(cfg, "--changed-since", "base");
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['context["build"].env["REGION"]', "update"],
    ]);
    const log = await suite.emulator.requests();
    // The contexts' listing, then the env vars (and restrictions) of `build` alone.
    const state = await suite.emulator.state();
    const ids = new Map((state.orgs?.[0]?.contexts ?? []).map((c) => [c.name, c.id as string]));
    const touched = (name: string) =>
      log.filter(
        (q) =>
          q.path.includes(ids.get(name) as string) ||
          Object.values(q.query).includes(ids.get(name) as string),
      );
    expect(touched("build").length).toBeGreaterThan(0);
    expect(touched("deploy")).toEqual([]);
    expect(touched("release")).toEqual([]);
    expect(reads(log, /webhooks/)).toEqual([]);
  });

  it("a `moved` rename is planned at its new address, in scope", async () => {
    const { cfg } = await repo();
    const moved = `moved:\n  - from: project["${slug(5)}"].webhook["slack"]\n    to: project["${slug(5)}"].webhook["chat"]\n`;
    await writeFile(join(cfg, "00-templates.yaml"), `${templates()}${moved}`);
    await writeFile(
      join(cfg, "teams", "projects.yaml"),
      projects((i) => (i === 5 ? hook("chat", "workflow-completed") : [])),
    );
    const { plan } = await planJson(cfg, "--changed-since", "base");
    expect(plan.scope?.addresses.map((a) => a.address).sort()).toEqual(
      [`project["${slug(5)}"].webhook["chat"]`, `project["${slug(5)}"].webhook["slack"]`].sort(),
    );
    // A rename in place (an update at the new address), never a delete plus a create.
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      [`project["${slug(5)}"].webhook["chat"]`, "update"],
    ]);
    expect(await projectReads(await suite.emulator.requests(), slug(6))).toEqual([]);
  });

  it("a template edit reaching every project is planned in full, with the reason", async () => {
    const { cfg } = await repo();
    await writeFile(join(cfg, "00-templates.yaml"), templates(false));
    const { r, plan } = await planJson(cfg, "--changed-since", "base");
    expect(plan.scope).toBeUndefined();
    // Every project but the two of the `special` template.
    expect(plan.changes).toHaveLength(N - 2);
    expect(plan.warnings[0]).toContain(`--changed-since base: the whole config was planned`);
    expect(plan.warnings[0]).toContain(`${N - 2} of ${N} projects`);
    expect(r.stderr).toContain(`${N - 2} of ${N} projects`);
  });

  it("a template edit reaching two projects is scoped to those two", async () => {
    const { cfg } = await repo();
    await writeFile(join(cfg, "00-templates.yaml"), templates(true, false));
    const { plan } = await planJson(cfg, "--changed-since", "base");
    const settings = [`project["${slug(1)}"].settings`, `project["${slug(2)}"].settings`];
    expect(plan.changes.map((c) => c.address).sort()).toEqual(settings);
    expect(plan.scope?.addresses.map((a) => a.address).sort()).toEqual(settings);
    expect(await projectReads(await suite.emulator.requests(), slug(3))).toEqual([]);
  });

  it.each([
    ["an unknown ref", "no-such-ref", "is not a commit git knows here"],
    ["keep_unlisted changed", "base", "`keep_unlisted` changed since base"],
  ])("%s: a full plan, with the reason", async (_, ref, reason) => {
    const { cfg } = await repo();
    if (ref === "base") {
      await writeFile(
        join(cfg, "00-templates.yaml"),
        `${templates()}keep_unlisted:\n  - project["*"].webhook["*"]\n`,
      );
    }
    const { r, plan } = await planJson(cfg, "--changed-since", ref);
    expect(plan.scope).toBeUndefined();
    expect(plan.warnings[0]).toContain(reason);
    expect(r.stderr).toContain(reason);
    expect((await suite.emulator.requests()).length).toBeGreaterThan(N * 2);
  });

  it("outside a git repository: a full plan, with the reason", async () => {
    const dir = join(suite.tmp.dir, "no-git");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "waybill.yaml"), `${templates()}`);
    const { plan } = await planJson(join(dir, "waybill.yaml"), "--changed-since", "HEAD");
    expect(plan.scope).toBeUndefined();
    expect(plan.warnings[0]).toContain("cannot be read");
  });

  it("the Markdown comment says it is partial right under the digest's marker", async () => {
    const { cfg } = await repo();
    await writeFile(join(cfg, "10-contexts.yaml"), contexts("us"));
    const r = await suite.run([
      "plan",
      "-c",
      cfg,
      "--changed-since",
      "base",
      "--format",
      "markdown",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^<!-- waybill-plan-digest: [0-9a-f]{32} -->$/);
    expect(lines[1]).toMatch(
      /^\*\*partial plan: 1 of \d+ addresses, those changed since base; drift elsewhere is not checked\*\*$/,
    );
  });

  it("nothing changed since the ref: an empty partial plan that reads no more than the org", async () => {
    const { cfg } = await repo();
    const { plan } = await planJson(cfg, "--changed-since", "base");
    expect(plan.scope?.addresses).toEqual([]);
    expect(plan.scope?.total).toBeGreaterThan(N * 2);
    expect(plan.changes).toEqual([]);
    expect((await suite.emulator.requests()).length).toBeLessThanOrEqual(1);
  });

  it("a file removed with the org's contexts: `contexts` became unmanaged, a full plan with the reason", async () => {
    const { cfg } = await repo();
    await rm(join(cfg, "10-contexts.yaml"));
    const { plan } = await planJson(cfg, "--changed-since", "base");
    expect(plan.scope).toBeUndefined();
    expect(plan.warnings[0]).toContain("`contexts` of the org became unmanaged since base");
  });

  it("a ref that git would take for an option is refused before any request", async () => {
    const { cfg } = await repo();
    const r = await suite.run(["plan", "-c", cfg, "--changed-since", "--output=/tmp/x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a git ref");
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("a saved partial plan applies only its scope", async () => {
    const { cfg } = await repo();
    await writeFile(
      join(cfg, "teams", "projects.yaml"),
      projects((i) => (i === 7 ? hook("slack", "job-completed") : [])),
    );
    const out = join(suite.tmp.dir, "partial.json");
    const p = await suite.run(["plan", "-c", cfg, "--changed-since", "base", "--out", out]);
    expect(p.code, p.stderr).toBe(0);
    await suite.emulator.clearRequests();
    const a = await suite.run(["apply", "-c", cfg, out]);
    expect(a.code, a.stderr).toBe(0);
    const log = await suite.emulator.requests();
    for (const i of [0, 6, 8, 29]) expect(await projectReads(log, slug(i))).toEqual([]);
    const state = await suite.emulator.state();
    const p7 = state.orgs?.[0]?.projects?.find((x) => x.slug === slug(7));
    expect(p7?.webhooks?.[0]?.events).toEqual(["job-completed"]);
  });
});

describe("apply's re-read under the lock", () => {
  const suite = useEmulatorSuite(seed, {
    config: {
      name: "waybill.yaml",
      content: `${templates()}${contexts().replace("org: gh/acme\n", "")}${projects((i) =>
        i === 7 ? hook("slack", "job-completed") : [],
      ).replace("org: gh/acme\n", "")}`,
    },
  });
  it("reads again only the project the plan writes, not the other 29", async () => {
    const r = await suite.run(["apply", "-c", suite.files.config, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("without the lock");
    const log = await suite.emulator.requests();
    const state = await suite.emulator.state();
    const ids = new Map((state.orgs?.[0]?.projects ?? []).map((p) => [p.slug, p.id as string]));
    const webhookReads = (s: string) =>
      log.filter(
        (q) =>
          q.method === "GET" &&
          /webhooks/.test(q.path) &&
          Object.values(q.query).includes(ids.get(s) as string),
      ).length;
    // The plan reads every project once; under the lock only the one it writes, again.
    expect(webhookReads(slug(7))).toBe(2);
    for (const i of [0, 6, 8, 29]) expect(webhookReads(slug(i))).toBe(1);
    // Each context's env vars are read once (the plan writes none; the lock's own claims
    // are other contexts).
    for (const c of state.orgs?.[0]?.contexts ?? []) {
      const envReads = log.filter(
        (q) => q.method === "GET" && q.path === `/api/v3/contexts/${c.id as string}/env-vars`,
      );
      expect(envReads, c.name).toHaveLength(1);
    }
    expect(
      state.orgs?.[0]?.projects?.find((p) => p.slug === slug(7))?.webhooks?.[0]?.events,
    ).toEqual(["job-completed"]);
  });
});
