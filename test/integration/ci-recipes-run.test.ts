/**
 * The CI recipes in examples/ci/ are run as a runner runs them (issue 43): every `run:`
 * step with bash, in order, with the CI system's documented environment (a fresh
 * RUNNER_TEMP and HOME, a PATH without Waybill, GITHUB_OUTPUT / GITHUB_ENV / GITHUB_PATH /
 * GITHUB_STEP_SUMMARY files, the event's payload; no `vars` and no secrets for a fork's
 * pull request), test/helpers/ci-runner/ for both formats. Waybill is downloaded from a
 * release server on 127.0.0.1 (the real single file, bundled from dist/ as `npm run release`
 * does, once per build) after the user's edit of the three pinned install values; the
 * service is the emulator; GitHub's REST API, the `gh` CLI and the marketplace actions are
 * stand-ins that record (checkout = git fetch from the fixture's origin, setup-node = node
 * already on PATH, github-script = the script against the GitHub stand-in).
 *
 * Each recipe is run for the events it takes (a push to main, a same-repository pull
 * request, a fork's pull request, a maintainer's label, the nightly schedule): it must
 * install Waybill, run it, and do what its comments promise; and with a release whose
 * single file exits 126 or 137 (a file that cannot run, the OOM killer) every job that
 * runs it must fail; a plan's exit 2 (changes) is a success, its comment updated in place.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type FakeGitHub,
  type GitHubIdentity,
  startFakeGitHub,
} from "../helpers/ci-runner/fake-github.js";
import {
  type GitHubEvent,
  type JobRecord,
  runWorkflow,
} from "../helpers/ci-runner/github-actions.js";
import { runPipeline, type ServiceJobRecord } from "../helpers/ci-runner/service-ci.js";
import {
  ACTIONS_TOKEN,
  exitingRelease,
  FEATURE_BRANCH,
  FORK_TOKEN,
  gitRead,
  MAIN_CONFIG,
  makeOrigin,
  makeRunnerPath,
  newTempDir,
  type Origin,
  PR_NUMBER,
  pinRelease,
  REPOSITORY,
  type ReleaseServer,
  SECRETS,
  SERVICE_GITHUB_TOKEN,
  seedOf,
  startReleaseServer,
} from "../helpers/ci-runner/world.js";
import { expectNoSecrets, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { releaseBundle } from "../helpers/release-bundle.js";

const CI = join(REPO_ROOT, "examples", "ci");
const MARKER = "<!-- waybill-plan -->";
type Release = { readonly url: string; readonly sha256: string };

const IDENTITIES = new Map<string, GitHubIdentity>([
  [
    ACTIONS_TOKEN,
    { login: "github-actions[bot]", type: "Bot", installation: true, canWrite: true },
  ],
  [FORK_TOKEN, { login: "github-actions[bot]", type: "Bot", installation: true, canWrite: false }],
  [
    SECRETS.WAYBILL_PULL_TOKEN,
    { login: "waybill-pull-bot", type: "User", installation: false, canWrite: true },
  ],
  [
    SERVICE_GITHUB_TOKEN,
    { login: "waybill-bot", type: "User", installation: false, canWrite: true },
  ],
]);
const ALL_SECRETS = [...Object.values(SECRETS), ACTIONS_TOKEN, FORK_TOKEN, SERVICE_GITHUB_TOKEN];

// One case at a time: at once, under two suites at load 40 on 2 cores, 21 cases of child
// processes each passed the 120 s guard. The guard is a hang guard (300 s), not a bound.
describe("CI recipes, run as a runner runs them", { timeout: 300_000 }, () => {
  let tmp: TempDir;
  let origin: Origin;
  let runnerPath: string;
  let releases: ReleaseServer;
  let real: Release;
  /** This repository's Action as a release commit holds it (action/waybill.mjs and its sha256). */
  let actionDir: string;
  const exiting = new Map<number, Release>();

  beforeAll(async () => {
    tmp = await newTempDir();
    const version = (
      JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
    ).version;
    releases = await startReleaseServer(version);
    const bundled = await readFile(await releaseBundle());
    real = releases.add("real", bundled);
    actionDir = tmp.path("action-checkout");
    await tmp.write(
      "action-checkout/action.yml",
      await readFile(join(REPO_ROOT, "action.yml"), "utf8"),
    );
    await tmp.write(
      "action-checkout/action/waybill-action.mjs",
      await readFile(join(REPO_ROOT, "action", "waybill-action.mjs"), "utf8"),
    );
    await writeFile(tmp.path("action-checkout/action/waybill.mjs"), bundled);
    await tmp.write("action-checkout/action/waybill.mjs.sha256", `${real.sha256}  waybill.mjs\n`);
    for (const code of [2, 126, 137])
      exiting.set(code, releases.add(`exit-${code}`, exitingRelease(code)));
    origin = await makeOrigin(tmp);
    runnerPath = await makeRunnerPath(tmp);
  });
  afterAll(async () => {
    await releases?.close();
    await tmp?.remove();
  });

  const repository = { full_name: REPOSITORY, default_branch: "main", owner: { login: "acme" } };
  /** A push to main of `sha` (main's own commit, or the pull request's head merged as it). */
  const push = (sha = origin.mainSha): GitHubEvent => ({
    name: "push",
    payload: {
      ref: "refs/heads/main",
      after: sha,
      repository,
      head_commit: { id: sha },
    },
    sha,
    ref: "refs/heads/main",
    branch: "main",
    fromFork: false,
    changedFiles: ["infra/waybill/waybill.yaml"],
  });
  const pullRequest = (o: {
    readonly fork: boolean;
    readonly number?: number;
    readonly head?: { readonly ref: string; readonly sha: string };
    readonly name?: "pull_request" | "pull_request_target";
    readonly label?: string;
  }): GitHubEvent => {
    const number = o.number ?? PR_NUMBER;
    const head = o.head ?? { ref: FEATURE_BRANCH, sha: origin.prSha };
    const name = o.name ?? "pull_request";
    return {
      name,
      action: o.label === undefined ? "opened" : "labeled",
      payload: {
        action: o.label === undefined ? "opened" : "labeled",
        number,
        ...(o.label === undefined ? {} : { label: { name: o.label } }),
        pull_request: {
          number,
          head: { ...head, repo: { full_name: o.fork ? "mallory/platform" : REPOSITORY } },
          base: { ref: "main", sha: origin.mainSha, repo: { full_name: REPOSITORY } },
        },
        repository,
      },
      // pull_request runs on the merge commit (here the head: it is based on main);
      // pull_request_target on the base branch's last commit.
      sha: name === "pull_request" ? head.sha : origin.mainSha,
      ref: name === "pull_request" ? `refs/pull/${number}/merge` : "refs/heads/main",
      branch: "main",
      headRef: head.ref,
      // pull_request_target runs with the base repository's vars, secrets and token.
      fromFork: o.fork && name === "pull_request",
      changedFiles: ["infra/waybill/waybill.yaml"],
    };
  };
  const dispatch = (): GitHubEvent => ({
    name: "workflow_dispatch",
    payload: { ref: "refs/heads/main", repository },
    sha: origin.mainSha,
    ref: "refs/heads/main",
    branch: "main",
    fromFork: false,
    changedFiles: [],
  });
  const schedule = (): GitHubEvent => ({
    name: "schedule",
    payload: { schedule: "17 3 * * *", repository },
    sha: origin.mainSha,
    ref: "refs/heads/main",
    branch: "main",
    fromFork: false,
    changedFiles: [],
  });

  /** A world for one run: a fresh emulator and GitHub stand-in, closed after `body`. */
  const withWorld = async <T>(
    o: {
      readonly seed?: ReturnType<typeof seedOf>;
      readonly openPulls?: { number: number; head: string }[];
      readonly labels?: Map<number, string[]>;
    },
    body: (emulator: TestEmulator, gh: FakeGitHub) => Promise<T>,
  ): Promise<T> => {
    const emulator = await startTestEmulator(o.seed ?? seedOf("changed-by-hand"));
    const gh = await startFakeGitHub({
      repository: REPOSITORY,
      defaultBranch: "main",
      tokens: IDENTITIES,
      ...(o.openPulls ? { openPulls: o.openPulls } : {}),
      ...(o.labels ? { labels: o.labels } : {}),
    });
    try {
      return await body(emulator, gh);
    } finally {
      await gh.close();
      await emulator.close();
    }
  };

  const runGitHub = async (
    recipe: string,
    event: GitHubEvent,
    emulator: TestEmulator,
    gh: FakeGitHub,
    release: Release = real,
  ): Promise<Record<string, JobRecord>> => {
    const text = pinRelease(await readFile(join(CI, "github-actions", recipe), "utf8"), release);
    const root = await tmp.write(`runs/${Math.random().toString(36).slice(2)}/.keep`, "");
    return runWorkflow(obj(parse(text)), event, {
      root: join(root, ".."),
      repository: REPOSITORY,
      origin: origin.bare,
      apiUrl: gh.url,
      token: ACTIONS_TOKEN,
      forkToken: FORK_TOKEN,
      // The repository's settings, as the recipes' comments ask for them.
      vars: { SERVICE_BASE_URL: emulator.url },
      secrets: SECRETS,
      path: runnerPath,
      // The recipes name this repository's Action as OWNER/waybill@<a release commit>.
      actions: { "OWNER/waybill": actionDir },
    });
  };

  const runService = async (
    pipeline: {
      readonly branch: string;
      readonly sha: string;
      readonly fork?: boolean;
      readonly nightly?: boolean;
    },
    emulator: TestEmulator,
    gh: FakeGitHub,
    release: Release = real,
  ): Promise<ServiceJobRecord[]> => {
    const text = pinRelease(
      await readFile(join(CI, "service", ".service", "config.yml"), "utf8"),
      release,
    );
    const root = join(
      await tmp.write(`runs/${Math.random().toString(36).slice(2)}/.keep`, ""),
      "..",
    );
    const read = {
      SERVICE_BASE_URL: emulator.url,
      SERVICE_TOKEN: SECRETS.SERVICE_READ_TOKEN,
      GITHUB_TOKEN: SERVICE_GITHUB_TOKEN,
      // The comment script's API root (it defaults to api.github.com).
      GITHUB_API_URL: gh.url,
    };
    return runPipeline(
      text,
      {
        branch: pipeline.branch,
        sha: pipeline.sha,
        fromFork: pipeline.fork ?? false,
        parameters: pipeline.nightly ? { "nightly-drift": true } : {},
      },
      {
        root,
        repository: REPOSITORY,
        origin: origin.bare,
        path: runnerPath,
        // The contexts as the recipe's comments describe them.
        contexts: {
          "waybill-read": read,
          "waybill-secrets": {
            WAYBILL_SECRETS_AVAILABLE: "true",
            PROD_AWS_SECRET: SECRETS.PROD_AWS_SECRET,
            NPM_TOKEN: SECRETS.NPM_TOKEN,
          },
          "waybill-write": {
            SERVICE_BASE_URL: emulator.url,
            SERVICE_TOKEN: SECRETS.SERVICE_WRITE_TOKEN,
          },
        },
      },
    );
  };

  /** Every job's status, and on a mismatch every step's output (the test's message). */
  const expectJobs = (jobs: Record<string, JobRecord>, want: Record<string, string>) => {
    const got = Object.fromEntries(Object.entries(jobs).map(([id, j]) => [id, j.status]));
    expect(got, logOf(Object.values(jobs))).toEqual(want);
  };
  const logOf = (jobs: readonly (JobRecord | ServiceJobRecord)[]): string =>
    jobs
      .flatMap((j) =>
        j.steps.map(
          (s) =>
            `--- ${"id" in j ? j.id : j.job} / ${s.name}: ${s.outcome} (${s.code})\n${s.stdout}${s.stderr}`,
        ),
      )
      .join("\n")
      .slice(-6000);
  const expectNoLeak = (jobs: readonly (JobRecord | ServiceJobRecord)[], gh: FakeGitHub) => {
    const texts: Record<string, string> = {};
    for (const j of jobs) {
      const id = "id" in j ? j.id : j.job;
      j.steps.forEach((s, i) => {
        texts[`${id} step ${i} stdout`] = s.stdout;
        texts[`${id} step ${i} stderr`] = s.stderr;
      });
      if ("summary" in j) texts[`${id} summary`] = j.summary;
    }
    for (const [n, cs] of gh.comments)
      texts[`comments on #${n}`] = cs.map((c) => c.body).join("\n");
    for (const p of gh.pulls) texts[`pull #${p.number}`] = p.body;
    expectNoSecrets(texts, ALL_SECRETS);
  };
  const commentsOn = (gh: FakeGitHub, n: number) => gh.comments.get(n) ?? [];
  /** The service pipeline's jobs as `job: status` lines. */
  const statuses = (jobs: readonly ServiceJobRecord[]) => jobs.map((j) => `${j.job}: ${j.status}`);
  /** A world where the feature branch has an open pull request. */
  const OPEN_PULL = { openPulls: [{ number: PR_NUMBER, head: FEATURE_BRANCH }] };
  /** waybill-plan.yml on the same-repository pull request: planned, its comment posted. */
  const planPullRequest = async (emulator: TestEmulator, gh: FakeGitHub) => {
    const jobs = await runGitHub("waybill-plan.yml", pullRequest({ fork: false }), emulator, gh);
    expectJobs(jobs, { plan: "success", "validate-fork": "skipped" });
    return jobs;
  };
  /** The digest in the plan comment's marker line (line 2, under the Action's own marker). */
  const commentDigest = (gh: FakeGitHub): string | undefined =>
    /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->$/.exec(
      commentsOn(gh, PR_NUMBER)[0]?.body.split("\n")[1] ?? "",
    )?.[1];
  const writes = async (emulator: TestEmulator) =>
    (await emulator.requests()).filter((r) => r.method !== "GET");

  describe("GitHub Actions", () => {
    it("waybill-plan.yml: a same-repository pull request is planned and the plan posted as a comment", async () => {
      await withWorld({}, async (emulator, gh) => {
        const jobs = await planPullRequest(emulator, gh);
        const comments = commentsOn(gh, PR_NUMBER);
        expect(comments).toHaveLength(1);
        expect(comments[0]?.user.login).toBe("github-actions[bot]");
        expect(comments[0]?.body.startsWith(MARKER)).toBe(true);
        // The pull request's change, and the service's hand edit it would undo.
        expect(comments[0]?.body).toContain("LOG_LEVEL");
        expect(comments[0]?.body).toContain("enable_private_orbs");
        expect(await writes(emulator)).toEqual([]);
        expectNoLeak(Object.values(jobs), gh);
      });
    });

    it("waybill-plan.yml: a fork's pull request installs Waybill with no vars and no secrets, and validates only", async () => {
      await withWorld({}, async (emulator, gh) => {
        const jobs = await runGitHub("waybill-plan.yml", pullRequest({ fork: true }), emulator, gh);
        expectJobs(jobs, { plan: "skipped", "validate-fork": "success" });
        expect(await emulator.requests()).toEqual([]);
        expect(gh.requests).toEqual([]);
        expectNoLeak(Object.values(jobs), gh);
      });
    });

    it("waybill-plan-fork.yml: on the maintainer's label the labelled commit is planned, the label removed first", async () => {
      await withWorld(
        { labels: new Map([[PR_NUMBER, ["waybill-plan-fork"]]]) },
        async (emulator, gh) => {
          const labelled = (label: string) =>
            runGitHub(
              "waybill-plan-fork.yml",
              pullRequest({ fork: true, name: "pull_request_target", label }),
              emulator,
              gh,
            );
          expectJobs(await labelled("bug"), { "plan-fork": "skipped" });
          const jobs = await labelled("waybill-plan-fork");
          expectJobs(jobs, { "plan-fork": "success" });
          expect(gh.labels.get(PR_NUMBER)).toEqual([]);
          const comments = commentsOn(gh, PR_NUMBER);
          expect(comments).toHaveLength(1);
          expect(comments[0]?.body).toContain("LOG_LEVEL");
          expect(await writes(emulator)).toEqual([]);
          expectNoLeak(Object.values(jobs), gh);
        },
      );
    });

    it("waybill-apply.yml: the push of a merged pull request applies exactly the plan reviewed in its comment", async () => {
      await withWorld({}, async (emulator, gh) => {
        // The pull request's plan comment (waybill-plan.yml), then its merge: main at its head.
        const planned = await planPullRequest(emulator, gh);
        const digest = commentDigest(gh);
        expect(digest, commentsOn(gh, PR_NUMBER)[0]?.body.slice(0, 200)).toBeDefined();
        gh.merged.push({ number: PR_NUMBER, sha: origin.prSha });
        const jobs = await runGitHub("waybill-apply.yml", push(origin.prSha), emulator, gh);
        expectJobs(jobs, { plan: "success", apply: "success" });
        const log = logOf(Object.values(jobs));
        expect(log).toContain(`The plan reviewed on pull request #${PR_NUMBER}: digest ${digest}`);
        expect(log).toContain(`Plan digest: ${digest}`);
        expect(jobs.plan?.summary).toContain("enable_private_orbs");
        expect(jobs.apply?.summary).toMatch(/\d+ done, 0 failed/);
        const state = await emulator.state();
        expect(state.orgs?.[0]?.settings?.enable_private_orbs).toBe(true);
        expect(Object.keys(state.orgs?.[0]?.contexts?.[0]?.env ?? {})).toContain("LOG_LEVEL");
        expectNoLeak([...Object.values(planned), ...Object.values(jobs)], gh);
      });
    });

    it("waybill-apply.yml: a push with no reviewed plan, or whose plan moved since the review, writes nothing", async () => {
      await withWorld({}, async (emulator, gh) => {
        const applyOn = async (sha: string, why: string) => {
          const jobs = await runGitHub("waybill-apply.yml", push(sha), emulator, gh);
          expectJobs(jobs, { plan: "failure", apply: "skipped" });
          expect(logOf(Object.values(jobs))).toContain(why);
          expect(await writes(emulator)).toEqual([]);
        };
        // A commit pushed straight to main: no pull request, nothing reviewed.
        await applyOn(origin.mainSha, "is not the merge of a pull request");
        // The merged pull request has a comment with the marker and a digest, by someone else.
        gh.merged.push({ number: PR_NUMBER, sha: origin.prSha });
        gh.comments.set(PR_NUMBER, [
          {
            id: 1,
            body: `<!-- waybill-plan -->\n<!-- waybill-plan-digest: ${"a".repeat(32)} -->\n`,
            user: { login: "mallory", type: "User" },
          },
        ]);
        await applyOn(origin.prSha, `pull request #${PR_NUMBER} has no plan comment`);
        // The reviewed plan, then a hand change of the service before the merge: the plan
        // job stops (exit 3) before anyone is asked to approve, and nothing is applied.
        gh.comments.set(PR_NUMBER, []);
        await planPullRequest(emulator, gh);
        const org = (await emulator.state()).orgs?.[0] as { id: string };
        const edit = await emulator.call("POST", `/api/v3/orgs/${org.id}/update-settings`, {
          enable_private_orbs: true,
        });
        expect(edit.status).toBe(200);
        await emulator.clearRequests();
        await applyOn(origin.prSha, "this plan is not the one reviewed on the pull request");
      });
    });

    it("waybill-apply.yml: a manual run saves the plan, and apply applies exactly that file", async () => {
      await withWorld({}, async (emulator, gh) => {
        const jobs = await runGitHub("waybill-apply.yml", dispatch(), emulator, gh);
        expectJobs(jobs, { plan: "success", apply: "success" });
        expect(jobs.plan?.summary).toContain("enable_private_orbs");
        expect(jobs.apply?.summary).toMatch(/\d+ done, 0 failed/);
        const state = await emulator.state();
        expect(state.orgs?.[0]?.settings?.enable_private_orbs).toBe(true);
        expect(gh.requests).toEqual([]);
        expectNoLeak(Object.values(jobs), gh);
      });
    });

    it("waybill-drift.yml: the nightly audit keeps one tracking issue: opened on drift, closed when clean", async () => {
      await withWorld({}, async (emulator, gh) => {
        const drifted = await runGitHub("waybill-drift.yml", schedule(), emulator, gh);
        expectJobs(drifted, { drift: "success" });
        expect(drifted.drift?.summary).toContain("enable_private_orbs");
        expect(gh.issues.map((i) => [i.state, i.user.login])).toEqual([
          ["open", "github-actions[bot]"],
        ]);
        expect(gh.issues[0]?.body).toContain("enable_private_orbs");
        expectNoLeak(Object.values(drifted), gh);
        // The service put back as the config says: the same issue is closed.
        await emulator.reset(seedOf("in-sync"));
        expectJobs(await runGitHub("waybill-drift.yml", schedule(), emulator, gh), {
          drift: "success",
        });
        expect(gh.issues.map((i) => i.state)).toEqual(["closed"]);
      });
    });

    it("waybill-pull.yml: the service's hand edit comes back as ONE pull request, opened so that it gets a plan", async () => {
      await withWorld({}, async (emulator, gh) => {
        const jobs = await runGitHub("waybill-pull.yml", schedule(), emulator, gh);
        expectJobs(jobs, { pull: "success" });
        const pulled = await gitRead(
          origin.bare,
          "show",
          "waybill/pull:infra/waybill/waybill.yaml",
        );
        expect(pulled).toContain("enable_private_orbs: false");
        expect(pulled).not.toBe(MAIN_CONFIG);
        expect(gh.pulls).toHaveLength(1);
        const pr = gh.pulls[0];
        expect(pr?.head).toBe("waybill/pull");
        // Not github.token: GitHub runs no workflow for a pull request it opened.
        expect(pr?.triggersWorkflows, `opened by ${pr?.openedBy}`).toBe(true);
        // So waybill-plan.yml plans it, as GitHub would run it for the `opened` event.
        const head = await gitRead(origin.bare, "rev-parse", "waybill/pull");
        const planned = await runGitHub(
          "waybill-plan.yml",
          pullRequest({
            fork: false,
            number: pr?.number ?? 0,
            head: { ref: "waybill/pull", sha: head },
          }),
          emulator,
          gh,
        );
        expectJobs(planned, { plan: "success", "validate-fork": "skipped" });
        const comment = commentsOn(gh, pr?.number ?? 0)[0]?.body ?? "";
        expect(comment.startsWith(MARKER)).toBe(true);
        expect(comment).toMatch(/no changes/i);
        // The next night: the same pull request, updated.
        const again = await runGitHub("waybill-pull.yml", schedule(), emulator, gh);
        expectJobs(again, { pull: "success" });
        expect(gh.pulls).toHaveLength(1);
        expect(
          gh.requests.filter((r) => r.startsWith("PATCH /repos/acme/platform/pulls/")),
        ).toHaveLength(1);
        expectNoLeak(
          [...Object.values(jobs), ...Object.values(planned), ...Object.values(again)],
          gh,
        );
      });
    });

    it("waybill-pull.yml: a pull that fails prints its log and fails the job", async () => {
      const seed = {
        ...seedOf("changed-by-hand"),
        tokens: [{ token: SECRETS.SERVICE_WRITE_TOKEN }],
      };
      await withWorld({ seed }, async (emulator, gh) => {
        const jobs = await runGitHub("waybill-pull.yml", schedule(), emulator, gh);
        expectJobs(jobs, { pull: "failure" });
        const failed = jobs.pull?.steps.find((s) => s.outcome === "failure");
        expect(failed?.name).toMatch(/pull/i);
        expect(`${failed?.stdout}${failed?.stderr}`).toMatch(/does not accept the API token/);
        expect(gh.pulls).toEqual([]);
      });
    });
  });

  describe("the service's own CI config", () => {
    it("a branch's pipeline posts the plan as one comment on its pull request", async () => {
      await withWorld(OPEN_PULL, async (emulator, gh) => {
        const jobs = await runService({ branch: FEATURE_BRANCH, sha: origin.prSha }, emulator, gh);
        expect(statuses(jobs), logOf(jobs)).toEqual(["plan: success"]);
        const comments = commentsOn(gh, PR_NUMBER);
        expect(comments.map((c) => c.user.login)).toEqual(["waybill-bot"]);
        expect(comments[0]?.body).toContain("LOG_LEVEL");
        expect(await writes(emulator)).toEqual([]);
        expectNoLeak(jobs, gh);
      });
    });

    it("a fork's pipeline gets no context: it installs Waybill and validates only", async () => {
      await withWorld(OPEN_PULL, async (emulator, gh) => {
        const jobs = await runService(
          { branch: `pull/${PR_NUMBER}`, sha: origin.prSha, fork: true },
          emulator,
          gh,
        );
        expect(statuses(jobs), logOf(jobs)).toEqual(["plan: success"]);
        expect(await emulator.requests()).toEqual([]);
        expect(gh.requests).toEqual([]);
      });
    });

    it("main's pipeline applies the plan reviewed on the merged pull request: saved, approved, applied with its digest", async () => {
      await withWorld(OPEN_PULL, async (emulator, gh) => {
        const planned = await runService(
          { branch: FEATURE_BRANCH, sha: origin.prSha },
          emulator,
          gh,
        );
        expect(statuses(planned)).toEqual(["plan: success"]);
        const digest = commentDigest(gh);
        expect(digest).toBeDefined();
        // A commit of main that is no pull request's merge: nothing reviewed, nothing applied.
        const direct = await runService({ branch: "main", sha: origin.mainSha }, emulator, gh);
        expect(statuses(direct), logOf(direct)).toEqual([
          "plan-saved: failure",
          "hold: blocked",
          "apply: blocked",
        ]);
        expect(logOf(direct)).toContain("is not the merge of a pull request");
        expect(await writes(emulator)).toEqual([]);
        // The pull request merged (main at its head): its reviewed plan is applied.
        gh.merged.push({ number: PR_NUMBER, sha: origin.prSha });
        const jobs = await runService({ branch: "main", sha: origin.prSha }, emulator, gh);
        expect(statuses(jobs), logOf(jobs)).toEqual([
          "plan-saved: success",
          "hold: approved",
          "apply: success",
        ]);
        expect(logOf(jobs)).toContain(
          `The plan reviewed on pull request #${PR_NUMBER}: digest ${digest}`,
        );
        const state = await emulator.state();
        expect(state.orgs?.[0]?.settings?.enable_private_orbs).toBe(true);
        expect(Object.keys(state.orgs?.[0]?.contexts?.[0]?.env ?? {})).toContain("LOG_LEVEL");
        expectNoLeak([...planned, ...direct, ...jobs], gh);
      });
    });

    it("the nightly pipeline's drift fails on drift", async () => {
      await withWorld({}, async (emulator, gh) => {
        const jobs = await runService(
          { branch: "main", sha: origin.mainSha, nightly: true },
          emulator,
          gh,
        );
        expect(statuses(jobs), logOf(jobs)).toEqual(["drift: failure"]);
        expect(jobs[0]?.steps.at(-1)?.code).toBe(2);
      });
    });
  });

  /**
   * A release whose single file exits with a code: every job that runs it must fail,
   * except on a plan's 2 (changes), which is a successful plan: its comment is posted, and
   * updated in place on the next run. (The stand-in costs no Waybill start-up, and the
   * cases run at once: they share nothing but the read-only origin.)
   */
  describe("a failing Waybill fails the job: exit 126 (cannot run), 137 (killed)", () => {
    const githubCases: readonly {
      readonly recipe: string;
      readonly event: () => GitHubEvent;
      readonly job: string;
      readonly plan: boolean;
      readonly labels?: boolean;
    }[] = [
      {
        recipe: "waybill-plan.yml",
        event: () => pullRequest({ fork: false }),
        job: "plan",
        plan: true,
      },
      {
        recipe: "waybill-plan.yml",
        event: () => pullRequest({ fork: true }),
        job: "validate-fork",
        plan: false,
      },
      {
        recipe: "waybill-plan-fork.yml",
        event: () =>
          pullRequest({ fork: true, name: "pull_request_target", label: "waybill-plan-fork" }),
        job: "plan-fork",
        plan: true,
        labels: true,
      },
      // A manual run: Waybill runs first in the plan job (a push looks up its review first).
      { recipe: "waybill-apply.yml", event: dispatch, job: "plan", plan: false },
      { recipe: "waybill-drift.yml", event: schedule, job: "drift", plan: false },
      { recipe: "waybill-pull.yml", event: schedule, job: "pull", plan: false },
    ];
    for (const c of githubCases) {
      it(`${c.recipe} on ${c.plan ? "its plan's" : "the"} ${c.job} job`, async () => {
        for (const code of [126, 137]) {
          await withWorld(
            c.labels ? { labels: new Map([[PR_NUMBER, ["waybill-plan-fork"]]]) } : {},
            async (emulator, gh) => {
              const jobs = await runGitHub(c.recipe, c.event(), emulator, gh, exiting.get(code));
              expect(jobs[c.job]?.status, `exit ${code}\n${logOf(Object.values(jobs))}`).toBe(
                "failure",
              );
              for (const j of Object.values(jobs))
                expect(j.status, `${j.id} after exit ${code}`).not.toBe("success");
            },
          );
        }
        if (c.plan) {
          await withWorld(
            c.labels ? { labels: new Map([[PR_NUMBER, ["waybill-plan-fork"]]]) } : {},
            async (emulator, gh) => {
              for (const run of [1, 2]) {
                if (c.labels) gh.labels.set(PR_NUMBER, ["waybill-plan-fork"]);
                const jobs = await runGitHub(c.recipe, c.event(), emulator, gh, exiting.get(2));
                expect(
                  jobs[c.job]?.status,
                  `exit 2, run ${run}\n${logOf(Object.values(jobs))}`,
                ).toBe("success");
              }
              const comments = commentsOn(gh, PR_NUMBER);
              expect(comments.map((x) => x.user.login)).toEqual(["github-actions[bot]"]);
              expect(gh.requests.filter((r) => r.startsWith("PATCH"))).toHaveLength(1);
            },
          );
        }
      });
    }

    const serviceCases = [
      {
        name: "a branch's plan",
        pipeline: () => ({ branch: FEATURE_BRANCH, sha: origin.prSha }),
        job: "plan",
        plan: true,
      },
      {
        name: "a fork's validate",
        pipeline: () => ({ branch: `pull/${PR_NUMBER}`, sha: origin.prSha, fork: true }),
        job: "plan",
        plan: false,
      },
      {
        name: "main's saved plan",
        // The merge of a pull request with a reviewed plan: Waybill runs after the look-up.
        pipeline: () => ({ branch: "main", sha: origin.prSha }),
        job: "plan-saved",
        plan: false,
        reviewed: true,
      },
      {
        name: "the nightly drift",
        pipeline: () => ({ branch: "main", sha: origin.mainSha, nightly: true }),
        job: "drift",
        plan: false,
      },
    ] as const;
    for (const c of serviceCases) {
      it(`service config: ${c.name}`, async () => {
        for (const code of [126, 137]) {
          await withWorld(OPEN_PULL, async (emulator, gh) => {
            if ("reviewed" in c) {
              gh.merged.push({ number: PR_NUMBER, sha: origin.prSha });
              gh.comments.set(PR_NUMBER, [
                {
                  id: 1,
                  body: `<!-- waybill-plan -->\n<!-- waybill-plan-digest: ${"b".repeat(32)} -->\n`,
                  user: { login: "waybill-bot", type: "User" },
                },
              ]);
            }
            const jobs = await runService(c.pipeline(), emulator, gh, exiting.get(code));
            const job = jobs.find((j) => j.job === c.job);
            expect(job?.status, `exit ${code}\n${logOf(jobs)}`).toBe("failure");
            expect(jobs.filter((j) => j.status === "success")).toEqual([]);
          });
        }
        if (c.plan) {
          await withWorld(OPEN_PULL, async (emulator, gh) => {
            for (const run of [1, 2]) {
              const jobs = await runService(c.pipeline(), emulator, gh, exiting.get(2));
              expect(jobs.find((j) => j.job === c.job)?.status, `run ${run}\n${logOf(jobs)}`).toBe(
                "success",
              );
            }
            expect(commentsOn(gh, PR_NUMBER).map((x) => x.user.login)).toEqual(["waybill-bot"]);
            expect(gh.requests.filter((r) => r.startsWith("PATCH"))).toHaveLength(1);
          });
        }
      });
    }
  });
});

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
