// biome-ignore-all lint/suspicious/noTemplateCurlyInString: action.yml's ${{ }} expressions are matched literally
/**
 * The GitHub Action (action.yml, action/waybill-action.mjs; issues 20 and 30). Its script
 * is run as the composite step runs it, with the environment GitHub gives it, against the
 * emulator and a local stand-in for the part of GitHub's REST API it uses: who am I (GET
 * /user, 403 for an installation token), list an issue's comments (paged with `Link`
 * headers), create one, update one. It runs the release's single file (bundled here as
 * `npm run release -- --action` does) after checking its sha256, with an `npm` and an
 * `npx` first on PATH that record any call (none may happen). A second run on the same
 * pull request updates the first run's comment (found on page 2, past 120 other
 * comments); a comment that carries the marker but was written by someone else is never
 * edited; a drift or a plan of another config gets its own comment; the job's exit code
 * follows waybill's; outside a pull request no GitHub call is made; apply runs on a push
 * with auto-approve, is refused on a pull request unless allowed, and its log is text; on
 * a push to main after a merged pull request it applies with the digest of the plan
 * comment the Action itself wrote there (another author's comment, a digest out of its
 * place or no comment: refused unless auto-approve; a digest that no longer matches: exit
 * 3, zero writes).
 *
 * Each run of the real single file costs a Node process and about 0.35 s of CPU, so the
 * cases about the Action's own logic (which comment to update, paging, ownership, a second
 * config's marker, what reaches the CLI) run a stand-in for it instead (with its own
 * sha256): it prints what it was given and exits with STANDIN_EXIT. The real file still runs
 * plan (commenting, and on a push), drift, validate and apply (auto-approved, from a saved
 * plan, refused as stale, asking for an approval) through the Action. The script itself
 * runs in this process (its `main`, with the step's environment, folder and output) but in
 * the cases that run it as a Node process as the composite step does (`runAction`).
 */
import { createHash } from "node:crypto";
import { chmod, copyFile, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { startEmulator } from "../../emulator/src/index.js";
import type { Seed } from "../../emulator/src/seed.js";
import { expectNoSecrets, makeTempDir, REPO_ROOT, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { releaseBundle } from "../helpers/release-bundle.js";
import { runNode } from "../helpers/run-node.js";
import { DEMO_SECRETS, DEMO_TOKEN } from "./docs-shell.js";

const SCRIPT = join(REPO_ROOT, "action", "waybill-action.mjs");
const GH_TOKEN = "ghs_test-token-0123456789";
const REPO = "acme/platform";
const PR = 7;

const USER_TOKEN = "ghp_user-token-0123456789";

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

interface Issue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  user: { login: string; type: string };
  pull_request?: { url: string };
}

const BOT = { login: "github-actions[bot]", type: "Bot" };
const ALICE = { login: "alice", type: "User" };

/**
 * GitHub's issue-comment routes, as far as the action uses them. GH_TOKEN is an
 * installation token (github-actions[bot]; GET /user answers 403 as GitHub does for one),
 * USER_TOKEN is alice's.
 */
const fakeGitHub = () => {
  const comments: Comment[] = Array.from({ length: 120 }, (_, i) => ({
    id: i + 1,
    body: `an unrelated comment ${i + 1}`,
    user: { login: `user${i}`, type: "User" },
  }));
  const requests: string[] = [];
  // The repository's issues (and pull requests, which GitHub lists as issues too): 60
  // unrelated ones, so the list has two pages of 50.
  const issues: Issue[] = Array.from({ length: 60 }, (_, i) => ({
    number: i + 1,
    title: `an unrelated issue ${i + 1}`,
    body: `text ${i + 1}`,
    state: "open",
    user: { login: `user${i}`, type: "User" },
  }));
  // The pull requests GET /repos/{repo}/commits/{sha}/pulls lists, by commit.
  const pullsOf = new Map<string, unknown[]>();
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString("utf8");
    });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      const author =
        req.headers.authorization === `Bearer ${GH_TOKEN}`
          ? BOT
          : req.headers.authorization === `Bearer ${USER_TOKEN}`
            ? ALICE
            : undefined;
      if (author === undefined) return send(401, {});
      if (req.method === "GET" && url.pathname === "/user") {
        return author === BOT
          ? send(403, { message: "Resource not accessible by integration" })
          : send(200, { ...ALICE, id: 42 });
      }
      const pulls = new RegExp(`^/repos/${REPO}/commits/([0-9a-f]{40})/pulls$`).exec(url.pathname);
      if (req.method === "GET" && pulls) return send(200, pullsOf.get(pulls[1] as string) ?? []);
      const list = `/repos/${REPO}/issues/${PR}/comments`;
      if (req.method === "GET" && url.pathname === list) {
        const perPage = Number(url.searchParams.get("per_page") ?? 30);
        const page = Number(url.searchParams.get("page") ?? 1);
        const items = comments.slice((page - 1) * perPage, page * perPage);
        const last = Math.ceil(comments.length / perPage);
        const origin = `http://${req.headers.host}`;
        const link: Record<string, string> =
          page < last
            ? {
                link: `<${origin}${list}?per_page=${perPage}&page=${page + 1}>; rel="next", <${origin}${list}?per_page=${perPage}&page=${last}>; rel="last"`,
              }
            : {};
        return send(200, items, link);
      }
      if (req.method === "POST" && url.pathname === list) {
        const c = {
          id: 1000 + comments.length,
          body: (JSON.parse(raw) as { body: string }).body,
          user: author,
        };
        comments.push(c);
        return send(201, { ...c, html_url: `https://github.example/${REPO}/pull/${PR}#c${c.id}` });
      }
      const issueList = `/repos/${REPO}/issues`;
      if (req.method === "GET" && url.pathname === issueList) {
        const perPage = Math.min(50, Number(url.searchParams.get("per_page") ?? 30));
        const page = Number(url.searchParams.get("page") ?? 1);
        const state = url.searchParams.get("state") ?? "open";
        const all = issues.filter((i) => state === "all" || i.state === state);
        const last = Math.ceil(all.length / perPage);
        const origin = `http://${req.headers.host}`;
        const link: Record<string, string> =
          page < last
            ? {
                link: `<${origin}${issueList}?state=${state}&per_page=${perPage}&page=${page + 1}>; rel="next"`,
              }
            : {};
        return send(200, all.slice((page - 1) * perPage, page * perPage), link);
      }
      if (req.method === "POST" && url.pathname === issueList) {
        const input = JSON.parse(raw) as { title: string; body: string };
        const issue: Issue = {
          number: issues.length + 1,
          title: input.title,
          body: input.body,
          state: "open",
          user: author,
        };
        issues.push(issue);
        return send(201, {
          ...issue,
          html_url: `https://github.example/${REPO}/issues/${issue.number}`,
        });
      }
      const one = new RegExp(`^/repos/${REPO}/issues/(\\d+)$`).exec(url.pathname);
      const issue = issues.find((i) => String(i.number) === one?.[1]);
      if (req.method === "PATCH" && issue) {
        // As permissive as a maintainer's token: an edit of someone else's issue would land.
        const input = JSON.parse(raw) as { body?: string; state?: "open" | "closed" };
        if (input.body !== undefined) issue.body = input.body;
        if (input.state !== undefined) issue.state = input.state;
        return send(200, {
          ...issue,
          html_url: `https://github.example/${REPO}/issues/${issue.number}`,
        });
      }
      const m = new RegExp(`^/repos/${REPO}/issues/comments/(\\d+)$`).exec(url.pathname);
      const target = comments.find((c) => String(c.id) === m?.[1]);
      if (req.method === "PATCH" && target) {
        // GitHub lets only the author (or a maintainer's token) edit; the stand-in is as
        // permissive as a maintainer's token, so an edit of a foreign comment would land.
        target.body = (JSON.parse(raw) as { body: string }).body;
        return send(200, { ...target, html_url: `https://github.example/c${target.id}` });
      }
      return send(404, { message: "Not Found" });
    });
  });
  return { server, comments, issues, requests, pullsOf };
};

// Each case runs the CLI once or twice as a child process: give them room on a loaded machine.
describe("the GitHub Action", { timeout: 90_000 }, () => {
  let tmp: TempDir;
  let gh: ReturnType<typeof fakeGitHub>;
  let ghUrl: string;
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let bin: string;
  let sumFile: string;
  let standIn: string;
  let standInSum: string;
  let shimPath: string;
  let npmCalls: string;

  beforeAll(async () => {
    tmp = await makeTempDir("waybill-action-");
    // The release's single file, as `npm run release -- --action` writes it for the Action
    // (the same bundle: built once per dist/ and shared with the other files that run it).
    bin = tmp.path("action/waybill.mjs");
    await tmp.write("action/.keep", "");
    await copyFile(await releaseBundle(), bin);
    const hex = createHash("sha256")
      .update(await readFile(bin))
      .digest("hex");
    sumFile = await tmp.write("action/waybill.mjs.sha256", `${hex}  waybill.mjs\n`);
    // The stand-in for the single file (with its own sha256): it prints what it was given.
    standIn = await tmp.write(
      "stand-in/waybill.mjs",
      "console.log(JSON.stringify({ allowed: process.env.WAYBILL_ALLOWED_ORGS ?? null, token: process.env.WAYBILL_GITHUB_TOKEN ?? null, argv: process.argv.slice(2) }));\nprocess.exitCode = Number(process.env.STANDIN_EXIT ?? 0);\n",
    );
    standInSum = await tmp.write(
      "stand-in/waybill.mjs.sha256",
      `${createHash("sha256")
        .update(await readFile(standIn))
        .digest("hex")}  waybill.mjs\n`,
    );
    // npm and npx shims first on PATH: they record the call and fail.
    npmCalls = tmp.path("npm-calls.log");
    for (const name of ["npm", "npx"]) {
      const shim = await tmp.write(
        `shims/${name}`,
        `#!/bin/sh\necho "${name} $*" >> "${npmCalls}"\nexit 1\n`,
      );
      await chmod(shim, 0o755);
    }
    shimPath = `${tmp.path("shims")}:${process.env.PATH ?? ""}`;
    const demo = await readFile(join(REPO_ROOT, "examples", "demo", "waybill.yaml"), "utf8");
    await tmp.write("infra/waybill.yaml", demo);
    await tmp.write("other/waybill.yaml", demo);
    await tmp.write("bad/waybill.yaml", "org: gh/acme\ncontexts:\n  x:\n    colour: red\n");
    await tmp.write("pr-event.json", JSON.stringify({ pull_request: { number: PR } }));
    const seed = JSON.parse(
      await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8"),
    );
    emulator = await startEmulator({ seed });
    gh = fakeGitHub();
    await new Promise<void>((resolve) => gh.server.listen(0, "127.0.0.1", resolve));
    ghUrl = `http://127.0.0.1:${(gh.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gh?.server.close();
    await emulator?.close();
    await tmp?.remove();
  });

  /**
   * Run the action's step: inputs as action.yml maps them, plus GitHub's variables. `here`
   * (the default) runs the script's `main` in this process with that environment, the
   * step's folder as Waybill's working folder and its output captured; `child` runs the
   * script as the composite step does, a Node process of its own (exit status through
   * `process.exitCode`, output on the process's stdout and stderr). Each Node process costs
   * ~70 ms of CPU before the script's first line, and this file ran ~60 of them; the cases
   * marked `child` keep that path honest, and ci-recipes-run runs action.yml itself.
   */
  const runAction = async (
    inputs: Record<string, string>,
    event: "pull_request" | "pull_request_target" | "push" | "workflow_run" = "pull_request",
    serviceUrl?: string,
    where: "child" | "here" = "here",
  ) => {
    const stamp = `${Date.now()}-${Math.random()}`;
    const outputFile = tmp.path(`output-${stamp}`);
    const summaryFile = tmp.path(`summary-${stamp}`);
    await tmp.write(`output-${stamp}`, "");
    await tmp.write(`summary-${stamp}`, "");
    const env = {
      PATH: shimPath,
      NO_COLOR: "1",
      ...DEMO_SECRETS,
      SERVICE_BASE_URL: serviceUrl ?? emulator.url,
      SERVICE_TOKEN: DEMO_TOKEN,
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: tmp.path("pr-event.json"),
      GITHUB_REPOSITORY: REPO,
      GITHUB_API_URL: ghUrl,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      WAYBILL_GITHUB_TOKEN: GH_TOKEN,
      WAYBILL_BIN: bin,
      WAYBILL_BIN_SHA256: sumFile,
      WAYBILL_COMMENT: "true",
      WAYBILL_FORMAT: "",
      WAYBILL_ARGS: "",
      ...inputs,
    };
    const { code, stdout, stderr } =
      where === "child" ? await runNode([SCRIPT], { cwd: tmp.dir, env }) : await mainHere(env);
    const outputs = Object.fromEntries(
      (await readFile(outputFile, "utf8"))
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const summary = await readFile(summaryFile, "utf8");
    expectNoSecrets({ stdout, stderr, summary }, [
      ...Object.values(DEMO_SECRETS),
      GH_TOKEN,
      USER_TOKEN,
    ]);
    return { code, stdout, stderr, outputs, summary };
  };

  const mainHere = async (
    env: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    const { main } = (await import(SCRIPT)) as {
      main: (
        env: Record<string, string>,
        io: {
          stdout: { write(b: Buffer | string): unknown };
          stderr: { write(b: Buffer | string): unknown };
          cwd: string;
        },
      ) => Promise<number>;
    };
    const lines = { stdout: [] as string[], stderr: [] as string[] };
    const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => {
      lines.stdout.push(`${a.join(" ")}\n`);
    });
    const error = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => {
      lines.stderr.push(`${a.join(" ")}\n`);
    });
    try {
      const code = await main(env, {
        stdout: { write: (b) => lines.stdout.push(String(b)) },
        stderr: { write: (b) => lines.stderr.push(String(b)) },
        cwd: tmp.dir,
      });
      return { code, stdout: lines.stdout.join(""), stderr: lines.stderr.join("") };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  };

  /** The stand-in's inputs: it runs instead of the single file and exits with `exit`. */
  const viaStandIn = (exit: number) => ({
    WAYBILL_BIN: standIn,
    WAYBILL_BIN_SHA256: standInSum,
    STANDIN_EXIT: String(exit),
  });

  const ours = () => gh.comments.filter((c) => c.body.startsWith("<!-- waybill-action:"));

  /** A plan of the config (in this process) against the service has nothing to do. */
  const expectNothingToDo = async (config: string, serviceUrl: string) => {
    const after = await runCli(["plan", "-c", config, "--detailed-exitcode"], {
      cwd: tmp.dir,
      baseUrl: serviceUrl,
      token: DEMO_TOKEN,
      env: DEMO_SECRETS,
    });
    expect(after.code, after.stderr).toBe(0);
  };

  it("plan on a pull request: one comment, created, then updated in place (found on page 2)", async () => {
    const first = await runAction(
      { WAYBILL_COMMAND: "plan", WAYBILL_CONFIG: "infra/waybill.yaml" },
      "pull_request",
      undefined,
      "child",
    );
    // Exit 2 (changes) is a successful plan: the job passes.
    expect(first.code, first.stderr).toBe(0);
    expect(first.outputs).toMatchObject({ "exit-code": "2", "has-changes": "true" });
    expect(first.summary).toMatch(/\*\*Plan: 2 to create/);
    expect(ours()).toHaveLength(1);
    const created = ours()[0];
    expect(created?.body).toMatch(
      /^<!-- waybill-action: plan infra\/waybill\.yaml -->\n### `waybill plan` has changes\n\n<!-- waybill-plan-digest: [0-9a-f]{32} -->\n\*\*Plan: 2 to create/,
    );
    expect(first.outputs["comment-id"]).toBe(String(created?.id));

    gh.requests.length = 0;
    const second = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      WAYBILL_ARGS: "--target 'context[\"deploy-staging\"]*'",
      ...viaStandIn(2),
    });
    expect(second.code, second.stderr).toBe(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(created?.id);
    // The second run's output replaced the first's: the args reached the CLI as one word.
    expect(ours()[0]?.body).not.toContain("Plan: 2 to create");
    expect(ours()[0]?.body).toContain("### `waybill plan` has changes");
    expect(ours()[0]?.body).toContain(
      JSON.stringify(["--target", 'context["deploy-staging"]*']).slice(1, -1),
    );
    expect(gh.requests).toEqual([
      "GET /user",
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100`,
      `GET /repos/${REPO}/issues/${PR}/comments?per_page=100&page=2`,
      `PATCH /repos/${REPO}/issues/comments/${created?.id}`,
    ]);
  });

  it("another command or another config gets its own comment", async () => {
    const before = ours().length;
    const other = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "other/waybill.yaml",
      ...viaStandIn(2),
    });
    expect(other.code).toBe(0);
    expect(ours().at(-1)?.body).toMatch(
      /^<!-- waybill-action: plan other\/waybill\.yaml -->\n### `waybill plan` has changes/,
    );
    // Drift on a PR: exit 2 (the demo config differs from the seed) fails the job.
    const drift = await runAction({
      WAYBILL_COMMAND: "drift",
      WAYBILL_CONFIG: "infra/waybill.yaml",
    });
    expect(drift.code).toBe(2);
    expect(drift.stderr).toContain("::error::waybill drift exited 2");
    expect(drift.outputs).toMatchObject({ "exit-code": "2", "has-changes": "true" });
    expect(ours()).toHaveLength(before + 2);
    expect(ours().at(-1)?.body).toMatch(
      /^<!-- waybill-action: drift infra\/waybill\.yaml -->\n### `waybill drift` failed \(exit 2\)/,
    );
  });

  it("validate: GitHub annotations by default; an invalid config fails the job and says why in the comment", async () => {
    const bad = await runAction({
      WAYBILL_COMMAND: "validate",
      WAYBILL_CONFIG: "bad/waybill.yaml",
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      '::error file=bad/waybill.yaml,line=4,col=5,title=waybill validate%3A contexts.x.colour::unknown key "colour"',
    );
    const comment = ours().find((c) =>
      c.body.startsWith("<!-- waybill-action: validate bad/waybill.yaml -->"),
    );
    expect(comment?.body).toContain("### `waybill validate` failed (exit 1)");
  });

  it("on a push: no comment and no GitHub call; a stale saved plan fails the job with exit 3", async () => {
    const saved = tmp.path("saved.json");
    gh.requests.length = 0;
    const planned = await runAction(
      {
        WAYBILL_COMMAND: "plan",
        WAYBILL_CONFIG: "infra/waybill.yaml",
        WAYBILL_ARGS: `--out ${saved}`,
      },
      "push",
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain("Waybill will perform the following actions:");
    expect(planned.outputs["comment-id"]).toBeUndefined();
    const edited = (await readFile(tmp.path("infra/waybill.yaml"), "utf8")).replace(
      'cron_expression: "0 3 * * *"',
      'cron_expression: "0 4 * * *"',
    );
    await tmp.write("stale/waybill.yaml", edited);
    const apply = await runAction(
      { WAYBILL_COMMAND: "apply", WAYBILL_CONFIG: "stale/waybill.yaml", WAYBILL_ARGS: saved },
      "push",
      undefined,
      "child",
    );
    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.outputs["exit-code"]).toBe("3");
    expect(apply.stderr).toContain("::error::waybill apply exited 3");
    expect(gh.requests).toEqual([]);
  });

  it("refuses an unknown command before running anything", async () => {
    const r = await runAction({ WAYBILL_COMMAND: "destroy" }, "pull_request", undefined, "here");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("input command must be one of validate, plan, apply, drift");
  });

  it("a comment with the marker written by someone else is never edited", async () => {
    const marker = "<!-- waybill-action: plan infra/waybill.yaml -->";
    const byMallory = {
      id: 5000,
      body: `${marker}\nNo changes. (written by mallory)`,
      user: { login: "mallory", type: "User" },
    };
    // A bot whose login is not ours, and a user named like our bot (type User).
    const byOtherBot = {
      id: 5001,
      body: `${marker}\nother bot`,
      user: { login: "evil[bot]", type: "Bot" },
    };
    const byLookalike = {
      id: 5002,
      body: `${marker}\nlookalike`,
      user: { login: "github-actions[bot]", type: "User" },
    };
    // Put them first: a search by marker alone would take one of them.
    gh.comments.unshift(byMallory, byOtherBot, byLookalike);
    const before = gh.comments.map((c) => ({ ...c }));
    gh.requests.length = 0;
    const r = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      ...viaStandIn(2),
    });
    expect(r.code, r.stderr).toBe(0);
    for (const foreign of [byMallory, byOtherBot, byLookalike]) {
      expect(gh.comments.find((c) => c.id === foreign.id)).toEqual(
        before.find((c) => c.id === foreign.id),
      );
      expect(gh.requests).not.toContain(`PATCH /repos/${REPO}/issues/comments/${foreign.id}`);
    }
    // Our own comment of the first test is the one updated.
    const own = gh.comments.filter((c) => c.body.startsWith(marker) && c.user === BOT);
    expect(own).toHaveLength(1);
    expect(r.outputs["comment-id"]).toBe(String(own[0]?.id));

    // With a user's token, the identity is GET /user's: alice's comment is hers to update,
    // the bot's is not.
    const byAlice = { id: 5003, body: `${marker}\nold`, user: ALICE };
    gh.comments.push(byAlice);
    const asAlice = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      WAYBILL_GITHUB_TOKEN: USER_TOKEN,
      ...viaStandIn(2),
    });
    expect(asAlice.code, asAlice.stderr).toBe(0);
    expect(asAlice.outputs["comment-id"]).toBe("5003");
    expect(gh.comments.find((c) => c.id === 5003)?.body).toMatch(
      new RegExp(`^${marker}\\n### \`waybill plan\` has changes`),
    );
    expect(own[0]?.body).not.toContain("(written by mallory)");
    gh.comments.splice(gh.comments.indexOf(byMallory), 1);
    gh.comments.splice(gh.comments.indexOf(byOtherBot), 1);
    gh.comments.splice(gh.comments.indexOf(byLookalike), 1);
    gh.comments.splice(gh.comments.indexOf(byAlice), 1);
  });

  it("apply on a push with auto-approve applies, logs text and writes the job summary", async () => {
    const seed = JSON.parse(
      await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8"),
    );
    const own = await startEmulator({ seed });
    try {
      const r = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "infra/waybill.yaml",
          WAYBILL_AUTO_APPROVE: "true",
        },
        "push",
        own.url,
        "child",
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        "waybill apply -c infra/waybill.yaml --format text --auto-approve",
      );
      expect(r.stdout).not.toContain("--format markdown");
      expect(r.stdout).toMatch(/\d+ done, 0 failed, 0 skipped\./);
      expect(r.outputs["exit-code"]).toBe("0");
      expect(r.summary).toMatch(/^### `waybill apply` exited 0\n\n```\n/);
      expect(r.summary).toMatch(/\d+ done, 0 failed, 0 skipped\./);
      // Applied for real: a second plan (in this process) has nothing to do.
      await expectNothingToDo("infra/waybill.yaml", own.url);
    } finally {
      await own.close();
    }
  });

  it("apply on a push of a saved plan: the file is the approval", async () => {
    const seed = JSON.parse(
      await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8"),
    );
    const own = await startEmulator({ seed });
    try {
      // The plan runs in this process (the Action's plan --out is the stale-plan case's).
      const saved = tmp.path("reviewed.json");
      const planned = await runCli(
        ["plan", "-c", "infra/waybill.yaml", "--out", saved, "--detailed-exitcode"],
        { cwd: tmp.dir, baseUrl: own.url, token: DEMO_TOKEN, env: DEMO_SECRETS },
      );
      expect(planned.code, planned.stderr).toBe(2);
      const r = await runAction(
        { WAYBILL_COMMAND: "apply", WAYBILL_CONFIG: "infra/waybill.yaml", WAYBILL_ARGS: saved },
        "push",
        own.url,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain("--auto-approve");
      expect(r.summary).toMatch(/\d+ done, 0 failed, 0 skipped\./);
    } finally {
      await own.close();
    }
  });

  /**
   * design.md §5 "Scoped plans and the reviewed plan": on a push to the default branch the
   * Action applies the plan reviewed on the merged pull request, by the digest in the plan
   * comment it wrote there. `pushOf` writes the push's payload and what GitHub answers for
   * the commit's pull requests (merged as this commit, or none).
   */
  const pushOf = async (sha: string, merged: boolean): Promise<string> => {
    gh.pullsOf.set(
      sha,
      merged
        ? [
            // An older pull request the commit also belongs to (not merged as it): ignored.
            { number: 3, state: "closed", merged_at: null, merge_commit_sha: "f".repeat(40) },
            {
              number: PR,
              state: "closed",
              merged_at: "2026-11-28T05:00:00Z",
              merge_commit_sha: sha,
            },
          ]
        : [],
    );
    return tmp.write(
      `push-${sha}.json`,
      JSON.stringify({
        ref: "refs/heads/main",
        after: sha,
        repository: { full_name: REPO, default_branch: "main" },
      }),
    );
  };
  const demoEmulator = async (): Promise<TestEmulator> =>
    startTestEmulator(
      JSON.parse(await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8")) as Seed,
    );
  const writesOf = async (e: TestEmulator): Promise<string[]> =>
    (await e.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.route}`);
  /** The pull request's plan through the Action (the real single file): its comment's digest. */
  const planOnPullRequest = async (config: string, own: TestEmulator): Promise<string> => {
    await tmp.write(config, await readFile(tmp.path("infra/waybill.yaml"), "utf8"));
    const planned = await runAction(
      { WAYBILL_COMMAND: "plan", WAYBILL_CONFIG: config },
      "pull_request",
      own.url,
    );
    expect(planned.code, planned.stderr).toBe(0);
    const marker = `<!-- waybill-action: plan ${config} -->`;
    const body = gh.comments.find((c) => c.body.startsWith(marker) && c.user === BOT)?.body ?? "";
    const digest = /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->$/.exec(
      body.split("\n")[3] ?? "",
    )?.[1];
    expect(digest, body.slice(0, 300)).toBeDefined();
    return digest as string;
  };

  it("apply on a push after a merged pull request applies the plan its own comment reviewed (--expect-digest)", async () => {
    const own = await demoEmulator();
    try {
      const digest = await planOnPullRequest("merge/waybill.yaml", own);
      // Someone else's comment with the marker and another digest, put first: not taken.
      const forged = {
        id: 6000,
        body: `<!-- waybill-action: plan merge/waybill.yaml -->\n### \`waybill plan\` has changes\n\n<!-- waybill-plan-digest: ${"0".repeat(32)} -->\n`,
        user: ALICE,
      };
      gh.comments.unshift(forged);
      const sha = "1".repeat(40);
      const event = await pushOf(sha, true);
      await own.clearRequests();
      gh.requests.length = 0;
      const r = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "merge/waybill.yaml",
          GITHUB_EVENT_PATH: event,
        },
        "push",
        own.url,
      );
      gh.comments.splice(gh.comments.indexOf(forged), 1);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `waybill apply -c merge/waybill.yaml --format text --expect-digest ${digest}`,
      );
      expect(r.stdout).not.toContain("--auto-approve");
      expect(r.stdout).toContain(`applying the plan reviewed on pull request #${PR}`);
      expect(r.stdout).toContain(`Plan digest: ${digest}`);
      expect(r.stdout).toMatch(/\d+ done, 0 failed, 0 skipped\./);
      expect(gh.requests.slice(0, 2)).toEqual([
        `GET /repos/${REPO}/commits/${sha}/pulls?per_page=100`,
        "GET /user",
      ]);
      // Nothing posted or edited on a push.
      expect(gh.requests.filter((q) => !q.startsWith("GET "))).toEqual([]);
      expect(await writesOf(own)).not.toEqual([]);
      await expectNothingToDo("merge/waybill.yaml", own.url);
    } finally {
      await own.close();
    }
  });

  it("apply on a push: the merged config is not the reviewed one: exit 3, zero writes", async () => {
    const own = await demoEmulator();
    try {
      const digest = await planOnPullRequest("edited/waybill.yaml", own);
      // The merge brings a config the comment did not show (another change merged first).
      await tmp.write(
        "edited/waybill.yaml",
        (await readFile(tmp.path("edited/waybill.yaml"), "utf8")).replace(
          'cron_expression: "0 3 * * *"',
          'cron_expression: "0 4 * * *"',
        ),
      );
      const event = await pushOf("2".repeat(40), true);
      await own.clearRequests();
      const r = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "edited/waybill.yaml",
          GITHUB_EVENT_PATH: event,
        },
        "push",
        own.url,
      );
      expect(r.code, r.stderr).toBe(3);
      expect(r.outputs["exit-code"]).toBe("3");
      expect(r.stderr).toContain(`not ${digest} (--expect-digest)`);
      expect(r.stderr).toContain("::error::waybill apply exited 3");
      expect(await writesOf(own)).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("apply on a push without a reviewed plan is refused (another author's comment, a digest out of place, no merged pull request), unless auto-approve", async () => {
    const own = await demoEmulator();
    const marker = "<!-- waybill-action: plan foreign/waybill.yaml -->";
    const heading = "### `waybill plan` has changes";
    const digest = "d".repeat(32);
    const added: Comment[] = [];
    const add = (c: Comment) => {
      gh.comments.push(c);
      added.push(c);
    };
    await tmp.write("foreign/waybill.yaml", await readFile(tmp.path("infra/waybill.yaml"), "utf8"));
    const apply = async (event: string, inputs: Record<string, string> = {}) =>
      runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "foreign/waybill.yaml",
          GITHUB_EVENT_PATH: event,
          ...inputs,
        },
        "push",
        own.url,
        "here",
      );
    try {
      const merged = await pushOf("3".repeat(40), true);
      // 1. Only comments of other authors (a user, a look-alike of our bot), well formed.
      add({
        id: 7000,
        body: `${marker}\n${heading}\n\n<!-- waybill-plan-digest: ${digest} -->`,
        user: ALICE,
      });
      add({
        id: 7001,
        body: `${marker}\n${heading}\n\n<!-- waybill-plan-digest: ${digest} -->`,
        user: { login: "github-actions[bot]", type: "User" },
      });
      const foreign = await apply(merged);
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toContain(
        `refusing command apply: no reviewed plan (pull request #${PR} (merged as 333333333333) has no plan comment of foreign/waybill.yaml written by github-actions[bot])`,
      );
      expect(foreign.stderr).toContain('set auto-approve: "true"');
      expect(foreign.stdout).not.toContain("waybill apply -c");
      // 2. Our own comment, but the digest is not at its place: a live name in the plan's
      // diff can hold a digest-looking line; a failed plan's comment holds none.
      for (const body of [
        `${marker}\n${heading}\n\n**Plan: 1 to create**\n<!-- waybill-plan-digest: ${digest} -->`,
        `${marker}\n### \`waybill plan\` failed (exit 1)\n\n<!-- waybill-plan-digest: ${digest} -->`,
        `${marker}\n${heading}\n\n\`<!-- waybill-plan-digest: ${digest} -->\``,
      ]) {
        add({ id: 7002 + added.length, body, user: BOT });
        const misplaced = await apply(merged);
        expect(misplaced.code, body).toBe(1);
        expect(misplaced.stderr).toContain(
          `the plan comment of foreign/waybill.yaml on pull request #${PR} shows no plan digest`,
        );
        gh.comments.splice(gh.comments.indexOf(added.pop() as Comment), 1);
      }
      // 3. A commit that is no pull request's merge (pushed straight to main).
      const direct = await pushOf("4".repeat(40), false);
      const none = await apply(direct);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain(
        "no reviewed plan (commit 444444444444 is not the merge of a pull request)",
      );
      // A push to another branch is not looked up at all.
      const branch = await tmp.write(
        "push-branch.json",
        JSON.stringify({
          ref: "refs/heads/feature",
          after: "5".repeat(40),
          repository: { default_branch: "main" },
        }),
      );
      gh.requests.length = 0;
      const other = await apply(branch);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        "the push is to refs/heads/feature, not to the default branch main",
      );
      expect(gh.requests).toEqual([]);
      // Nothing reached the service in any of them.
      expect(await own.requests()).toEqual([]);
      // 4. auto-approve: true applies what the run plans, with a warning.
      const approved = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "foreign/waybill.yaml",
          GITHUB_EVENT_PATH: direct,
          WAYBILL_AUTO_APPROVE: "true",
        },
        "push",
        own.url,
      );
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain(
        "::warning::waybill action: no reviewed plan (commit 444444444444 is not the merge of a pull request): auto-approve applies what this run plans",
      );
      expect(approved.stdout).toContain("--auto-approve");
      expect(approved.stdout).toMatch(/\d+ done, 0 failed, 0 skipped\./);
    } finally {
      for (const c of added) gh.comments.splice(gh.comments.indexOf(c), 1);
      await own.close();
    }
  });

  it("apply on a workflow_run after a push of main: the reviewed digest of the commit it ran for", async () => {
    const sha = "6".repeat(40);
    await pushOf(sha, true);
    const marker = "<!-- waybill-action: plan chained/waybill.yaml -->";
    const digest = "c".repeat(32);
    const own: Comment = {
      id: 7100,
      body: `${marker}\n### \`waybill plan\` succeeded\r\n\n<!-- waybill-plan-digest: ${digest} -->\n**No changes.**`,
      user: BOT,
    };
    gh.comments.push(own);
    const event = (branch: string) =>
      tmp.write(
        `workflow-run-${branch}.json`,
        JSON.stringify({
          workflow_run: {
            event: "push",
            head_branch: branch,
            head_sha: sha,
            head_repository: { full_name: REPO },
            repository: { full_name: REPO },
            pull_requests: [],
          },
          repository: { full_name: REPO, default_branch: "main" },
        }),
      );
    try {
      const r = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "chained/waybill.yaml",
          GITHUB_EVENT_PATH: await event("main"),
          ...viaStandIn(0),
        },
        "workflow_run",
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `"argv":["apply","-c","chained/waybill.yaml","--format","text","--expect-digest","${digest}"]`,
      );
      // A run for another branch has no reviewed plan of main's.
      const other = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "chained/waybill.yaml",
          GITHUB_EVENT_PATH: await event("feature"),
          ...viaStandIn(0),
        },
        "workflow_run",
        undefined,
        "here",
      );
      expect(other.code).toBe(1);
      expect(other.stderr).toContain("the workflow_run did not run for the default branch");
    } finally {
      gh.comments.splice(gh.comments.indexOf(own), 1);
    }
  });

  it("apply: a plan file or --expect-digest in args is the approval; the option list matches apply --help", async () => {
    const { approvalInArgs, APPLY_VALUE_OPTIONS } = (await import(SCRIPT)) as {
      approvalInArgs: (argv: string[]) => string | undefined;
      APPLY_VALUE_OPTIONS: string[];
    };
    expect(approvalInArgs(["plan.json"])).toBe("plan file");
    expect(approvalInArgs(["--target", "project*", "--lock-timeout", "10m"])).toBeUndefined();
    expect(approvalInArgs(["--force-secrets", "x*", "--no-lock", "saved.json"])).toBe("plan file");
    expect(approvalInArgs(["--expect-digest", "a".repeat(32)])).toBe("digest");
    expect(approvalInArgs([`--expect-digest=${"a".repeat(32)}`])).toBe("digest");
    const help = await runCli(["apply", "--help"]);
    const withValue = [...help.stdout.matchAll(/^ {2}(?:(-\w), )?(--[\w-]+) [<[]/gm)].flatMap(
      (m) => (m[1] ? [m[1], m[2] as string] : [m[2] as string]),
    );
    expect(withValue.length).toBeGreaterThan(10);
    expect([...APPLY_VALUE_OPTIONS].sort()).toEqual([...withValue].sort());
  });

  it("apply on a pull request is refused before anything runs, unless allow-apply-on-pr", async () => {
    for (const event of ["pull_request", "pull_request_target"] as const) {
      gh.requests.length = 0;
      const r = await runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "infra/waybill.yaml",
          WAYBILL_AUTO_APPROVE: "true",
        },
        event,
        undefined,
        "here",
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`refusing command apply on a ${event} event`);
      expect(r.stdout).not.toContain("waybill apply -c");
      expect(gh.requests).toEqual([]);
    }
    // Allowed, but a pull request is no merge with a reviewed plan: it needs an approval (the
    // Action says how to give it), and runs with auto-approve.
    const unapproved = await runAction(
      {
        WAYBILL_COMMAND: "apply",
        WAYBILL_CONFIG: "infra/waybill.yaml",
        WAYBILL_ALLOW_APPLY_ON_PR: "true",
      },
      "pull_request",
      undefined,
      "here",
    );
    expect(unapproved.code).toBe(1);
    expect(unapproved.stderr).toContain(
      "no reviewed plan (a pull_request event is not a merge of a pull request)",
    );
    expect(unapproved.stderr).toContain(
      'set auto-approve: "true" to apply what this run plans, or pass a saved plan',
    );
    expect(unapproved.stdout).not.toContain("waybill apply -c");
    const allowed = await runAction({
      WAYBILL_COMMAND: "apply",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      WAYBILL_ALLOW_APPLY_ON_PR: "true",
      WAYBILL_AUTO_APPROVE: "true",
      ...viaStandIn(0),
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(
      "waybill apply -c infra/waybill.yaml --format text --auto-approve",
    );
    const markdown = await runAction(
      {
        WAYBILL_COMMAND: "apply",
        WAYBILL_CONFIG: "infra/waybill.yaml",
        WAYBILL_FORMAT: "markdown",
      },
      "push",
      undefined,
      "here",
    );
    expect(markdown.code).toBe(1);
    expect(markdown.stderr).toContain('apply\'s output is text or json, not "markdown"');
  });

  it("apply on a workflow_run is refused unless the run it follows was a push of this repository's code", async () => {
    const run = (trigger: string, head = REPO, pulls: unknown[] = []) => ({
      workflow_run: {
        event: trigger,
        head_branch: trigger === "push" ? "main" : "feature",
        head_repository: { full_name: head },
        repository: { full_name: REPO },
        pull_requests: pulls,
      },
    });
    const apply = async (event: unknown, inputs: Record<string, string> = {}) => {
      const path = await tmp.write(`workflow-run-${Math.random()}.json`, JSON.stringify(event));
      gh.requests.length = 0;
      return runAction(
        {
          WAYBILL_COMMAND: "apply",
          WAYBILL_CONFIG: "infra/waybill.yaml",
          WAYBILL_AUTO_APPROVE: "true",
          GITHUB_EVENT_PATH: path,
          ...viaStandIn(0),
          ...inputs,
        },
        "workflow_run",
      );
    };
    // One hop from a pull request (a fork's or this repository's), from a fork's code, or
    // from an origin the payload does not show: refused before anything runs.
    for (const [event, why] of [
      [run("pull_request", "mallory/platform"), "triggered by a pull_request event"],
      [run("pull_request_target"), "triggered by a pull_request_target event"],
      [run("workflow_run"), "triggered by a workflow_run event"],
      [run("push", "mallory/platform"), "of code from mallory/platform"],
      [run("push", REPO, [{ number: PR }]), "of a pull request"],
      [{}, "whose payload does not say what triggered it"],
    ] as const) {
      const r = await apply(event);
      expect(r.code, why).toBe(1);
      expect(r.stderr).toContain(`refusing command apply on a workflow_run event ${why}`);
      expect(r.stdout).not.toContain('"argv"');
      expect(gh.requests).toEqual([]);
    }
    // After a push to main (CI green, then apply), or when the workflow says so: it runs.
    for (const [event, inputs] of [
      [run("push"), {}],
      [run("schedule"), {}],
      [run("pull_request", "mallory/platform"), { WAYBILL_ALLOW_APPLY_ON_PR: "true" }],
    ] as const) {
      const r = await apply(event, inputs);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"argv":["apply","-c","infra/waybill.yaml"');
    }
  });

  it("runs only a single file whose sha256 matches, and never npm", async () => {
    const tampered = await tmp.write(
      "tampered/waybill.mjs",
      `${await readFile(bin, "utf8")}\nconsole.error("tampered");\n`,
    );
    const r = await runAction({
      WAYBILL_COMMAND: "validate",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      WAYBILL_BIN: tampered,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /has sha256 [0-9a-f]{64}, not [0-9a-f]{64} as .* says: refusing to run it/,
    );
    expect(r.stderr).not.toContain("tampered\n");
    const missing = await runAction(
      {
        WAYBILL_COMMAND: "validate",
        WAYBILL_CONFIG: "infra/waybill.yaml",
        WAYBILL_BIN: tmp.path("nowhere/waybill.mjs"),
      },
      "pull_request",
      undefined,
      "here",
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("holds no released waybill.mjs");
    // The shims are first on PATH and work: a call would have been recorded.
    expect(await readFile(npmCalls, "utf8").catch(() => "")).toBe("");
  });

  it("passes allowed-orgs to the CLI as WAYBILL_ALLOWED_ORGS, and never the GitHub token", async () => {
    const seen = async (inputs: Record<string, string>) => {
      const r = await runAction(
        {
          WAYBILL_COMMAND: "validate",
          WAYBILL_CONFIG: "infra/waybill.yaml",
          WAYBILL_COMMENT: "false",
          ...viaStandIn(0),
          ...inputs,
        },
        "push",
      );
      expect(r.code, r.stderr).toBe(0);
      const line = r.stdout.split("\n").find((l) => l.startsWith("{")) ?? "{}";
      return JSON.parse(line) as { allowed: string | null; token: string | null };
    };
    expect(await seen({ WAYBILL_INPUT_ALLOWED_ORGS: " gh/acme,gh/beta " })).toMatchObject({
      allowed: "gh/acme,gh/beta",
      token: null,
    });
    // The input left empty: the job's own WAYBILL_ALLOWED_ORGS passes through.
    expect(
      await seen({ WAYBILL_INPUT_ALLOWED_ORGS: "", WAYBILL_ALLOWED_ORGS: "gh/acme" }),
    ).toMatchObject({ allowed: "gh/acme" });
  });

  it("drift with issue: one tracking issue per config, opened, updated, closed when clean, reopened; nobody else's touched", async () => {
    const seed = JSON.parse(
      await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8"),
    );
    const own = await startEmulator({ seed });
    const marker = "<!-- waybill-action: drift-issue infra/waybill.yaml -->";
    // Someone else's issue with our marker, and a pull request by our bot with it: never touched.
    const foreign: Issue = {
      number: gh.issues.length + 1,
      title: "look-alike",
      body: `${marker}\nwritten by alice`,
      state: "closed",
      user: ALICE,
    };
    gh.issues.push(foreign);
    const pr: Issue = {
      number: gh.issues.length + 1,
      title: "a pull request",
      body: `${marker}\na pull request body`,
      state: "open",
      user: BOT,
      pull_request: { url: "x" },
    };
    gh.issues.push(pr);
    const untouched = JSON.stringify([foreign, pr, gh.comments]);
    const tracked = () =>
      gh.issues.filter((i) => i.body.startsWith(marker) && i.user === BOT && !i.pull_request);
    const drift = () =>
      runAction(
        { WAYBILL_COMMAND: "drift", WAYBILL_CONFIG: "infra/waybill.yaml", WAYBILL_ISSUE: "true" },
        "push",
        own.url,
      );
    const today = new Date().toISOString().slice(0, 10);
    try {
      // 1. Drift: the issue is opened; the job passes (the issue is the notice).
      const first = await drift();
      expect(first.code, first.stderr).toBe(0);
      expect(first.outputs["exit-code"]).toBe("2");
      expect(first.stdout).toContain("--format webhook");
      expect(tracked()).toHaveLength(1);
      const issue = tracked()[0];
      expect(issue?.state).toBe("open");
      expect(issue?.title).toBe("Waybill drift: infra/waybill.yaml");
      expect(issue?.body).toMatch(
        /### Drift in gh\/acme: \d+ items differ from `infra\/waybill\.yaml`/,
      );
      expect(issue?.body).toMatch(
        /`event\.schedule\.cron_expression: "0 2 \* \* \*" → "0 3 \* \* \*"` \| \d{4}-/,
      );
      expect(first.outputs["issue-number"]).toBe(String(issue?.number));
      expect(first.summary).toContain("### Drift in gh/acme");
      expectNoSecrets({ body: issue?.body ?? "" }, Object.values(DEMO_SECRETS));

      // 2. Again, with an older first-seen day recorded for one address and a forged one for
      // another: no second issue, the body rewritten, the older day kept, the forged one not.
      if (issue === undefined) throw new Error("no issue");
      const key = JSON.stringify(`gh/acme context["deploy-staging"].env["LOG_LEVEL"]`).slice(1, -1);
      issue.body = issue.body.replace(
        /<!-- waybill-first-seen: .* -->/,
        `<!-- waybill-first-seen: {"${key}":"2026-01-02","gh/acme project[\\"gh/acme/api\\"].webhook[\\"pagerduty\\"]":"<img src=x>"} -->`,
      );
      const second = await drift();
      expect(second.code, second.stderr).toBe(0);
      expect(tracked()).toHaveLength(1);
      expect(tracked()[0]?.number).toBe(issue.number);
      expect(issue.body).toMatch(/LOG_LEVEL.*\| 2026-01-02 \|/);
      expect(issue.body).not.toContain("<img");
      expect(issue.body).toMatch(new RegExp(`pagerduty.*\\| ${today} \\|`));

      // 3. The config applied: drift is clean, and the issue is closed.
      const applied = await runCli(["apply", "-c", "infra/waybill.yaml", "--auto-approve"], {
        cwd: tmp.dir,
        baseUrl: own.url,
        token: DEMO_TOKEN,
        env: DEMO_SECRETS,
      });
      expect(applied.code, applied.stderr).toBe(0);
      const clean = await drift();
      expect(clean.code, clean.stderr).toBe(0);
      expect(clean.outputs["exit-code"]).toBe("0");
      expect(issue.state).toBe("closed");
      expect(issue.body).toMatch(/### No drift in gh\/acme/);

      // 4. A change by hand: the same issue is reopened, not a new one.
      const changed = await tmp.write(
        "changed/waybill.yaml",
        (await readFile(tmp.path("infra/waybill.yaml"), "utf8")).replace(
          'cron_expression: "0 3 * * *"',
          'cron_expression: "0 4 * * *"',
        ),
      );
      const hand = await runCli(["apply", "-c", changed, "--auto-approve"], {
        cwd: tmp.dir,
        baseUrl: own.url,
        token: DEMO_TOKEN,
        env: DEMO_SECRETS,
      });
      expect(hand.code, hand.stderr).toBe(0);
      const again = await drift();
      expect(again.code, again.stderr).toBe(0);
      expect(tracked()).toHaveLength(1);
      expect(issue.state).toBe("open");
      expect(issue.body).toMatch(/cron_expression: "0 4 \* \* \*" → "0 3 \* \* \*"/);
      expect(again.stdout).toContain(`drift issue reopened #${issue.number}`);

      // Nobody else's issue, pull request or comment was changed.
      expect(JSON.stringify([foreign, pr, gh.comments])).toBe(untouched);
    } finally {
      await own.close();
    }
  });

  it("drift with issue: an error still fails the job, and the issue is left alone", async () => {
    const before = JSON.stringify(gh.issues);
    const r = await runAction(
      { WAYBILL_COMMAND: "drift", WAYBILL_CONFIG: "bad/waybill.yaml", WAYBILL_ISSUE: "true" },
      "push",
    );
    expect(r.code).toBe(1);
    expect(JSON.stringify(gh.issues)).toBe(before);
    const wrong = await runAction(
      { WAYBILL_COMMAND: "plan", WAYBILL_CONFIG: "infra/waybill.yaml", WAYBILL_ISSUE: "true" },
      "push",
      undefined,
      "here",
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('issue: "true" is for command drift');
  });

  it("action.yml: Node pinned by commit, the single file and its sha256, no npm, the inputs", async () => {
    const doc = parse(await readFile(join(REPO_ROOT, "action.yml"), "utf8")) as {
      inputs: Record<string, unknown>;
      runs: {
        using: string;
        steps: {
          uses?: string;
          with?: Record<string, string>;
          run?: string;
          env?: Record<string, string>;
        }[];
      };
    };
    expect(Object.keys(doc.inputs)).toEqual([
      "command",
      "config",
      "comment",
      "format",
      "args",
      "github-token",
      "auto-approve",
      "allow-apply-on-pr",
      "allowed-orgs",
      "issue",
      "comment-author",
    ]);
    expect(doc.runs.using).toBe("composite");
    const node = doc.runs.steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    expect(node?.uses).toMatch(/^actions\/setup-node@[0-9a-f]{40}$/);
    expect(node?.with?.["node-version"]).toBe("20.x");
    for (const step of doc.runs.steps) {
      expect(step.run ?? "").not.toMatch(/\b(npm|npx|yarn|pnpm)\b/);
      if (step.uses) expect(step.uses).toMatch(/@[0-9a-f]{40}$/);
    }
    const step = doc.runs.steps.find((s) => s.run?.includes("action/waybill-action.mjs"));
    expect(step?.env?.WAYBILL_BIN).toBe("${{ github.action_path }}/action/waybill.mjs");
    expect(step?.env?.WAYBILL_BIN_SHA256).toBe(
      "${{ github.action_path }}/action/waybill.mjs.sha256",
    );
    expect(Object.keys(step?.env ?? {}).sort()).toEqual([
      "WAYBILL_ALLOW_APPLY_ON_PR",
      "WAYBILL_ARGS",
      "WAYBILL_AUTO_APPROVE",
      "WAYBILL_BIN",
      "WAYBILL_BIN_SHA256",
      "WAYBILL_COMMAND",
      "WAYBILL_COMMENT",
      "WAYBILL_COMMENT_AUTHOR",
      "WAYBILL_CONFIG",
      "WAYBILL_FORMAT",
      "WAYBILL_GITHUB_TOKEN",
      "WAYBILL_INPUT_ALLOWED_ORGS",
      "WAYBILL_ISSUE",
    ]);
  });
});
