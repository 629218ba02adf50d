// The GitHub Action's entry point (action.yml at the repository root runs it). Node 20,
// no dependencies: it runs `waybill COMMAND`, prints its output, writes the job summary
// and outputs, on a pull request posts ONE comment and updates it in place, and exits with
// the code the job should fail on.
//
// Inputs come from action.yml as environment variables (composite actions pass them that
// way): WAYBILL_COMMAND, WAYBILL_CONFIG, WAYBILL_COMMENT, WAYBILL_FORMAT, WAYBILL_ARGS,
// WAYBILL_GITHUB_TOKEN, and WAYBILL_BIN (the CLI to run). GitHub's own variables:
// GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
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
export const commandLine = ({ command, config, format, args }) => {
  const argv = [command, "-c", config];
  if (format) argv.push("--format", format);
  if (command === "plan") argv.push("--detailed-exitcode");
  return [...argv, ...splitArgs(args ?? "")];
};

/** The format when the input leaves it empty: GitHub annotations for validate, Markdown on a PR. */
export const defaultFormat = (command, commenting) => {
  if (command === "validate") return "github";
  return commenting ? "markdown" : "text";
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

/**
 * Post `body` as a comment on the issue, or update the comment that starts with `marker`
 * (the first one found, reading every page of the issue's comments). Uses only: GET
 * /repos/{repo}/issues/{n}/comments (paged by `Link`), POST the same path, PATCH
 * /repos/{repo}/issues/comments/{id}. Resolves with what was done and the comment's URL.
 */
export const upsertComment = async ({
  apiUrl,
  token,
  repository,
  issue,
  marker,
  body,
  fetchImpl = fetch,
}) => {
  const headers = {
    authorization: `Bearer ${token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "content-type": "application/json",
    "user-agent": "waybill-action",
  };
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
  const base = apiUrl.replace(/\/+$/, "");
  let url = `${base}/repos/${repository}/issues/${issue}/comments?per_page=100`;
  let previous;
  // Decision: at most 100 pages (10,000 comments) are read; a longer thread gets a new
  // comment rather than a request loop without end.
  for (let page = 0; url && page < 100 && !previous; page++) {
    const { json, link } = await call("GET", url);
    if (!Array.isArray(json)) throw new Error(`GET ${new URL(url).pathname}: not a list`);
    previous = json.find((c) => typeof c?.body === "string" && c.body.startsWith(marker));
    url = nextLink(link);
  }
  if (previous) {
    const { json } = await call(
      "PATCH",
      `${base}/repos/${repository}/issues/comments/${previous.id}`,
      { body },
    );
    return { action: "updated", id: previous.id, url: json.html_url };
  }
  const { json } = await call("POST", `${base}/repos/${repository}/issues/${issue}/comments`, {
    body,
  });
  return { action: "created", id: json.id, url: json.html_url };
};

/** The pull request number of the event, if the workflow runs for a pull request. */
export const pullRequestNumber = (eventName, eventPath) => {
  if (!eventPath) return undefined;
  if (!["pull_request", "pull_request_target"].includes(eventName ?? "")) return undefined;
  const event = JSON.parse(readFileSync(eventPath, "utf8"));
  const n = event?.pull_request?.number;
  return typeof n === "number" ? n : undefined;
};

const runWaybill = (bin, argv, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => {
      stdout += b;
      process.stdout.write(b);
    });
    child.stderr.on("data", (b) => {
      stderr += b;
      process.stderr.write(b);
    });
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal === "SIGTERM" ? 143 : 1), stdout, stderr }),
    );
  });

const output = (name, value) => {
  if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
};

export const main = async (env = process.env) => {
  const command = env.WAYBILL_COMMAND ?? "";
  if (!COMMANDS.includes(command)) {
    console.error(
      `::error::waybill action: input command must be one of ${COMMANDS.join(", ")}, not "${command}"`,
    );
    return 1;
  }
  const config = env.WAYBILL_CONFIG || "waybill.yaml";
  const issue = pullRequestNumber(env.GITHUB_EVENT_NAME, env.GITHUB_EVENT_PATH);
  const commenting = env.WAYBILL_COMMENT !== "false" && issue !== undefined;
  const format = env.WAYBILL_FORMAT || defaultFormat(command, commenting);
  const argv = commandLine({ command, config, format, args: env.WAYBILL_ARGS });
  console.log(`waybill ${argv.join(" ")}`);
  // The CLI gets the job's environment (SERVICE_BASE_URL, SERVICE_TOKEN, the config's
  // secrets) but not the GitHub token, which only the comment needs.
  const { WAYBILL_GITHUB_TOKEN: githubToken, ...cliEnv } = env;
  const result = await runWaybill(env.WAYBILL_BIN ?? "waybill", argv, cliEnv);
  const failed = jobFails(command, result.code);
  output("exit-code", String(result.code));
  output("has-changes", String((command === "plan" || command === "drift") && result.code === 2));
  if (env.GITHUB_STEP_SUMMARY && format === "markdown") {
    appendFileSync(env.GITHUB_STEP_SUMMARY, `${result.stdout.trim()}\n`);
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
      });
      output("comment-id", String(done.id));
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
