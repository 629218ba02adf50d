/**
 * The GitHub Action (action.yml, action/waybill-action.mjs; issue 20). Its script is run as
 * the composite step runs it, with the environment GitHub gives it, against the emulator
 * and a local stand-in for the part of GitHub's REST API it uses: list an issue's comments
 * (paged with `Link` headers), create one, update one. A second run on the same pull
 * request updates the first run's comment (found on page 2, past 120 other comments); a
 * drift or a plan of another config gets its own comment; the job's exit code follows
 * waybill's; outside a pull request no GitHub call is made.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import { CLI_BIN, expectNoSecrets, makeTempDir, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import { runNode } from "../helpers/run-node.js";
import { DEMO_SECRETS, DEMO_TOKEN } from "./docs-shell.js";

const SCRIPT = join(REPO_ROOT, "action", "waybill-action.mjs");
const GH_TOKEN = "ghs_test-token-0123456789";
const REPO = "acme/platform";
const PR = 7;

interface Comment {
  id: number;
  body: string;
}

/** GitHub's issue-comment routes, as far as the action uses them. */
const fakeGitHub = () => {
  const comments: Comment[] = Array.from({ length: 120 }, (_, i) => ({
    id: i + 1,
    body: `an unrelated comment ${i + 1}`,
  }));
  const requests: string[] = [];
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
      if (req.headers.authorization !== `Bearer ${GH_TOKEN}`) return send(401, {});
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
        const c = { id: 1000 + comments.length, body: (JSON.parse(raw) as { body: string }).body };
        comments.push(c);
        return send(201, { ...c, html_url: `https://github.example/${REPO}/pull/${PR}#c${c.id}` });
      }
      const m = new RegExp(`^/repos/${REPO}/issues/comments/(\\d+)$`).exec(url.pathname);
      const target = comments.find((c) => String(c.id) === m?.[1]);
      if (req.method === "PATCH" && target) {
        target.body = (JSON.parse(raw) as { body: string }).body;
        return send(200, { ...target, html_url: `https://github.example/c${target.id}` });
      }
      return send(404, { message: "Not Found" });
    });
  });
  return { server, comments, requests };
};

// Each case runs the CLI once or twice as a child process: give them room on a loaded machine.
describe("the GitHub Action", { timeout: 90_000 }, () => {
  let tmp: TempDir;
  let gh: ReturnType<typeof fakeGitHub>;
  let ghUrl: string;
  let emulator: Awaited<ReturnType<typeof startEmulator>>;

  beforeAll(async () => {
    tmp = await makeTempDir("waybill-action-");
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

  /** Run the action's step: inputs as action.yml maps them, plus GitHub's variables. */
  const runAction = async (
    inputs: Record<string, string>,
    event: "pull_request" | "push" = "pull_request",
  ) => {
    const stamp = `${Date.now()}-${Math.random()}`;
    const outputFile = tmp.path(`output-${stamp}`);
    const summaryFile = tmp.path(`summary-${stamp}`);
    await tmp.write(`output-${stamp}`, "");
    await tmp.write(`summary-${stamp}`, "");
    const env = {
      PATH: process.env.PATH ?? "",
      NO_COLOR: "1",
      ...DEMO_SECRETS,
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: DEMO_TOKEN,
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: tmp.path("pr-event.json"),
      GITHUB_REPOSITORY: REPO,
      GITHUB_API_URL: ghUrl,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      WAYBILL_GITHUB_TOKEN: GH_TOKEN,
      WAYBILL_BIN: CLI_BIN,
      WAYBILL_COMMENT: "true",
      WAYBILL_FORMAT: "",
      WAYBILL_ARGS: "",
      ...inputs,
    };
    const { code, stdout, stderr } = await runNode([SCRIPT], { cwd: tmp.dir, env });
    const outputs = Object.fromEntries(
      (await readFile(outputFile, "utf8"))
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const summary = await readFile(summaryFile, "utf8");
    expectNoSecrets({ stdout, stderr, summary }, [...Object.values(DEMO_SECRETS), GH_TOKEN]);
    return { code, stdout, stderr, outputs, summary };
  };

  const ours = () => gh.comments.filter((c) => c.body.startsWith("<!-- waybill-action:"));

  it("plan on a pull request: one comment, created, then updated in place (found on page 2)", async () => {
    const first = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "infra/waybill.yaml",
    });
    // Exit 2 (changes) is a successful plan: the job passes.
    expect(first.code, first.stderr).toBe(0);
    expect(first.outputs).toMatchObject({ "exit-code": "2", "has-changes": "true" });
    expect(first.summary).toMatch(/\*\*Plan: 2 to create/);
    expect(ours()).toHaveLength(1);
    const created = ours()[0];
    expect(created?.body).toMatch(
      /^<!-- waybill-action: plan infra\/waybill\.yaml -->\n### `waybill plan` has changes\n\n\*\*Plan: 2 to create/,
    );
    expect(first.outputs["comment-id"]).toBe(String(created?.id));

    gh.requests.length = 0;
    const second = await runAction({
      WAYBILL_COMMAND: "plan",
      WAYBILL_CONFIG: "infra/waybill.yaml",
      WAYBILL_ARGS: "--target 'context[\"deploy-staging\"]*'",
    });
    expect(second.code, second.stderr).toBe(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(created?.id);
    expect(ours()[0]?.body).toContain("Plan: 1 to create");
    expect(gh.requests).toEqual([
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
    });
    expect(other.code).toBe(0);
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

  it("apply: a stale saved plan fails the job with waybill's exit code 3", async () => {
    const saved = tmp.path("saved.json");
    const planned = await runAction(
      {
        WAYBILL_COMMAND: "plan",
        WAYBILL_CONFIG: "infra/waybill.yaml",
        WAYBILL_ARGS: `--out ${saved}`,
      },
      "push",
    );
    expect(planned.code, planned.stderr).toBe(0);
    const edited = (await readFile(tmp.path("infra/waybill.yaml"), "utf8")).replace(
      'cron_expression: "0 3 * * *"',
      'cron_expression: "0 4 * * *"',
    );
    await tmp.write("stale/waybill.yaml", edited);
    const apply = await runAction(
      { WAYBILL_COMMAND: "apply", WAYBILL_CONFIG: "stale/waybill.yaml", WAYBILL_ARGS: saved },
      "push",
    );
    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.outputs["exit-code"]).toBe("3");
    expect(apply.stderr).toContain("::error::waybill apply exited 3");
  });

  it("outside a pull request it comments nowhere and calls no GitHub API", async () => {
    gh.requests.length = 0;
    const r = await runAction(
      { WAYBILL_COMMAND: "plan", WAYBILL_CONFIG: "infra/waybill.yaml" },
      "push",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Waybill will perform the following actions:");
    expect(gh.requests).toEqual([]);
  });

  it("refuses an unknown command before running anything", async () => {
    const r = await runAction({ WAYBILL_COMMAND: "destroy" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("input command must be one of validate, plan, apply, drift");
  });

  it("action.yml declares the inputs and runs the script", async () => {
    const doc = parse(await readFile(join(REPO_ROOT, "action.yml"), "utf8")) as {
      inputs: Record<string, unknown>;
      runs: { using: string; steps: { run?: string; env?: Record<string, string> }[] };
    };
    expect(Object.keys(doc.inputs)).toEqual([
      "command",
      "config",
      "comment",
      "format",
      "args",
      "github-token",
    ]);
    expect(doc.runs.using).toBe("composite");
    const step = doc.runs.steps.find((s) => s.run?.includes("action/waybill-action.mjs"));
    expect(Object.keys(step?.env ?? {}).sort()).toEqual([
      "WAYBILL_ARGS",
      "WAYBILL_BIN",
      "WAYBILL_COMMAND",
      "WAYBILL_COMMENT",
      "WAYBILL_CONFIG",
      "WAYBILL_FORMAT",
      "WAYBILL_GITHUB_TOKEN",
    ]);
  });
});
