/**
 * A local stand-in for the part of GitHub's REST API the CI recipes call (through
 * actions/github-script, the `gh` CLI and examples/ci/service/scripts/upsert-pr-comment.mjs),
 * on 127.0.0.1, recording every request and who made it. What GitHub itself enforces and a
 * recipe depends on is enforced here too:
 *   - a token is an identity: the job's `github.token` is an installation token (GET /user
 *     answers 403, it posts as github-actions[bot]); on a pull request from a fork it is
 *     read-only (every write answers 403); a personal or app token posts as its own user;
 *   - a pull request opened with the job's `github.token` triggers no workflow
 *     (docs.github.com "Triggering a workflow from a workflow"): `triggersWorkflows` is
 *     false on it, and the harness runs no `pull_request` workflow for it.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { format } from "node:util";
import { withWorkingFolder } from "../in-process.js";

export interface GitHubIdentity {
  readonly login: string;
  readonly type: "Bot" | "User";
  /** An installation token (the job's `github.token`): GET /user answers 403. */
  readonly installation: boolean;
  readonly canWrite: boolean;
}

export interface FakeComment {
  readonly id: number;
  body: string;
  readonly user: { readonly login: string; readonly type: string };
}

export interface FakePull {
  readonly number: number;
  readonly head: string;
  readonly base: string;
  readonly title: string;
  body: string;
  readonly openedBy: string;
  /** False for a pull request opened with the job's github.token: no workflow runs for it. */
  readonly triggersWorkflows: boolean;
}

export interface FakeIssue {
  readonly number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  readonly user: { readonly login: string; readonly type: string };
}

export interface FakeGitHub {
  readonly url: string;
  readonly repository: string;
  readonly pulls: FakePull[];
  readonly comments: Map<number, FakeComment[]>;
  readonly labels: Map<number, string[]>;
  readonly issues: FakeIssue[];
  /**
   * Pull requests merged as a commit (a merge commit, a squash, a rebase's last commit):
   * GET /repos/{repo}/commits/{sha}/pulls lists the one whose `merge_commit_sha` is `sha`.
   */
  readonly merged: { readonly number: number; readonly sha: string }[];
  /** `METHOD /path?query as login`, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let raw = "";
    req.on("data", (c: Buffer) => {
      raw += c.toString("utf8");
    });
    req.on("end", () => resolve(raw));
  });

export const startFakeGitHub = async (options: {
  readonly repository: string;
  readonly defaultBranch: string;
  /** token → who it is. */
  readonly tokens: ReadonlyMap<string, GitHubIdentity>;
  /** Pull requests open before the run (number → head branch). */
  readonly openPulls?: readonly { readonly number: number; readonly head: string }[];
  /** Labels on issues before the run. */
  readonly labels?: ReadonlyMap<number, readonly string[]>;
}): Promise<FakeGitHub> => {
  const repo = options.repository;
  const owner = repo.split("/")[0] ?? "";
  const pulls: FakePull[] = (options.openPulls ?? []).map((p) => ({
    number: p.number,
    head: p.head,
    base: options.defaultBranch,
    title: "a pull request",
    body: "",
    openedBy: "alice",
    triggersWorkflows: true,
  }));
  const comments = new Map<number, FakeComment[]>();
  const labels = new Map<number, string[]>(
    [...(options.labels ?? new Map<number, readonly string[]>())].map(([n, l]) => [n, [...l]]),
  );
  const requests: string[] = [];
  const issues: FakeIssue[] = [];
  const merged: { number: number; sha: string }[] = [];
  let nextId = 5000;
  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const url = new URL(req.url ?? "/", "http://x");
      const token = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
      const who = token === undefined ? undefined : options.tokens.get(token);
      requests.push(`${req.method} ${url.pathname}${url.search} as ${who?.login ?? "nobody"}`);
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      if (!who) return send(401, { message: "Bad credentials" });
      const body = (): Record<string, unknown> =>
        raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
      if (req.method !== "GET" && !who.canWrite) {
        return send(403, { message: "Resource not accessible by integration" });
      }
      const p = url.pathname;
      if (req.method === "GET" && p === "/user") {
        return who.installation
          ? send(403, { message: "Resource not accessible by integration" })
          : send(200, { login: who.login, type: who.type, id: 42 });
      }
      if (req.method === "GET" && p === `/repos/${repo}`) {
        return send(200, { full_name: repo, default_branch: options.defaultBranch });
      }
      if (p === `/repos/${repo}/pulls`) {
        if (req.method === "GET") {
          const head = url.searchParams.get("head");
          const list = pulls.filter((pr) => head === null || `${owner}:${pr.head}` === head);
          return send(
            200,
            list.map((pr) => ({ number: pr.number, head: { ref: pr.head } })),
          );
        }
        if (req.method === "POST") {
          const b = body();
          const head = String(b.head);
          if (pulls.some((pr) => pr.head === head)) {
            return send(422, { message: `A pull request already exists for ${owner}:${head}.` });
          }
          const pr: FakePull = {
            number: pulls.length + 100,
            head,
            base: String(b.base),
            title: String(b.title),
            body: String(b.body ?? ""),
            openedBy: who.login,
            triggersWorkflows: !who.installation,
          };
          pulls.push(pr);
          return send(201, {
            number: pr.number,
            html_url: `https://github.example/${repo}/pull/${pr.number}`,
          });
        }
      }
      const ofCommit = new RegExp(`^/repos/${repo}/commits/([0-9a-f]{40})/pulls$`).exec(p);
      if (req.method === "GET" && ofCommit) {
        return send(
          200,
          merged
            .filter((m) => m.sha === ofCommit[1])
            .map((m) => ({
              number: m.number,
              state: "closed",
              merged_at: "2026-11-28T05:00:00Z",
              merge_commit_sha: m.sha,
            })),
        );
      }
      const pull = new RegExp(`^/repos/${repo}/pulls/(\\d+)$`).exec(p);
      const pr = pulls.find((x) => String(x.number) === pull?.[1]);
      if (req.method === "PATCH" && pr) {
        const b = body();
        if (typeof b.body === "string") pr.body = b.body;
        return send(200, { number: pr.number });
      }
      const list = new RegExp(`^/repos/${repo}/issues/(\\d+)/comments$`).exec(p);
      if (list?.[1]) {
        const n = Number(list[1]);
        const all = comments.get(n) ?? [];
        if (req.method === "GET") {
          const perPage = Number(url.searchParams.get("per_page") ?? 30);
          const page = Number(url.searchParams.get("page") ?? 1);
          const last = Math.max(1, Math.ceil(all.length / perPage));
          const origin = `http://${req.headers.host}`;
          const link: Record<string, string> =
            page < last
              ? { link: `<${origin}${p}?per_page=${perPage}&page=${page + 1}>; rel="next"` }
              : {};
          return send(200, all.slice((page - 1) * perPage, page * perPage), link);
        }
        if (req.method === "POST") {
          const c: FakeComment = {
            id: nextId++,
            body: String(body().body),
            user: { login: who.login, type: who.type },
          };
          comments.set(n, [...all, c]);
          return send(201, { ...c, html_url: `https://github.example/c${c.id}` });
        }
      }
      const one = new RegExp(`^/repos/${repo}/issues/comments/(\\d+)$`).exec(p);
      const target = [...comments.values()].flat().find((c) => String(c.id) === one?.[1]);
      if (req.method === "PATCH" && target) {
        if (target.user.login !== who.login) return send(403, { message: "not the author" });
        target.body = String(body().body);
        return send(200, { ...target, html_url: `https://github.example/c${target.id}` });
      }
      if (p === `/repos/${repo}/issues`) {
        if (req.method === "GET") {
          const state = url.searchParams.get("state") ?? "open";
          return send(
            200,
            issues.filter((i) => state === "all" || i.state === state),
          );
        }
        if (req.method === "POST") {
          const b = body();
          const issue: FakeIssue = {
            number: 200 + issues.length,
            title: String(b.title),
            body: String(b.body ?? ""),
            state: "open",
            user: { login: who.login, type: who.type },
          };
          issues.push(issue);
          return send(201, { ...issue, html_url: `https://github.example/i${issue.number}` });
        }
      }
      const issueAt = new RegExp(`^/repos/${repo}/issues/(\\d+)$`).exec(p);
      const issue = issues.find((i) => String(i.number) === issueAt?.[1]);
      if (req.method === "PATCH" && issue) {
        if (issue.user.login !== who.login) return send(403, { message: "not the author" });
        const b = body();
        if (typeof b.body === "string") issue.body = b.body;
        if (typeof b.title === "string") issue.title = b.title;
        if (b.state === "open" || b.state === "closed") issue.state = b.state;
        return send(200, { ...issue, html_url: `https://github.example/i${issue.number}` });
      }
      const label = new RegExp(`^/repos/${repo}/issues/(\\d+)/labels/([^/]+)$`).exec(p);
      if (req.method === "DELETE" && label?.[1] && label[2]) {
        const n = Number(label[1]);
        const name = decodeURIComponent(label[2]);
        const now = labels.get(n) ?? [];
        if (!now.includes(name)) return send(404, { message: "Label does not exist" });
        labels.set(
          n,
          now.filter((l) => l !== name),
        );
        return send(
          200,
          (labels.get(n) ?? []).map((l) => ({ name: l })),
        );
      }
      return send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    repository: repo,
    pulls,
    comments,
    labels,
    issues,
    merged,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/**
 * The `gh` CLI's stand-in (runner images ship `gh`): `gh api [--method M] ENDPOINT [-f k=v]
 * [-F k=v|k=@file] [-H h] [--jq EXPR]` against GITHUB_API_URL, with GH_TOKEN (or
 * GITHUB_TOKEN) as gh reads it in Actions. `--jq` knows the filters the recipes use (a
 * path, `A // empty`, a string with `\(.x)`); any other gh command or filter fails loudly.
 */
export const GH_STAND_IN = `#!/usr/bin/env node
const fs = require("node:fs");
const argv = process.argv.slice(2);
const fail = (msg, code = 1) => { process.stderr.write(msg + "\\n"); process.exit(code); };
if (argv[0] !== "api") fail("gh stand-in: only 'gh api' is available, not: gh " + argv.join(" "), 2);
const token = process.env.GH_TOKEN || process.env.GITHUB_TOKEN;
if (!token) fail("gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable. Example:\\n  env:\\n    GH_TOKEN: \${{ github.token }}", 4);
let method; let endpoint; let jq; const fields = {};
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--method" || a === "-X") method = argv[++i];
  else if (a === "--jq" || a === "-q") jq = argv[++i];
  else if (a === "-H" || a === "--header") i++;
  else if (a === "-f" || a === "--raw-field" || a === "-F" || a === "--field") {
    const kv = argv[++i]; const eq = kv.indexOf("="); const k = kv.slice(0, eq); let v = kv.slice(eq + 1);
    if (a === "-F" || a === "--field") {
      if (v.startsWith("@")) v = fs.readFileSync(v.slice(1), "utf8");
      else if (v === "true" || v === "false") v = v === "true";
      else if (/^\\d+$/.test(v)) v = Number(v);
    }
    fields[k] = v;
  } else if (a.startsWith("-")) fail("gh stand-in: unknown flag " + a, 2);
  else endpoint = a;
}
if (!endpoint) fail("gh stand-in: no endpoint", 2);
method = method || (Object.keys(fields).length > 0 ? "POST" : "GET");
const base = (process.env.GITHUB_API_URL || "").replace(/\\/+$/, "");
let url = base + "/" + endpoint.replace(/^\\//, "");
const init = { method, headers: { authorization: "token " + token, accept: "application/vnd.github+json" } };
if (method === "GET" && Object.keys(fields).length > 0) url += (url.includes("?") ? "&" : "?") + new URLSearchParams(fields);
else if (Object.keys(fields).length > 0) { init.body = JSON.stringify(fields); init.headers["content-type"] = "application/json"; }
const path = (v, p) => { let x = v; for (const m of p.matchAll(/\\.([A-Za-z_][\\w-]*)|\\[(\\d+)\\]/g)) x = x == null ? null : m[1] !== undefined ? x[m[1]] : x[Number(m[2])]; return x ?? null; };
const filter = (v, f) => {
  f = f.trim();
  const alt = f.split(" // ");
  if (alt.length === 2) { const x = filter(v, alt[0]); if (x !== null && x !== false) return x; if (alt[1].trim() === "empty") return undefined; return filter(v, alt[1]); }
  if (f === ".") return v;
  if (/^(\\.[A-Za-z_][\\w-]*|\\.?\\[\\d+\\])+$/.test(f)) return path(v, f.replace(/^\\.\\[/, "["));
  const s = /^"((?:[^"\\\\]|\\\\.)*)"$/.exec(f);
  if (s) return s[1].replace(/\\\\\\((.+?)\\)/g, (_m, inner) => String(filter(v, inner) ?? "null"));
  fail("gh stand-in: unsupported --jq filter " + f, 2);
};
(async () => {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) fail("gh: " + (JSON.parse(text || "{}").message || res.statusText) + " (HTTP " + res.status + ")", 1);
  const json = text === "" ? null : JSON.parse(text);
  if (jq === undefined) { process.stdout.write(text + "\\n"); return; }
  const out = filter(json, jq);
  if (out === undefined) return;
  process.stdout.write((typeof out === "string" ? out : JSON.stringify(out)) + "\\n");
})().catch((e) => fail("gh stand-in: " + e.message));
`;

/**
 * actions/github-script's stand-in, with the step's environment: the `script` input
 * (INPUT_SCRIPT) run as an async function of `github`, `context`, `core` and `require`
 * (and `process` and `console`: the step's), with `github` a client of the octokit
 * methods the recipes call, against GITHUB_API_URL with the `github-token` input
 * (default: github.token). A method it does not know throws, so a recipe calling one
 * fails its test. Run by runGitHubScript, in the runner's process.
 */
const GITHUB_SCRIPT_BODY = `const env = process.env;
const token = env["INPUT_GITHUB-TOKEN"];
const base = env.GITHUB_API_URL.replace(/\\/+$/, "");
const [owner, repo] = env.GITHUB_REPOSITORY.split("/");
const payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8"));
const call = async (method, path, body) => {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: "token " + token, accept: "application/vnd.github+json", "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) { const e = new Error((JSON.parse(text || "{}").message || res.statusText) + " (" + method + " " + path + ": " + res.status + ")"); e.status = res.status; throw e; }
  return { status: res.status, data: text === "" ? null : JSON.parse(text), headers: { link: res.headers.get("link") } };
};
const q = (o, keys) => new URLSearchParams(Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, String(o[k])])));
const issues = {
  listComments: (o) => call("GET", "/repos/" + o.owner + "/" + o.repo + "/issues/" + o.issue_number + "/comments?" + q(o, ["per_page", "page"])),
  createComment: (o) => call("POST", "/repos/" + o.owner + "/" + o.repo + "/issues/" + o.issue_number + "/comments", { body: o.body }),
  updateComment: (o) => call("PATCH", "/repos/" + o.owner + "/" + o.repo + "/issues/comments/" + o.comment_id, { body: o.body }),
  removeLabel: (o) => call("DELETE", "/repos/" + o.owner + "/" + o.repo + "/issues/" + o.issue_number + "/labels/" + encodeURIComponent(o.name)),
};
const repos = {
  listPullRequestsAssociatedWithCommit: (o) => call("GET", "/repos/" + o.owner + "/" + o.repo + "/commits/" + o.commit_sha + "/pulls?" + q(o, ["per_page", "page"])),
};
const known = { issues, repos };
const rest = new Proxy({}, { get: (_t, group) => new Proxy(known[group] ?? {}, { get: (t, m) => t[m] ?? (() => { throw new Error("github-script stand-in: github.rest." + String(group) + "." + String(m) + " is not implemented"); }) }) });
const paginate = async (fn, params) => {
  const all = [];
  for (let page = 1; page < 1000; page++) {
    const { data } = await fn({ ...params, page });
    all.push(...data);
    if (data.length < (params.per_page ?? 30)) break;
  }
  return all;
};
const context = { repo: { owner, repo }, payload, eventName: env.GITHUB_EVENT_NAME, sha: env.GITHUB_SHA, ref: env.GITHUB_REF, issue: { owner, repo, number: payload.pull_request?.number ?? payload.issue?.number } };
const core = { setFailed: (m) => { console.error("::error::" + m); process.exitCode = 1; }, info: (m) => console.log(m), setOutput: () => { throw new Error("github-script stand-in: core.setOutput is not implemented"); } };
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
try {
  const result = await new AsyncFunction("require", "github", "context", "core", "process", "console", env.INPUT_SCRIPT)(createRequire(process.cwd() + "/"), { rest, paginate }, context, core, process, console);
  if (result !== undefined) console.log(JSON.stringify(result));
} catch (e) {
  if (e instanceof ScriptExit) process.exitCode = e.code;
  else {
    console.error("::error::Unhandled error: " + e.message);
    process.exitCode = 1;
  }
}
`;

/** What a script's `process.exit(code)` throws when the stand-in runs in this process. */
class ScriptExit extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

type AsyncFn = (...args: unknown[]) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => AsyncFn;
const standIn = new AsyncFunction(
  "process",
  "console",
  "readFileSync",
  "createRequire",
  "ScriptExit",
  GITHUB_SCRIPT_BODY,
);

/**
 * The stand-in run in this process instead of a Node process of its own (~0.1 s of CPU
 * each; a recipe run calls it up to three times): the script sees the step's environment
 * as `process.env`, its working folder as the current one (relative paths, `require`), and
 * its output and exit code are the step's, as in a child process. `process.exit` ends the
 * script with that code. A hang fails the step after `timeoutMs`.
 */
export const runGitHubScript = async (
  env: Readonly<Record<string, string>>,
  cwd: string,
  timeoutMs = 60_000,
): Promise<{ code: number; signal: null; stdout: string; stderr: string }> => {
  let stdout = "";
  let stderr = "";
  const print =
    (to: "out" | "err") =>
    (...args: unknown[]): void => {
      const line = `${format(...args)}\n`;
      if (to === "out") stdout += line;
      else stderr += line;
    };
  const stepProcess: { env: Record<string, string>; exitCode: number | undefined } & Record<
    string,
    unknown
  > = {
    env: { ...env },
    exitCode: undefined,
    cwd: () => cwd,
    exit: (code = 0) => {
      throw new ScriptExit(Number(code));
    },
    // `process.stdout.write(text)` and its stderr twin, as a script in a process of its own has.
    stdout: {
      write: (text: string) => {
        stdout += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
  };
  const stepConsole = {
    log: print("out"),
    info: print("out"),
    warn: print("err"),
    error: print("err"),
  };
  let timer: NodeJS.Timeout | undefined;
  await withWorkingFolder(cwd, () =>
    Promise.race([
      standIn(stepProcess, stepConsole, readFileSync, createRequire, ScriptExit),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`github-script: no end within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer)),
  );
  return { code: stepProcess.exitCode ?? 0, signal: null, stdout, stderr };
};
