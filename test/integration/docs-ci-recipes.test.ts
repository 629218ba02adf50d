// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the recipes' shell ${VARS} are matched literally
/**
 * The CI recipes in examples/ci/ parse as YAML and have the shape their comments promise
 * (one PR comment updated in place, apply from the saved plan, nightly drift that fails;
 * fork pull requests validate only, unless a maintainer labels them; every workflow names
 * its allowed orgs, a concurrency group, and pins third-party actions by commit). Whether
 * they WORK is test/integration/ci-recipes-run.test.ts: it runs every recipe's steps as a
 * runner does, for every event it takes. The comment script is run here against a small
 * local stand-in for the GitHub REST API, twice, to show the second run updates in place.
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { makeTempDir, REPO_ROOT } from "../helpers/cli.js";
import { parseWaybillLine } from "./docs-shell.js";

const CI = join(REPO_ROOT, "examples", "ci");
const RECIPES = [
  "github-actions/waybill-plan.yml",
  "github-actions/waybill-plan-fork.yml",
  "github-actions/waybill-apply.yml",
  "github-actions/waybill-drift.yml",
  "github-actions/waybill-pull.yml",
  "service/.service/config.yml",
] as const;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});

/** Every shell script in a recipe: GitHub `run:` strings, and the service's `run:`/`run.command`. */
const scripts = (doc: Json): string[] =>
  Object.values(obj(doc.jobs)).flatMap((job) =>
    (Array.isArray(obj(job).steps) ? (obj(job).steps as unknown[]) : []).flatMap((step) => {
      const run = obj(step).run;
      if (typeof run === "string") return [run];
      const command = obj(run).command;
      return typeof command === "string" ? [command] : [];
    }),
  );

/**
 * Every line that runs Waybill: `waybill ARGS` (GitHub: the single file linked on PATH), or
 * `node ~/waybill.mjs ARGS` (the service: run by node), given back as `waybill ARGS`.
 */
const waybillLines = (doc: Json): string[] =>
  scripts(doc)
    .flatMap((s) => s.split("\n"))
    .map((l) => l.trim().replace(/^node ~\/waybill\.mjs /, "waybill "))
    .filter((l) => l.startsWith("waybill "));

/** Every file under a folder, as paths relative to the repository root. */
const listFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(REPO_ROOT.length + 1));

/** The recipe's WAYBILL_ALLOWED_ORGS: the workflow's env, or the service executor's environment. */
const allowedOrgs = (doc: Json): string | undefined => {
  const gh = obj(doc.env).WAYBILL_ALLOWED_ORGS;
  if (typeof gh === "string") return gh;
  const executor = obj(obj(obj(doc.executors).node).environment).WAYBILL_ALLOWED_ORGS;
  return typeof executor === "string" ? executor : undefined;
};

const GITHUB_RECIPES = RECIPES.filter((r) => r.startsWith("github-actions/"));

const load = async (name: string) => {
  const text = await readFile(join(CI, name), "utf8");
  return { text, doc: obj(parse(text)) };
};

describe("CI recipes", () => {
  it("GitHub plan: same-repository PRs plan on pull_request, one comment that is ours only; forks validate", async () => {
    const { doc, text } = await load("github-actions/waybill-plan.yml");
    expect(Object.keys(obj(doc.on))).toEqual(["pull_request"]);
    expect(obj(doc.permissions)["pull-requests"]).toBe("write");
    const jobs = obj(doc.jobs);
    expect(obj(jobs.plan).if).toBe(
      "github.event.pull_request.head.repo.full_name == github.repository",
    );
    expect(obj(jobs["validate-fork"]).if).toBe(
      "github.event.pull_request.head.repo.full_name != github.repository",
    );
    const plans = waybillLines({ jobs: { plan: jobs.plan } });
    expect(plans).toEqual([
      "waybill plan -c infra/waybill/ --format markdown --detailed-exitcode > plan.md 2> plan.log",
    ]);
    // A fork gets no service call at all: validate only, no token, no secret.
    const fork = waybillLines({ jobs: { fork: jobs["validate-fork"] } });
    expect(fork).toEqual([
      "waybill validate -c infra/waybill/ --format github --skip-secrets # a fork has no secrets",
    ]);
    expect(JSON.stringify(jobs["validate-fork"])).not.toMatch(/secrets\.|SERVICE_TOKEN/);
    expect(text).toContain('const marker = "<!-- waybill-plan -->"');
    expect(text).toContain('c.user?.login === "github-actions[bot]"');
    expect(text).toContain('c.user?.type === "Bot"');
    expect(text).toContain("github.rest.issues.updateComment");
    expect(text).toContain("github.rest.issues.createComment");
  });

  it("GitHub fork plan: only on a maintainer's label, the labelled commit, no secrets, label removed first", async () => {
    const { doc } = await load("github-actions/waybill-plan-fork.yml");
    expect(obj(doc.on)).toEqual({
      pull_request_target: { types: ["labeled"], paths: ["infra/waybill/**"] },
    });
    const job = obj(obj(doc.jobs)["plan-fork"]);
    expect(String(job.if)).toContain("github.event.label.name == 'waybill-plan-fork'");
    expect(String(job.if)).toContain(
      "github.event.pull_request.head.repo.full_name != github.repository",
    );
    const steps = job.steps as Json[];
    expect(String(obj(steps[0]?.with).script)).toContain("removeLabel");
    const checkout = steps.find((s) => String(s.uses).startsWith("actions/checkout@"));
    expect(obj(checkout?.with).ref).toBe("${{ github.event.pull_request.head.sha }}");
    const lines = waybillLines(doc);
    expect(lines).toEqual([
      "waybill plan -c infra/waybill/ --format markdown --detailed-exitcode --skip-secrets > plan.md 2> plan.log",
    ]);
    const env = JSON.stringify(steps.map((s) => s.env ?? {}));
    expect(env).toContain("secrets.SERVICE_READ_TOKEN");
    expect(env).not.toMatch(/secrets\.(?!SERVICE_READ_TOKEN)/);
  });

  it("only the label-gated fork recipe runs on pull_request_target", async () => {
    for (const name of GITHUB_RECIPES) {
      const { text } = await load(name);
      if (name !== "github-actions/waybill-plan-fork.yml") {
        expect(/^\s*pull_request_target:/m.test(text), name).toBe(false);
      }
    }
  });

  it("every recipe names its allowed orgs, and the GitHub ones a concurrency group per config", async () => {
    for (const name of RECIPES) {
      const { doc } = await load(name);
      expect(allowedOrgs(doc), name).toBe("gh/acme");
    }
    for (const name of GITHUB_RECIPES) {
      const { doc } = await load(name);
      expect(String(obj(doc.concurrency).group), name).toMatch(/^waybill-\S+/);
    }
    const plan = (await load("github-actions/waybill-plan.yml")).doc;
    expect(obj(plan.concurrency).group).toBe(
      "waybill-plan-infra-waybill-${{ github.event.pull_request.number }}",
    );
  });

  it("every third-party action in a recipe is pinned by a full commit id", async () => {
    let count = 0;
    for (const name of GITHUB_RECIPES) {
      const { doc } = await load(name);
      for (const job of Object.values(obj(doc.jobs))) {
        for (const step of (obj(job).steps as Json[]) ?? []) {
          if (step.uses === undefined) continue;
          count++;
          expect(String(step.uses), name).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
        }
      }
    }
    expect(count).toBeGreaterThan(10);
  });

  it("GitHub apply: the reviewed digest and the saved plan travel as an artifact from the plan job to apply FILE --expect-digest", async () => {
    const { doc } = await load("github-actions/waybill-apply.yml");
    expect(obj(obj(doc.on).push).branches).toEqual(["main"]);
    const jobs = obj(doc.jobs);
    const stepsOf = (job: string) => obj(jobs[job]).steps as Json[];
    const planLine = waybillLines({ jobs: { plan: jobs.plan } })[0] ?? "";
    expect(planLine).toMatch(/ --out waybill\.plan\.json\b/);
    const upload = stepsOf("plan").find((s) =>
      String(s.uses).startsWith("actions/upload-artifact"),
    );
    expect(obj(upload?.with).path).toBe("waybill.plan.json\nwaybill.reviewed-digest\n");
    // A push reads the digest of the merged pull request's plan comment (ours only, from
    // its fixed line) before it plans.
    const find = stepsOf("plan").find((s) => String(s.uses).startsWith("actions/github-script"));
    expect(find?.if).toBe("github.event_name == 'push'");
    const script = String(obj(find?.with).script);
    expect(script).toContain("listPullRequestsAssociatedWithCommit");
    expect(script).toContain("p.merge_commit_sha === sha");
    expect(script).toContain('c.user?.login === "github-actions[bot]"');
    expect(script).toContain(".split(/\\r?\\n/)[1]");
    expect(obj(jobs.apply).needs).toBe("plan");
    expect(
      stepsOf("apply").some((s) => String(s.uses).startsWith("actions/download-artifact")),
    ).toBe(true);
    const applyLine = waybillLines({ jobs: { apply: jobs.apply } })[0] ?? "";
    expect(parseWaybillLine(applyLine, {})?.args).toEqual([
      "apply",
      "-c",
      "infra/waybill/",
      "waybill.plan.json",
      "$@",
    ]);
    expect(scripts({ jobs: { apply: jobs.apply } }).join("\n")).toContain(
      'set -- --expect-digest "$(cat waybill.reviewed-digest)"',
    );
  });

  it("GitHub drift: nightly, and the job fails with drift's exit code", async () => {
    const { doc } = await load("github-actions/waybill-drift.yml");
    const schedule = obj(doc.on).schedule as Json[];
    expect(String(schedule[0]?.cron)).toMatch(/^\S+ \S+ \* \* \*$/);
    const script = scripts(doc).find((s) => s.includes("waybill drift")) ?? "";
    expect(script).toContain("exit $code");
  });

  it("GitHub pull: one pull request opened or updated through the API with its own token, then drift fails", async () => {
    const { text, doc } = await load("github-actions/waybill-pull.yml");
    expect(obj(doc.on).schedule).toBeDefined();
    const steps = Object.values(obj(doc.jobs)).flatMap((j) => obj(j).steps as unknown[]);
    // The one action is setup-node (issue 32: no third-party action to open the PR).
    expect(steps.map((s) => String(obj(s).uses ?? "")).filter((u) => u !== "")).toEqual([
      "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020",
    ]);
    // Not the job's GITHUB_TOKEN: a pull request opened with it starts no workflow (no plan).
    expect(obj(obj(obj(doc.jobs).pull).env).GH_TOKEN).toBe("${{ secrets.WAYBILL_PULL_TOKEN }}");
    expect(text).toContain("GitHub starts no workflow for a push or a pull request made with");
    const all = scripts(doc).join("\n");
    expect(all).toContain("waybill pull -c infra/waybill/");
    // One branch, force-pushed; the open PR found by its head and updated, else created.
    expect(all).toMatch(/pulls\?state=open&head=/);
    expect(all).toContain("--method PATCH");
    expect(all).toContain("--method POST");
    // The token goes in a header, never in a URL.
    expect(text).not.toMatch(/https:\/\/[^\s"]*\$\{?GH_TOKEN/);
    const last = scripts(doc).at(-1) ?? "";
    expect(last).toContain("waybill drift -c infra/waybill/");
    expect(last).toContain("exit $code");
  });

  it("service config: says whose format it is, and wires PR plan, approved apply and a scheduled drift", async () => {
    const { doc, text } = await load("service/.service/config.yml");
    expect(text).toContain("The format of this file is the service's, not Waybill's");
    expect(text).toContain("the service's API reference");
    const workflows = obj(doc.workflows);
    expect(Object.keys(workflows)).toEqual([
      "plan-pull-request",
      "apply-on-merge",
      "nightly-drift",
    ]);
    expect(obj(workflows["nightly-drift"]).when).toBe("<< pipeline.parameters.nightly-drift >>");
    const applyJobs = obj(workflows["apply-on-merge"]).jobs as Json[];
    expect(applyJobs.map((j) => Object.keys(j)[0])).toEqual(["plan-saved", "hold", "apply"]);
    expect(obj(applyJobs[1]?.hold).type).toBe("approval");
    const lines = waybillLines(doc);
    expect(lines).toContain(
      "waybill plan -c infra/waybill/ --out waybill.plan.json --format markdown > plan.md",
    );
    expect(lines).toContain(
      'waybill apply -c infra/waybill/ waybill.plan.json --expect-digest "$(cat waybill.reviewed-digest)"',
    );
    // The digest of the merged pull request's plan comment, read before the plan.
    expect(scripts(doc).join("\n")).toContain(
      'node scripts/reviewed-digest.mjs --marker "<!-- waybill-plan -->" --commit "$PIPELINE_GIT_REVISION" > waybill.reviewed-digest',
    );
    // A fork's job (no secrets context) validates only: no plan without secrets.
    expect(lines).toContain("waybill validate -c infra/waybill/ --skip-secrets");
    expect(lines.some((l) => l.startsWith("waybill plan") && l.includes("--skip-secrets"))).toBe(
      false,
    );
    expect(text).toContain('--marker "<!-- waybill-plan -->"');
  });

  it("every recipe installs Waybill pinned by URL, version and sha256 in the file, never by a registry name", async () => {
    for (const name of RECIPES) {
      const { doc, text } = await load(name);
      const script = scripts(doc).join("\n");
      // GitHub: a step of each job; the service: the shared `install-waybill` command.
      const install = script.includes("sha256sum --check")
        ? script
        : scripts({ jobs: { install: obj(doc.commands)["install-waybill"] } }).join("\n");
      expect(install, name).toMatch(
        /curl -fsSL -o \S+ "\$\{WAYBILL_RELEASE_URL\}\/v\$\{WAYBILL_VERSION\}\/waybill\.mjs"/,
      );
      expect(install, name).toContain('echo "${WAYBILL_SHA256}  ');
      expect(install, name).toContain("| sha256sum --check --strict");
      expect(text, name).toMatch(/WAYBILL_VERSION: "\d+\.\d+\.\d+"/);
      // In the file, not in `vars` or a context: a fork's pull request gets neither.
      expect(text, name).toMatch(/^\s*WAYBILL_RELEASE_URL: https:\/\/\S+/m);
      // A download is not executable: made so (GitHub), or run by node (the service).
      if (name.startsWith("github-actions/")) {
        expect(install, name).toContain('chmod +x "$RUNNER_TEMP/waybill.mjs"');
      } else {
        expect(script, name).not.toMatch(/^\s*waybill /m);
      }
    }
  });

  it("applies are serialised per org: a concurrency group named after the org, never cancelled", async () => {
    const gh = (await load("github-actions/waybill-apply.yml")).doc;
    expect(obj(gh.concurrency)).toEqual({
      group: "waybill-apply-org-gh-acme",
      "cancel-in-progress": false,
    });
    const service = (await load("service/.service/config.yml")).doc;
    expect(obj(obj(service.jobs).apply)["serial-group"]).toBe("waybill-apply/gh-acme");
  });

  it("no README, doc, recipe or Action installs a bare package name the project does not own", async () => {
    const files = [
      "README.md",
      "action.yml",
      ...(await listFiles(join(REPO_ROOT, "docs"))),
      ...(await listFiles(join(REPO_ROOT, "examples"))),
    ];
    // `npm install [-g] waybill`, `npm i waybill@1`, npx (with or without -y) of `waybill@…`,
    // `yarn/pnpm add waybill`: a registry name. `./waybill-1.0.0.tgz` is not. (A bare
    // `npx` of the name is refused everywhere by test/integration/docs-no-npx.test.ts.)
    const bare =
      /\b(?:npm\s+(?:install|i|add)|yarn\s+(?:global\s+)?add|pnpm\s+add)\b[^\n]*?[ \t]["']?waybill(?:@[^\s"']*)?["']?(?=\s|$)|\bnpx\s+(?:-y\s+|--yes\s+)?waybill@/m;
    const checked: string[] = [];
    for (const file of files) {
      const text = await readFile(join(REPO_ROOT, file), "utf8").catch(() => undefined);
      if (text === undefined) continue;
      checked.push(file);
      expect(bare.exec(text)?.[0], file).toBeUndefined();
    }
    expect(checked).toContain("README.md");
    expect(checked).toContain("examples/ci/github-actions/waybill-plan.yml");
    // The pattern does catch what the recipes used to say.
    expect(bare.test('run: npm install --global "waybill@${WAYBILL_VERSION}"')).toBe(true);
    expect(bare.test(["np", "x -y waybill@0.1.0 plan"].join(""))).toBe(true);
    expect(bare.test("npm install --global ./waybill-0.1.0.tgz")).toBe(false);
  });

  it("the comment script posts once, then updates the same comment in place, never someone else's", async () => {
    const bot = { login: "waybill-bot", type: "User" };
    const mallory = { login: "mallory", type: "User" };
    const comments: { id: number; body: string; user: { login: string; type: string } }[] = [
      { id: 1, body: "an unrelated comment", user: mallory },
      { id: 2, body: "<!-- waybill-plan -->\nNo changes (mallory's)", user: mallory },
    ];
    const requests: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://x");
        requests.push(`${req.method} ${url.pathname}`);
        const send = (status: number, value: unknown) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(value));
        };
        if (req.headers.authorization !== "Bearer gh-test-token") return send(401, {});
        if (req.method === "GET" && url.pathname === "/user") return send(200, bot);
        if (req.method === "GET" && url.pathname === "/repos/acme/platform/pulls") {
          return send(200, url.searchParams.get("head") === "acme:feature" ? [{ number: 7 }] : []);
        }
        if (req.method === "GET" && url.pathname === "/repos/acme/platform/issues/7/comments") {
          return send(200, comments);
        }
        if (req.method === "POST" && url.pathname === "/repos/acme/platform/issues/7/comments") {
          const c = {
            id: comments.length + 1,
            body: (JSON.parse(body) as { body: string }).body,
            user: bot,
          };
          comments.push(c);
          return send(201, c);
        }
        const m = /^\/repos\/acme\/platform\/issues\/comments\/(\d+)$/.exec(url.pathname);
        const target = comments.find((c) => String(c.id) === m?.[1]);
        if (req.method === "PATCH" && target) {
          target.body = (JSON.parse(body) as { body: string }).body;
          return send(200, target);
        }
        return send(404, {});
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const tmp = await makeTempDir("waybill-docs-comment-");
    const runScript = async (file: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            join(CI, "service", "scripts", "upsert-pr-comment.mjs"),
            "--marker",
            "<!-- waybill-plan -->",
            "--branch",
            "feature",
            "--body",
            file,
          ],
          {
            env: {
              PATH: process.env.PATH ?? "",
              GITHUB_TOKEN: "gh-test-token",
              GITHUB_REPOSITORY: "acme/platform",
              GITHUB_API_URL: api,
            },
            stdio: "ignore",
          },
        );
        child.on("exit", (code) => resolve(code));
      });
    try {
      expect(await runScript(await tmp.write("plan1.md", "Plan: 1 to create"))).toBe(0);
      expect(await runScript(await tmp.write("plan2.md", "No changes."))).toBe(0);
    } finally {
      server.close();
      await tmp.remove();
    }
    expect(comments).toEqual([
      { id: 1, body: "an unrelated comment", user: mallory },
      { id: 2, body: "<!-- waybill-plan -->\nNo changes (mallory's)", user: mallory },
      { id: 3, body: "<!-- waybill-plan -->\nNo changes.", user: bot },
    ]);
    expect(requests.filter((r) => r.startsWith("POST"))).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith("PATCH"))).toHaveLength(1);
  });
});
