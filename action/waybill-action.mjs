// The GitHub Action's entry point (action.yml at the repository root runs it). Node 20,
// no dependencies, no package install and no build: it checks the release's single file
// (action/waybill.mjs) against its sha256 (action/waybill.mjs.sha256), runs `waybill
// COMMAND` with it, prints its output, writes the job summary and outputs, on a pull
// request posts ONE comment (or updates the one it wrote before), on a push to the default
// branch applies only the plan reviewed on the merged pull request (reviewedDigest), and
// exits with the code the job should fail on.
//
// Inputs come from action.yml as environment variables (composite actions pass them that
// way): WAYBILL_COMMAND, WAYBILL_CONFIG, WAYBILL_COMMENT, WAYBILL_FORMAT, WAYBILL_ARGS,
// WAYBILL_GITHUB_TOKEN, WAYBILL_AUTO_APPROVE, WAYBILL_ALLOW_APPLY_ON_PR,
// WAYBILL_INPUT_ALLOWED_ORGS, WAYBILL_COMMENT_AUTHOR, WAYBILL_ISSUE, WAYBILL_BIN (the single file) and
// WAYBILL_BIN_SHA256 (its checksum file). GitHub's own variables: GITHUB_EVENT_NAME,
// GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const COMMANDS = ["validate", "plan", "apply", "drift"];

/** GitHub refuses comment bodies over 65,536 characters. */
export const COMMENT_LIMIT = 65_536;

/**
 * The hidden marker that finds this action's comment again: one per command and config,
 * so a plan comment and a drift comment, or the plans of two configs, never overwrite
 * each other. An HTML comment: GitHub does not show it.
 */
export const markerFor = (command, config) => `<!-- waybill-action: ${command} ${config} -->`;

/**
 * Whether the job fails, from the command's exit code (design.md §1 "Commands"):
 *   validate  0 valid; 1 invalid
 *   plan      0 no changes, 2 changes (both a successful plan; run with --detailed-exitcode)
 *   drift     0 none; 2 drift and 1 error both fail: a drift audit that passes on drift
 *             tells nobody
 *   apply     0 done; 1 error or partial failure, 3 stale plan, 4 guard, 130/143 stopped
 */
export const jobFails = (command, code) => {
  if (command === "plan") return code !== 0 && code !== 2;
  return code !== 0;
};

/** Split the `args` input like a shell would split plain words and quoted strings. */
export const splitArgs = (text) => {
  const out = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of text.matchAll(re)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]));
  }
  return out;
};

/** The waybill argv for the inputs. */
export const commandLine = ({ command, config, format, args, autoApprove = false }) => {
  const argv = [command, "-c", config];
  if (format) argv.push("--format", format);
  if (command === "plan") argv.push("--detailed-exitcode");
  if (command === "apply" && autoApprove) argv.push("--auto-approve");
  return [...argv, ...splitArgs(args ?? "")];
};

/**
 * The format when the input leaves it empty: GitHub annotations for validate, Markdown on
 * a PR, and always text for apply (its log is a run's record: apply has no Markdown).
 */
export const defaultFormat = (command, commenting) => {
  if (command === "validate") return "github";
  if (command === "apply") return "text";
  return commenting ? "markdown" : "text";
};

/** `"true"` (any case, spaces around) is true; anything else, the empty string included, is false. */
export const isTrue = (value) => (value ?? "").trim().toLowerCase() === "true";

/**
 * Whether the event runs for a pull request (its head's code and config, maybe a fork's):
 * pull_request, pull_request_target, pull_request_review(_comment), and a comment on a
 * pull request (issue_comment whose issue is a pull request).
 */
export const isPullRequestEvent = (eventName, eventPath) => {
  if ((eventName ?? "").startsWith("pull_request")) return true;
  if (eventName !== "issue_comment" || !eventPath || !existsSync(eventPath)) return false;
  const event = JSON.parse(readFileSync(eventPath, "utf8"));
  return Boolean(event?.issue?.pull_request);
};

/** The events whose own commit is reviewed code: a run they trigger may apply. */
const TRUSTED_TRIGGERS = ["push", "schedule", "workflow_dispatch"];

const readEvent = (eventPath) => {
  if (!eventPath || !existsSync(eventPath)) return undefined;
  try {
    return JSON.parse(readFileSync(eventPath, "utf8"));
  } catch {
    return undefined;
  }
};

/**
 * Why `apply` is refused on this event, or undefined when it may run. Refused: every
 * pull-request event (isPullRequestEvent: `pull_request_target` included, whose workflow
 * is the base's but whose job is asked to act on the head), and a `workflow_run` that is
 * one hop from one: GitHub runs it with the base's write token after a workflow that ran
 * for a pull request (or for a fork's code), so its artifacts and head are unreviewed.
 * Decision (the issue names the hazard, not the cure): a `workflow_run` may apply only when
 * its payload shows the triggering run was a push, a schedule or a manual run of this
 * repository's own code, with no pull request attached; anything else, an unreadable
 * payload included, is refused like a pull request, so a chained `workflow_run` (whose
 * origin the payload does not show) is refused too.
 */
export const applyRefusal = (eventName, eventPath) => {
  if (isPullRequestEvent(eventName, eventPath)) return `a ${eventName} event`;
  if (eventName !== "workflow_run") return undefined;
  const run = readEvent(eventPath)?.workflow_run;
  const trigger = run?.event;
  const head = run?.head_repository?.full_name;
  const own = run?.repository?.full_name;
  const prs = Array.isArray(run?.pull_requests) ? run.pull_requests.length : 0;
  if (typeof trigger !== "string") {
    return "a workflow_run event whose payload does not say what triggered it";
  }
  if (!TRUSTED_TRIGGERS.includes(trigger)) {
    return `a workflow_run event triggered by a ${trigger} event`;
  }
  if (typeof head !== "string" || head !== own) {
    return `a workflow_run event of code from ${head ?? "an unknown repository"}`;
  }
  if (prs > 0) return "a workflow_run event of a pull request";
  return undefined;
};

const sha256Of = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/**
 * The single file to run, checked against its checksum file (`<hex>  waybill.mjs`, as
 * `npm run release -- --action` writes it). Returns an error message, or undefined when the
 * file is the one the checksum names.
 */
export const verifyBin = (bin, sumFile) => {
  if (!bin || !existsSync(bin)) {
    return `${bin || "WAYBILL_BIN"} does not exist: this commit of the Action holds no released waybill.mjs. Pin the Action to a release commit (README "The GitHub Action")`;
  }
  if (!sumFile || !existsSync(sumFile)) {
    return `${sumFile || "WAYBILL_BIN_SHA256"} does not exist: the Action runs only a single file it can check`;
  }
  const expected = /^([0-9a-f]{64})\b/.exec(readFileSync(sumFile, "utf8").trim())?.[1];
  if (!expected) return `${sumFile} does not hold a sha256`;
  const actual = sha256Of(bin);
  if (actual !== expected) {
    return `${bin} has sha256 ${actual}, not ${expected} as ${sumFile} says: refusing to run it`;
  }
  return undefined;
};

const fence = (text) => {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
};

/** The comment body: the marker, a heading with the outcome, the output, cut to the limit. */
export const commentBody = ({ marker, command, code, failed, format, stdout, stderr }) => {
  const status = failed
    ? `failed (exit ${code})`
    : command === "plan" && code === 2
      ? "has changes"
      : "succeeded";
  const parts = [marker, `### \`waybill ${command}\` ${status}`, ""];
  const output = stdout.trim();
  if (output !== "") {
    if (format === "markdown") parts.push(output);
    else {
      const f = fence(output);
      parts.push(f, output, f);
    }
  }
  if (failed && stderr.trim() !== "") {
    const tail = stderr.trim().slice(-20_000);
    const f = fence(tail);
    parts.push("", "<details><summary>stderr</summary>", "", f, tail, f, "", "</details>");
  }
  const body = parts.join("\n");
  if (body.length <= COMMENT_LIMIT) return body;
  const note = "\n\n… cut: the output is longer than a GitHub comment; see the job log.";
  return body.slice(0, COMMENT_LIMIT - note.length) + note;
};

/** `Link: <url>; rel="next"` → the next page's URL, if any. */
const nextLink = (link) => {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (m) return m[1];
  }
  return undefined;
};

/** The login the default `github.token` (an installation token of GitHub Actions) posts as. */
export const ACTIONS_BOT = "github-actions[bot]";

/**
 * Whether a listed comment is ours to update: it starts with the marker AND its author is
 * the identity that posts. Anyone can write the marker in a comment of a public pull
 * request; such a comment is never edited (it could be made to look like our plan).
 */
export const isOwnComment = (c, marker, identity) =>
  typeof c?.body === "string" &&
  c.body.startsWith(marker) &&
  typeof c?.user?.login === "string" &&
  c.user.login.toLowerCase() === identity.login.toLowerCase() &&
  (identity.type === undefined || c.user.type === identity.type);

/**
 * Post `body` as a comment on the issue, or update the comment this identity wrote before
 * with `marker` (the first one found, reading every page of the issue's comments). The
 * identity: GET /user, which answers for a user's token; an installation token (the job's
 * `github.token`) gets 403 there, and posts as `commentAuthor` (default
 * github-actions[bot], a Bot). Uses only: GET /user, GET /repos/{repo}/issues/{n}/comments
 * (paged by `Link`), POST the same path, PATCH /repos/{repo}/issues/comments/{id}.
 * Resolves with what was done and the comment's URL.
 */
export const upsertComment = async ({
  apiUrl,
  token,
  repository,
  issue,
  marker,
  body,
  commentAuthor,
  fetchImpl = fetch,
}) => {
  const gh = githubClient({ apiUrl, token, fetchImpl });
  const identity = await whoAmI(gh, commentAuthor);
  const previous = await findOwnComment(gh, repository, issue, marker, identity);
  if (previous) {
    const { json } = await gh.call(
      "PATCH",
      `${gh.base}/repos/${repository}/issues/comments/${previous.id}`,
      { body },
    );
    return { action: "updated", id: previous.id, url: json.html_url };
  }
  const { json } = await gh.call(
    "POST",
    `${gh.base}/repos/${repository}/issues/${issue}/comments`,
    {
      body,
    },
  );
  return { action: "created", id: json.id, url: json.html_url };
};

/**
 * The first comment of the issue (or pull request) that this identity wrote with the
 * marker (isOwnComment), reading every page of its comments (paged by `Link`). Decision:
 * at most 100 pages (10,000 comments) are read; a longer thread counts as having none
 * rather than a request loop without end.
 */
const findOwnComment = (gh, repository, issue, marker, identity) =>
  findInPages(gh, `${gh.base}/repos/${repository}/issues/${issue}/comments?per_page=100`, (c) =>
    isOwnComment(c, marker, identity),
  );

/** The first item of a paged list (`Link: rel="next"`, at most 100 pages) that `test` accepts. */
const findInPages = async (gh, first, test) => {
  let url = first;
  for (let page = 0; url && page < 100; page++) {
    const { json, link } = await gh.call("GET", url);
    if (!Array.isArray(json)) throw new Error(`GET ${new URL(url).pathname}: not a list`);
    const found = json.find(test);
    if (found) return found;
    url = nextLink(link);
  }
  return undefined;
};

/** The few GitHub REST calls the Action makes, with its headers; a non-2xx answer throws. */
const githubClient = ({ apiUrl, token, fetchImpl = fetch }) => {
  const headers = {
    authorization: `Bearer ${token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "content-type": "application/json",
    "user-agent": "waybill-action",
  };
  const base = apiUrl.replace(/\/+$/, "");
  const call = async (method, url, payload) => {
    const res = await fetchImpl(url, {
      method,
      headers,
      ...(payload ? { body: JSON.stringify(payload) } : {}),
    });
    if (!res.ok) {
      throw new Error(`${method} ${new URL(url).pathname} failed with ${res.status}`);
    }
    return { json: await res.json(), link: res.headers.get("link") };
  };
  return { base, headers, call, fetchImpl };
};

/**
 * The identity that posts: GET /user answers for a user's token; an installation token
 * (the job's `github.token`) gets 403 there, and posts as `commentAuthor` (default
 * github-actions[bot], a Bot).
 */
const whoAmI = async (gh, commentAuthor) => {
  const me = await gh.fetchImpl(`${gh.base}/user`, { method: "GET", headers: gh.headers });
  if (me.ok) {
    const json = await me.json();
    if (typeof json?.login !== "string") throw new Error("GET /user: no login in the answer");
    return { login: json.login, type: typeof json.type === "string" ? json.type : undefined };
  }
  if (me.status === 403) {
    // Decision: 403 ("Resource not accessible by integration") is an installation token:
    // GitHub Actions' own, unless the workflow names its app's bot in comment-author. A
    // wrong name only means a new comment (or issue) each run, never an edit of someone else's.
    const login = (commentAuthor ?? "").trim() || ACTIONS_BOT;
    return { login, type: login.endsWith("[bot]") ? "Bot" : undefined };
  }
  throw new Error(`GET /user failed with ${me.status}`);
};

/**
 * The drift tracking issue's marker (design.md §5 "Drift": one issue per config): a
 * hidden first line, as the comment's. Only an issue (not a pull request) that starts with
 * it AND was written by the identity that posts is ever read or changed.
 */
export const issueMarkerFor = (config) => `<!-- waybill-action: drift-issue ${config} -->`;

const FIRST_SEEN = /<!-- waybill-first-seen: (\{[^\n]*\}) -->/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The first-seen day of each address, as the issue's last body recorded it (a hidden
 * line). The body is data anyone with write access could edit: only well-formed days
 * are kept, anything else is forgotten (the address then counts from today).
 */
export const firstSeenFrom = (body) => {
  const m = FIRST_SEEN.exec(body ?? "");
  if (!m) return {};
  let parsed;
  try {
    parsed = JSON.parse(m[1]);
  } catch {
    return {};
  }
  const out = {};
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return out;
  for (const [k, v] of Object.entries(parsed)) if (typeof v === "string" && DAY.test(v)) out[k] = v;
  return out;
};

/** A Markdown table cell: pipes escaped, one line, in a code span that holds any backtick. */
const cell = (text) => {
  const one = String(text).replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  const f = "`".repeat(Math.max(0, ...(one.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  return f.length > 1 ? `${f} ${one} ${f}` : `${f}${one}${f}`;
};

const shown = (v) => (v === null ? "null" : v === "(sensitive)" ? v : JSON.stringify(v));

/**
 * The tracking issue's body from drift's webhook document (schemas/drift-webhook.schema.json,
 * already masked): the marker, what differs with `live → config` and a first-seen day per
 * address, the unmanaged items and the coverage, and the first-seen days as a hidden line.
 */
export const driftIssueBody = ({ marker, config, doc, firstSeen, today }) => {
  const seen = {};
  for (const d of doc.differences) {
    const key = `${d.org} ${d.address}`;
    seen[key] = firstSeen[key] ?? d.first_seen ?? today;
  }
  const orgs = doc.orgs.map((o) => o.slug).join(", ");
  const n = doc.differences.length;
  const parts = [
    marker,
    doc.drift
      ? `### Drift in ${orgs}: ${n} item${n === 1 ? " differs" : "s differ"} from \`${config}\``
      : `### No drift in ${orgs}: the service matches \`${config}\``,
    "",
    `Checked ${today}.`,
  ];
  if (n > 0) {
    parts.push(
      "",
      "| address | change | live → config | first seen |",
      "| --- | --- | --- | --- |",
    );
    for (const d of doc.differences) {
      const fields = d.fields.map((f) => cell(`${f.path}: ${shown(f.live)} → ${shown(f.config)}`));
      parts.push(
        `| ${cell(d.address)} | ${d.action} | ${fields.join("<br>") || " "} | ${seen[`${d.org} ${d.address}`]} |`,
      );
    }
  }
  if (doc.unmanaged.length > 0) {
    parts.push(
      "",
      `<details><summary>${doc.unmanaged.length} unmanaged live item(s) (information)</summary>`,
      "",
      ...doc.unmanaged.map((u) => `- ${cell(u.address)} (${u.why})`),
      "",
      "</details>",
    );
  }
  if (doc.coverage) {
    parts.push("", `Coverage: ${doc.coverage.managed} of ${doc.coverage.live} live items managed.`);
  }
  parts.push("", `<!-- waybill-first-seen: ${JSON.stringify(seen)} -->`);
  const body = parts.join("\n");
  if (body.length <= COMMENT_LIMIT) return body;
  const note = "\n\n… cut: the report is longer than a GitHub issue; see the job log.";
  const hidden = `\n<!-- waybill-first-seen: ${JSON.stringify(seen)} -->`;
  return body.slice(0, COMMENT_LIMIT - note.length - hidden.length) + note + hidden;
};

/** An issue of the list that this identity wrote with the marker (never a pull request). */
export const isOwnIssue = (i, marker, identity) =>
  i?.pull_request === undefined && isOwnComment(i, marker, identity);

/**
 * Keep one tracking issue per config (issue 46; tfaction's drift issues): opened on drift,
 * its body rewritten with the current report on every run, closed when clean, and the same
 * issue reopened the next time. Uses only: GET /user, GET /repos/{repo}/issues?state=all
 * (paged by `Link`), POST /repos/{repo}/issues, PATCH /repos/{repo}/issues/{n}. An issue
 * another identity wrote, marker or not, is never read for dates nor changed.
 */
export const syncDriftIssue = async ({
  apiUrl,
  token,
  repository,
  config,
  doc,
  today,
  commentAuthor,
  fetchImpl = fetch,
}) => {
  const gh = githubClient({ apiUrl, token, fetchImpl });
  const identity = await whoAmI(gh, commentAuthor);
  const marker = issueMarkerFor(config);
  const found = await findInPages(
    gh,
    `${gh.base}/repos/${repository}/issues?state=all&per_page=100`,
    (i) => isOwnIssue(i, marker, identity),
  );
  const body = driftIssueBody({
    marker,
    config,
    doc,
    firstSeen: found ? firstSeenFrom(found.body) : {},
    today,
  });
  const at = (n) => `${gh.base}/repos/${repository}/issues/${n}`;
  if (!doc.drift) {
    if (!found || found.state === "closed") return { action: "none", number: found?.number };
    await gh.call("PATCH", at(found.number), { body, state: "closed", state_reason: "completed" });
    return { action: "closed", number: found.number };
  }
  if (!found) {
    const { json } = await gh.call("POST", `${gh.base}/repos/${repository}/issues`, {
      title: `Waybill drift: ${config}`,
      body,
    });
    return { action: "opened", number: json.number, url: json.html_url };
  }
  const reopen = found.state === "closed";
  const { json } = await gh.call("PATCH", at(found.number), {
    body,
    ...(reopen ? { state: "open" } : {}),
  });
  return { action: reopen ? "reopened" : "updated", number: found.number, url: json.html_url };
};

/** The pull request number of the event, if the workflow runs for a pull request. */
export const pullRequestNumber = (eventName, eventPath) => {
  if (!eventPath) return undefined;
  if (!["pull_request", "pull_request_target"].includes(eventName ?? "")) return undefined;
  const event = JSON.parse(readFileSync(eventPath, "utf8"));
  const n = event?.pull_request?.number;
  return typeof n === "number" ? n : undefined;
};

/**
 * The options of `waybill apply` that take a value (`--force-secrets [glob]` too: the CLI
 * takes the next word as its glob). Used only to tell a plan file in the `args` input from
 * an option's value; test/integration/action.test.ts checks this list against `waybill
 * apply --help`.
 */
export const APPLY_VALUE_OPTIONS = [
  "-c",
  "--config",
  "--base-url",
  "--token-file",
  "--format",
  "--parallelism",
  "--target",
  "--exclude",
  "--changed-since",
  "--timeout",
  "--allowed-orgs",
  "--policy-cmd",
  "--policy-cmd-timeout",
  "--allow-risky",
  "--force-secrets",
  "--lock",
  "--lock-timeout",
  "--expect-digest",
];

/**
 * The approval the workflow itself gives apply in `args`: a saved plan file (apply's one
 * argument) or `--expect-digest`; undefined when there is none.
 */
export const approvalInArgs = (argv) => {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--expect-digest" || word.startsWith("--expect-digest=")) return "digest";
    if (word === "--") return i + 1 < argv.length ? "plan file" : undefined;
    if (word.startsWith("-")) {
      if (APPLY_VALUE_OPTIONS.includes(word)) i++;
      continue;
    }
    return "plan file";
  }
  return undefined;
};

/**
 * The heading lines the Action writes above a plan that succeeded (commentBody): a digest
 * is read only under one of them, never from a failed plan's comment.
 */
const PLAN_HEADINGS = ["### `waybill plan` has changes", "### `waybill plan` succeeded"];
const DIGEST_LINE = /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->$/;

/**
 * The reviewed plan's digest from the Action's own plan comment (commentBody with format
 * markdown): line 1 its marker, line 2 a heading of a plan that succeeded, line 3 empty,
 * line 4 the Markdown plan's first line, `<!-- waybill-plan-digest: D -->`
 * (src/render/common.ts digestMarker). Only that position counts: the rest of the comment
 * holds live names and config values (a context's name, an env var's value), which others
 * can write, so a digest-looking line anywhere else is never taken. Undefined when the
 * comment has no digest there (a failed plan, a plan shown as text, a plan from before
 * digests).
 */
export const digestOfComment = (body, marker) => {
  if (typeof body !== "string") return undefined;
  // GitHub keeps a body as posted; an edit in its web editor may store CRLF line ends.
  const lines = body.split(/\r?\n/, 4);
  if (lines[0] !== marker || !PLAN_HEADINGS.includes(lines[1]) || lines[2] !== "") {
    return undefined;
  }
  return DIGEST_LINE.exec(lines[3] ?? "")?.[1];
};

/**
 * The commit this run applies, if it is the default branch's: a push to it, or a
 * workflow_run after such a push (applyRefusal has already refused the rest of
 * workflow_run). Returns `{ sha }` or `{ why }` (why no reviewed plan can be looked up).
 */
export const defaultBranchCommit = (eventName, eventPath, env) => {
  const event = readEvent(eventPath);
  const main = event?.repository?.default_branch;
  if (eventName === "push") {
    if (event?.deleted === true) return { why: "the push deleted a branch" };
    const sha = typeof event?.after === "string" ? event.after : env.GITHUB_SHA;
    if (typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) {
      return { why: "the push event names no commit" };
    }
    if (typeof main !== "string" || event?.ref !== `refs/heads/${main}`) {
      return {
        why: `the push is to ${event?.ref ?? "an unnamed ref"}, not to the default branch${typeof main === "string" ? ` ${main}` : ""}`,
      };
    }
    return { sha };
  }
  if (eventName === "workflow_run") {
    const run = event?.workflow_run;
    const sha = run?.head_sha;
    if (typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) {
      return { why: "the workflow_run event names no commit" };
    }
    if (typeof main !== "string" || run?.head_branch !== main) {
      return { why: "the workflow_run did not run for the default branch" };
    }
    return { sha };
  }
  return { why: `a ${eventName || "run without an"} event is not a merge of a pull request` };
};

/**
 * design.md §5 "Scoped plans and the reviewed plan": the digest of the plan that was
 * reviewed on the pull request whose merge is `sha`. The pull request: GET
 * /repos/{repo}/commits/{sha}/pulls (GitHub lists there the merged pull request that
 * brought the commit), the one merged AS this commit (`merge_commit_sha`: a merge commit,
 * a squash, or the last commit of a rebase merge); a commit pushed straight to the branch,
 * or one of a pull request's own commits, has none. The comment: the plan comment of this
 * config that this identity wrote (isOwnComment; anyone can write the marker, and a
 * maintainer's comment is not a plan Waybill made), digest read only from its fixed
 * position (digestOfComment). Resolves `{ digest, pull }` or `{ why }`; a GitHub error
 * throws (then nobody can tell whether a reviewed plan exists).
 */
export const reviewedDigest = async ({
  apiUrl,
  token,
  repository,
  sha,
  config,
  commentAuthor,
  fetchImpl = fetch,
}) => {
  const gh = githubClient({ apiUrl, token, fetchImpl });
  const { json } = await gh.call(
    "GET",
    `${gh.base}/repos/${repository}/commits/${sha}/pulls?per_page=100`,
  );
  if (!Array.isArray(json))
    throw new Error(`GET /repos/${repository}/commits/${sha}/pulls: not a list`);
  const merged = json.filter(
    (p) =>
      typeof p?.merged_at === "string" &&
      p.merge_commit_sha === sha &&
      typeof p.number === "number",
  );
  const short = sha.slice(0, 12);
  if (merged.length !== 1) {
    return {
      why:
        merged.length === 0
          ? `commit ${short} is not the merge of a pull request`
          : `commit ${short} is the merge of ${merged.length} pull requests (#${merged.map((p) => p.number).join(", #")})`,
    };
  }
  const pull = merged[0].number;
  const identity = await whoAmI(gh, commentAuthor);
  const marker = markerFor("plan", config);
  const comment = await findOwnComment(gh, repository, pull, marker, identity);
  if (!comment) {
    return {
      pull,
      why: `pull request #${pull} (merged as ${short}) has no plan comment of ${config} written by ${identity.login}`,
    };
  }
  const digest = digestOfComment(comment.body, marker);
  if (digest === undefined) {
    return {
      pull,
      why: `the plan comment of ${config} on pull request #${pull} shows no plan digest (a plan that failed, or one not in the markdown format)`,
    };
  }
  return { digest, pull };
};

/**
 * Where the action's own output goes and where Waybill runs: the step's stdout, stderr and
 * working folder (main's second argument; a test passes its own to run main in-process).
 */
const STEP_IO = () => ({ stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });

const runWaybill = (bin, argv, env, io) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      env,
      cwd: io.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => {
      stdout += b;
      io.stdout.write(b);
    });
    child.stderr.on("data", (b) => {
      stderr += b;
      io.stderr.write(b);
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal === "SIGTERM" ? 143 : 1), stdout, stderr }),
    );
  });

/** The job summary: Markdown as it is, any other output in a code block under a heading. */
export const summaryOf = (command, format, { code, stdout, stderr }) => {
  const out = stdout.trim();
  if (format === "markdown") return out === "" ? "" : `${out}\n`;
  const parts = [`### \`waybill ${command}\` exited ${code}`, ""];
  if (out !== "") {
    const f = fence(out);
    parts.push(f, out, f, "");
  }
  if (code !== 0 && !(command === "plan" && code === 2) && stderr.trim() !== "") {
    const tail = stderr.trim().slice(-20_000);
    const f = fence(tail);
    parts.push(f, tail, f, "");
  }
  return `${parts.join("\n")}\n`;
};

/** A step output, to the GITHUB_OUTPUT file of `env` (the step's, as the job summary is). */
const output = (env, name, value) => {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
};

export const main = async (env = process.env, io = STEP_IO()) => {
  const command = env.WAYBILL_COMMAND ?? "";
  if (!COMMANDS.includes(command)) {
    console.error(
      `::error::waybill action: input command must be one of ${COMMANDS.join(", ")}, not "${command}"`,
    );
    return 1;
  }
  const config = env.WAYBILL_CONFIG || "waybill.yaml";
  const refusal =
    command === "apply" ? applyRefusal(env.GITHUB_EVENT_NAME, env.GITHUB_EVENT_PATH) : undefined;
  if (refusal !== undefined && !isTrue(env.WAYBILL_ALLOW_APPLY_ON_PR)) {
    // A pull request's head is code anyone (a fork) may have written; apply writes to the
    // org with the write token. Decision: refused unless the workflow says so explicitly.
    console.error(
      `::error::waybill action: refusing command apply on ${refusal}: apply runs on a push to the default branch (or set allow-apply-on-pr: "true")`,
    );
    return 1;
  }
  if (
    command === "apply" &&
    env.WAYBILL_FORMAT &&
    env.WAYBILL_FORMAT !== "text" &&
    env.WAYBILL_FORMAT !== "json"
  ) {
    console.error(
      `::error::waybill action: apply's output is text or json, not "${env.WAYBILL_FORMAT}" (its summary goes to the job summary as text)`,
    );
    return 1;
  }
  const refused = verifyBin(env.WAYBILL_BIN, env.WAYBILL_BIN_SHA256);
  if (refused) {
    console.error(`::error::waybill action: ${refused}`);
    return 1;
  }
  // design.md §5 "Drift": `issue: true` keeps one tracking issue per config. Its report is
  // drift's webhook document (the published schema), so the format is that one.
  const tracking = isTrue(env.WAYBILL_ISSUE);
  if (tracking && command !== "drift") {
    console.error(`::error::waybill action: issue: "true" is for command drift, not ${command}`);
    return 1;
  }
  if (tracking && env.WAYBILL_FORMAT && env.WAYBILL_FORMAT !== "webhook") {
    console.error(
      `::error::waybill action: with issue: "true" drift's output is its webhook document (format webhook), not "${env.WAYBILL_FORMAT}"`,
    );
    return 1;
  }
  const issue = pullRequestNumber(env.GITHUB_EVENT_NAME, env.GITHUB_EVENT_PATH);
  const commenting = !tracking && env.WAYBILL_COMMENT !== "false" && issue !== undefined;
  const format = tracking ? "webhook" : env.WAYBILL_FORMAT || defaultFormat(command, commenting);
  let autoApprove = isTrue(env.WAYBILL_AUTO_APPROVE);
  let args = env.WAYBILL_ARGS ?? "";
  if (command === "apply" && approvalInArgs(splitArgs(args)) === undefined) {
    const reviewed = await reviewedPlanOf(env, config, autoApprove);
    if (typeof reviewed === "number") return reviewed;
    if (reviewed !== undefined) {
      // The digest is the approval (as a plan file is): no --auto-approve beside it.
      autoApprove = false;
      args = `--expect-digest ${reviewed} ${args}`;
    }
  }
  const argv = commandLine({ command, config, format, args, autoApprove });
  console.log(`waybill ${argv.join(" ")}`);
  // The CLI gets the job's environment (SERVICE_BASE_URL, SERVICE_TOKEN, the config's
  // secrets) but not the GitHub token, which only the comment needs. The allowed-orgs
  // input reaches it as WAYBILL_ALLOWED_ORGS (design.md §4 "Integration"); left empty, a
  // WAYBILL_ALLOWED_ORGS the workflow set for the job passes through.
  const { WAYBILL_GITHUB_TOKEN: githubToken, WAYBILL_INPUT_ALLOWED_ORGS: allowed, ...cliEnv } = env;
  if ((allowed ?? "").trim() !== "") cliEnv.WAYBILL_ALLOWED_ORGS = allowed.trim();
  const result = await runWaybill(env.WAYBILL_BIN, argv, cliEnv, io);
  // With a tracking issue, drift (2) is reported there, not by a red job: only an error fails.
  const failed = tracking ? result.code !== 0 && result.code !== 2 : jobFails(command, result.code);
  output(env, "exit-code", String(result.code));
  output(
    env,
    "has-changes",
    String((command === "plan" || command === "drift") && result.code === 2),
  );
  if (tracking && !failed) {
    if (!githubToken) {
      console.error('::error::waybill action: issue: "true" but there is no github-token');
      return 1;
    }
    return trackDrift(env, config, githubToken, result);
  }
  if (env.GITHUB_STEP_SUMMARY)
    appendFileSync(env.GITHUB_STEP_SUMMARY, summaryOf(command, format, result));
  if (
    command === "apply" &&
    failed &&
    !autoApprove &&
    /cannot ask for approval/.test(result.stderr)
  ) {
    console.error(
      '::error::waybill action: apply needs an approval: set auto-approve: "true", or pass a saved plan (`waybill plan --out FILE`) in args',
    );
  }
  if (commenting) {
    if (!githubToken) {
      console.error("::error::waybill action: comment is true but there is no github-token");
      return 1;
    }
    const body = commentBody({
      marker: markerFor(command, config),
      command,
      format,
      failed,
      ...result,
    });
    try {
      const done = await upsertComment({
        apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
        token: githubToken,
        repository: env.GITHUB_REPOSITORY ?? "",
        issue,
        marker: markerFor(command, config),
        body,
        commentAuthor: env.WAYBILL_COMMENT_AUTHOR,
      });
      output(env, "comment-id", String(done.id));
      console.log(
        `waybill action: ${done.action} the pull request comment${done.url ? ` ${done.url}` : ""}`,
      );
    } catch (err) {
      // Decision: a comment that cannot be posted fails the job: the reviewer would
      // otherwise see an old plan and take it for the current one.
      console.error(`::error::waybill action: could not post the comment: ${err.message}`);
      return 1;
    }
  }
  if (failed) {
    console.error(`::error::waybill ${command} exited ${result.code}`);
    // The job fails with waybill's own code, so a later step can tell 3 (stale) from 4.
    return result.code;
  }
  return 0;
};

/**
 * design.md §5 "Scoped plans and the reviewed plan": apply (without a plan file or
 * --expect-digest in args) applies the plan reviewed on the merged pull request: the
 * digest of the Action's own plan comment there (reviewedDigest). Resolves the digest, or
 * undefined when there is none and auto-approve lets the run apply what it plans, or the
 * job's exit code when it must stop (no reviewed plan and no auto-approve; GitHub's API
 * failed). Decision: a digest found is passed with auto-approve too (the reviewed plan is
 * the one applied); auto-approve only lets a run without one go on. Decision: a GitHub
 * error stops the job even with auto-approve (a reviewed plan may exist; nobody can tell),
 * while a job with no github-token at all has said it looks for none.
 */
const reviewedPlanOf = async (env, config, autoApprove) => {
  const commit = defaultBranchCommit(env.GITHUB_EVENT_NAME, env.GITHUB_EVENT_PATH, env);
  let found = commit;
  if (commit.sha !== undefined) {
    const token = env.WAYBILL_GITHUB_TOKEN;
    if (!token) found = { why: "there is no github-token to read the pull request's comments" };
    else {
      try {
        found = await reviewedDigest({
          apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
          token,
          repository: env.GITHUB_REPOSITORY ?? "",
          sha: commit.sha,
          config,
          commentAuthor: env.WAYBILL_COMMENT_AUTHOR,
        });
      } catch (err) {
        console.error(
          `::error::waybill action: could not look for the reviewed plan of this commit: ${err.message}`,
        );
        return 1;
      }
    }
  }
  if (found.digest !== undefined) {
    console.log(
      `waybill action: applying the plan reviewed on pull request #${found.pull} (plan digest ${found.digest}); any other plan exits 3 and writes nothing`,
    );
    return found.digest;
  }
  if (autoApprove) {
    console.log(
      `::warning::waybill action: no reviewed plan (${found.why}): auto-approve applies what this run plans`,
    );
    return undefined;
  }
  console.error(
    `::error::waybill action: refusing command apply: no reviewed plan (${found.why}). On a push to the default branch the Action applies only the plan reviewed on the merged pull request (the digest in the plan comment it wrote there, with the same config input and format markdown); set auto-approve: "true" to apply what this run plans, or pass a saved plan (\`waybill plan --out FILE\`) in args`,
  );
  return 1;
};

/** The tracking issue's step: read drift's document, sync the issue, write the summary. */
const trackDrift = async (env, config, githubToken, result) => {
  let doc;
  try {
    doc = JSON.parse(result.stdout);
    if (doc?.kind !== "waybill.drift" || !Array.isArray(doc.differences)) throw new Error();
  } catch {
    console.error("::error::waybill action: drift's output is not its webhook document");
    return 1;
  }
  const today = new Date().toISOString().slice(0, 10);
  try {
    const done = await syncDriftIssue({
      apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
      token: githubToken,
      repository: env.GITHUB_REPOSITORY ?? "",
      config,
      doc,
      today,
      commentAuthor: env.WAYBILL_COMMENT_AUTHOR,
    });
    if (done.number !== undefined) output(env, "issue-number", String(done.number));
    console.log(
      `waybill action: drift issue ${done.action}${done.number !== undefined ? ` #${done.number}` : ""}`,
    );
    if (env.GITHUB_STEP_SUMMARY) {
      const body = driftIssueBody({ marker: "", config, doc, firstSeen: {}, today });
      appendFileSync(env.GITHUB_STEP_SUMMARY, `${body.replace(/\n?<!--[^\n]*-->/g, "").trim()}\n`);
    }
  } catch (err) {
    // Decision: an issue that cannot be kept fails the job: nobody would hear of the drift.
    console.error(`::error::waybill action: could not keep the drift issue: ${err.message}`);
    return 1;
  }
  return 0;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
