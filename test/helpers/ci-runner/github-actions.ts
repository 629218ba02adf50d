/**
 * Run a GitHub Actions workflow file the way a hosted runner runs it, closely enough to
 * find what a runner would (docs.github.com "Workflow syntax", "Variables", "Contexts",
 * "Workflow commands"):
 *   - the workflow runs only for an event its `on:` names (activity `types`, `branches`,
 *     `paths` filters); jobs in `needs` order; a job or step `if:` is an expression with
 *     the implied `success() &&`; a failed step fails the job and skips the rest unless
 *     their `if:` says otherwise;
 *   - every job gets a fresh workspace, HOME and RUNNER_TEMP, the documented default
 *     variables (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_SHA, GITHUB_REF, …) and, per
 *     step, fresh GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files, read
 *     back after the step; a PATH without Waybill;
 *   - `run:` is written to a file and run by bash as GitHub does: no `shell:` is
 *     `bash -e {0}`, `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`, a custom
 *     shell is its command with the file for `{0}`;
 *   - `vars` and `secrets` as the event gets them: a pull request from a fork gets neither
 *     (only a read-only `github.token`); `pull_request_target` runs with the base's;
 *   - marketplace actions are stand-ins: checkout fetches the commit from the fixture's
 *     origin, setup-node does nothing (node is on PATH), github-script runs the script
 *     against the GitHub stand-in, upload/download-artifact copy files between jobs. An
 *     action with no stand-in is an error.
 * `git` reaches `https://github.com/OWNER/REPO.git` through the runner's HOME/.gitconfig,
 * which points that URL at the fixture's bare repository.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { parse } from "yaml";
import {
  type ExprContexts,
  type ExprValue,
  evaluateCondition,
  evaluateExpression,
  interpolate,
  type JobStatus,
  toText,
} from "./expressions.js";
import { runGitHubScript } from "./fake-github.js";
import { checkoutCommit, copyPath, parseCommandFile, runProcess, type StepRun } from "./process.js";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : [];

export interface GitHubEvent {
  /** GITHUB_EVENT_NAME. */
  readonly name: string;
  /** The activity type (`opened`, `labeled`, …), for `on.<event>.types`. */
  readonly action?: string;
  readonly payload: { readonly [key: string]: ExprValue };
  readonly sha: string;
  readonly ref: string;
  /** The branch a push went to, or a pull request's base branch, for `branches:`. */
  readonly branch: string;
  readonly headRef?: string;
  /** A pull request from a fork: no vars, no secrets, a read-only token. */
  readonly fromFork: boolean;
  /** For `paths:` filters. */
  readonly changedFiles: readonly string[];
}

export interface GitHubWorld {
  /** Scratch folder of this run (jobs, artifacts). */
  readonly root: string;
  readonly repository: string;
  /** The bare repository `https://github.com/<repository>.git` resolves to. */
  readonly origin: string;
  readonly apiUrl: string;
  /** The job's `github.token`: read-only on a fork's pull request. */
  readonly token: string;
  readonly forkToken: string;
  readonly vars: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  /** PATH without Waybill, the stand-ins (gh) first. */
  readonly path: string;
  /**
   * Actions run for real, by name (`OWNER/waybill` → a folder holding action.yml): a
   * composite action's steps run as the runner runs them (inputs with their defaults,
   * `github.action_path`, GITHUB_ACTION_PATH).
   */
  readonly actions?: Readonly<Record<string, string>>;
}

export interface StepRecord {
  readonly name: string;
  readonly outcome: "success" | "failure" | "skipped";
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface JobRecord {
  readonly id: string;
  readonly status: JobStatus | "skipped";
  readonly steps: readonly StepRecord[];
  /** Every step's GITHUB_STEP_SUMMARY, joined. */
  readonly summary: string;
  readonly workspace: string;
}

const globRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split(/(\*\*\/?|\*)/)
      .map((part) =>
        part === "**" || part === "**/"
          ? ".*"
          : part === "*"
            ? "[^/]*"
            : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("")}$`,
  );

/** Whether the workflow's `on:` takes this event (types, branches, paths). */
export const triggers = (workflow: Json, event: GitHubEvent): boolean => {
  const on = workflow.on;
  const names =
    typeof on === "string" ? [on] : Array.isArray(on) ? on.map(String) : Object.keys(obj(on));
  if (!names.includes(event.name)) return false;
  const filter = obj(obj(on)[event.name]);
  const defaultTypes = event.name.startsWith("pull_request")
    ? ["opened", "synchronize", "reopened"]
    : [];
  const types = strings(filter.types);
  const wanted = types.length > 0 ? types : defaultTypes;
  if (wanted.length > 0 && (event.action === undefined || !wanted.includes(event.action)))
    return false;
  const branches = strings(filter.branches);
  if (branches.length > 0 && !branches.some((b) => globRegExp(b).test(event.branch))) return false;
  const paths = strings(filter.paths);
  if (
    paths.length > 0 &&
    !event.changedFiles.some((f) => paths.some((p) => globRegExp(p).test(f)))
  ) {
    return false;
  }
  return true;
};

/** needs-order of the jobs (a cycle or an unknown need is an error). */
const jobOrder = (jobs: Json): string[] => {
  const order: string[] = [];
  const visit = (id: string, seen: readonly string[]): void => {
    if (order.includes(id)) return;
    if (seen.includes(id)) throw new Error(`jobs form a cycle: ${[...seen, id].join(" -> ")}`);
    if (!(id in jobs)) throw new Error(`unknown job in needs: ${id}`);
    for (const need of strings(obj(jobs[id]).needs)) visit(need, [...seen, id]);
    order.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id, []);
  return order;
};

const shellArgv = (shell: unknown, file: string): string[] => {
  if (shell === undefined) return ["bash", "-e", file];
  if (shell === "bash") return ["bash", "--noprofile", "--norc", "-eo", "pipefail", file];
  if (shell === "sh") return ["sh", "-e", file];
  const text = String(shell);
  if (!text.includes("{0}")) throw new Error(`unsupported shell: ${text}`);
  return text.split(/\s+/).map((w) => (w === "{0}" ? file : w));
};

const interpolateMap = (map: unknown, contexts: () => ExprContexts): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(map))) {
    out[k] =
      typeof v === "string" ? interpolate(v, { contexts: contexts() }) : toText(v as ExprValue);
  }
  return out;
};

/** Run every job of the workflow the event triggers; {} when it does not trigger it. */
export const runWorkflow = async (
  workflow: Json,
  event: GitHubEvent,
  world: GitHubWorld,
): Promise<Record<string, JobRecord>> => {
  if (!triggers(workflow, event)) return {};
  const token = event.fromFork ? world.forkToken : world.token;
  const vars: Record<string, string> = event.fromFork ? {} : { ...world.vars };
  const secrets: Record<string, string> = {
    ...(event.fromFork ? {} : world.secrets),
    GITHUB_TOKEN: token,
  };
  const [owner] = world.repository.split("/");
  const github: Record<string, ExprValue> = {
    token,
    event: event.payload,
    event_name: event.name,
    repository: world.repository,
    repository_owner: owner ?? "",
    sha: event.sha,
    ref: event.ref,
    ref_name: event.ref.replace(/^refs\/(heads|tags)\//, ""),
    head_ref: event.headRef ?? "",
    base_ref: event.name.startsWith("pull_request") ? event.branch : "",
    server_url: "https://github.com",
    api_url: world.apiUrl,
    actor: "alice",
    run_id: "1",
    workflow: String(workflow.name ?? ""),
  };
  const workflowEnv = interpolateMap(workflow.env, () => ({ github, secrets, vars, env: {} }));
  const jobs = obj(workflow.jobs);
  const records: Record<string, JobRecord> = {};
  for (const id of jobOrder(jobs)) {
    const job = obj(jobs[id]);
    const needs: Record<string, ExprValue> = {};
    for (const n of strings(job.needs)) {
      needs[n] = { result: records[n]?.status ?? "skipped", outputs: {} };
    }
    const needStatus: JobStatus = strings(job.needs).every((n) => records[n]?.status === "success")
      ? "success"
      : "failure";
    const runs = evaluateCondition(typeof job.if === "string" ? job.if : undefined, {
      contexts: { github: { ...github, job: id }, needs, vars },
      status: needStatus,
    });
    if (!runs) {
      records[id] = { id, status: "skipped", steps: [], summary: "", workspace: "" };
      continue;
    }
    records[id] = await runJob(id, job, {
      event,
      world,
      github: { ...github, job: id },
      vars,
      secrets,
      needs,
      workflowEnv,
    });
  }
  return records;
};

interface JobInput {
  readonly event: GitHubEvent;
  readonly world: GitHubWorld;
  readonly github: Record<string, ExprValue>;
  readonly vars: Record<string, string>;
  readonly secrets: Record<string, string>;
  readonly needs: Record<string, ExprValue>;
  readonly workflowEnv: Record<string, string>;
}

const runJob = async (id: string, job: Json, input: JobInput): Promise<JobRecord> => {
  const { event, world, vars, secrets, needs } = input;
  const dir = join(world.root, `job-${id}-${randomUUID().slice(0, 8)}`);
  const workspace = join(dir, "work");
  const temp = join(dir, "temp");
  const home = join(dir, "home");
  for (const d of [workspace, temp, home]) await mkdir(d, { recursive: true });
  // The runner's git: https://github.com/OWNER/REPO.git is the fixture's bare repository.
  await writeFile(
    join(home, ".gitconfig"),
    `[url "file://${world.origin}"]\n\tinsteadOf = https://github.com/${world.repository}.git\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n`,
  );
  const eventPath = join(dir, "event.json");
  await writeFile(eventPath, JSON.stringify(event.payload));
  const github: Record<string, ExprValue> = { ...input.github, workspace };
  const runner = { os: "Linux", arch: "X64", temp, name: "harness" };
  const defaults: Record<string, string> = {
    CI: "true",
    GITHUB_ACTIONS: "true",
    HOME: home,
    LANG: "C.UTF-8",
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_TEMP: temp,
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: world.repository,
    GITHUB_REPOSITORY_OWNER: String(github.repository_owner),
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: event.sha,
    GITHUB_REF: event.ref,
    GITHUB_REF_NAME: String(github.ref_name),
    GITHUB_HEAD_REF: event.headRef ?? "",
    GITHUB_BASE_REF: String(github.base_ref),
    GITHUB_ACTOR: "alice",
    GITHUB_JOB: id,
    GITHUB_RUN_ID: "1",
    GITHUB_RUN_NUMBER: "1",
    GITHUB_WORKFLOW: String(github.workflow),
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: world.apiUrl,
    GITHUB_GRAPHQL_URL: `${world.apiUrl}/graphql`,
  };
  const steps: Record<string, ExprValue> = {};
  const contexts = (env: Record<string, string>, jobStatus: JobStatus): ExprContexts => ({
    github,
    env,
    vars,
    secrets,
    needs,
    steps,
    runner,
    job: { status: jobStatus },
    inputs: {},
    matrix: {},
    strategy: {},
  });
  const jobEnv = {
    ...input.workflowEnv,
    ...interpolateMap(job.env, () => contexts(input.workflowEnv, "success")),
  };
  let setEnv: Record<string, string> = {};
  const addedPath: string[] = [];
  let status: JobStatus = "success";
  let summary = "";
  const records: StepRecord[] = [];
  const stepList = Array.isArray(job.steps) ? job.steps.map(obj) : [];
  for (const [index, step] of stepList.entries()) {
    const name = String(step.name ?? step.uses ?? String(step.run ?? "").split("\n")[0]);
    const envBefore = { ...jobEnv, ...setEnv };
    const ok = evaluateCondition(typeof step.if === "string" ? step.if : undefined, {
      contexts: contexts(envBefore, status),
      status,
    });
    const stepId = typeof step.id === "string" ? step.id : `__${index}`;
    if (!ok) {
      records.push({ name, outcome: "skipped", code: null, stdout: "", stderr: "" });
      steps[stepId] = { outcome: "skipped", conclusion: "skipped", outputs: {} };
      continue;
    }
    const stepEnv = {
      ...envBefore,
      ...interpolateMap(step.env, () => contexts(envBefore, status)),
    };
    const files = join(temp, "_runner_file_commands", `step-${index}`);
    await mkdir(files, { recursive: true });
    const commandFiles = {
      GITHUB_OUTPUT: join(files, "output"),
      GITHUB_ENV: join(files, "env"),
      GITHUB_PATH: join(files, "path"),
      GITHUB_STEP_SUMMARY: join(files, "summary"),
    };
    for (const f of Object.values(commandFiles)) await writeFile(f, "");
    const processEnv: Record<string, string> = {
      ...defaults,
      ...stepEnv,
      ...commandFiles,
      GITHUB_ACTION: stepId,
      PATH: [...addedPath].reverse().concat(world.path).join(delimiter),
    };
    const cwd =
      typeof step["working-directory"] === "string"
        ? join(workspace, step["working-directory"])
        : workspace;
    let run: StepRun;
    if (typeof step.run === "string") {
      const script = join(temp, `${randomUUID()}.sh`);
      await writeFile(script, interpolate(step.run, { contexts: contexts(envBefore, status) }));
      run = await runProcess(shellArgv(step.shell, script), { cwd, env: processEnv });
    } else if (typeof step.uses === "string") {
      const withInputs = interpolateMap(step.with, () => contexts(envBefore, status));
      const how = { cwd, env: processEnv, world, token: String(github.token), dir, workspace };
      const local = world.actions?.[step.uses.replace(/@.*$/, "")];
      run =
        local !== undefined
          ? await runComposite(local, withInputs, { ...how, contexts: contexts(envBefore, status) })
          : await runAction(step.uses, withInputs, how);
    } else throw new Error(`step ${name} of job ${id} has neither run nor uses`);
    const failed = run.code !== 0;
    const outputs = await parseCommandFile(commandFiles.GITHUB_OUTPUT);
    setEnv = { ...setEnv, ...(await parseCommandFile(commandFiles.GITHUB_ENV)) };
    for (const line of (await readFile(commandFiles.GITHUB_PATH, "utf8")).split("\n")) {
      if (line.trim() !== "") addedPath.push(line.trim());
    }
    summary += await readFile(commandFiles.GITHUB_STEP_SUMMARY, "utf8");
    const outcome = failed ? "failure" : "success";
    const continueOnError =
      step["continue-on-error"] !== undefined &&
      (typeof step["continue-on-error"] === "string"
        ? evaluateExpression(step["continue-on-error"], {
            contexts: contexts(envBefore, status),
          }) === true
        : step["continue-on-error"] === true);
    steps[stepId] = {
      outcome,
      conclusion: failed && continueOnError ? "success" : outcome,
      outputs,
    };
    records.push({ name, outcome, code: run.code, stdout: run.stdout, stderr: run.stderr });
    if (failed && !continueOnError) status = "failure";
  }
  return { id, status, steps: records, summary, workspace };
};

/** Where and for whom an action step runs: the job's folders, the step's env, the token. */
interface ActionCall {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly world: GitHubWorld;
  readonly token: string;
  readonly dir: string;
  readonly workspace: string;
}

/**
 * A composite action (`runs.using: composite`) of this repository, run for real: its
 * inputs (the step's `with:` over action.yml's defaults), then each step in order with
 * `inputs`, `github.action_path` and GITHUB_ACTION_PATH, sharing the calling step's
 * GITHUB_OUTPUT and GITHUB_STEP_SUMMARY (its outputs and summary are the step's). A failed
 * step fails the action.
 */
const runComposite = async (
  actionDir: string,
  withInputs: Record<string, string>,
  o: ActionCall & { readonly contexts: ExprContexts },
): Promise<StepRun> => {
  const action = obj(parse(await readFile(join(actionDir, "action.yml"), "utf8")));
  const runs = obj(action.runs);
  if (runs.using !== "composite") throw new Error(`${actionDir}: only composite actions run here`);
  const github = { ...obj(o.contexts.github), action_path: actionDir } as Record<string, ExprValue>;
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(obj(action.inputs))) {
    const d = obj(spec).default;
    inputs[name] =
      withInputs[name] ??
      (typeof d === "string" ? interpolate(d, { contexts: { ...o.contexts, github } }) : "");
  }
  for (const name of Object.keys(withInputs)) {
    if (!(name in inputs)) throw new Error(`${actionDir}/action.yml has no input ${name}`);
  }
  const contexts: ExprContexts = { ...o.contexts, github, inputs };
  let out = "";
  let err = "";
  for (const step of Array.isArray(runs.steps) ? runs.steps.map(obj) : []) {
    const env = {
      ...o.env,
      ...interpolateMap(step.env, () => contexts),
      GITHUB_ACTION_PATH: actionDir,
    };
    let r: StepRun;
    if (typeof step.run === "string") {
      if (step.shell === undefined) throw new Error("a composite action's run step needs a shell");
      const script = join(o.dir, "temp", `${randomUUID()}.sh`);
      await writeFile(script, interpolate(step.run, { contexts }));
      r = await runProcess(shellArgv(step.shell, script), { cwd: o.cwd, env });
    } else {
      r = await runAction(
        String(step.uses),
        interpolateMap(step.with, () => contexts),
        {
          ...o,
          env,
        },
      );
    }
    out += r.stdout;
    err += r.stderr;
    if (r.code !== 0) return { ...r, stdout: out, stderr: err };
  }
  return { code: 0, signal: null, stdout: out, stderr: err };
};

const runAction = async (
  uses: string,
  inputs: Record<string, string>,
  o: ActionCall,
): Promise<StepRun> => {
  const action = uses.replace(/@.*$/, "");
  const done = (stdout = ""): StepRun => ({ code: 0, signal: null, stdout, stderr: "" });
  const failed = (stderr: string): StepRun => ({ code: 1, signal: null, stdout: "", stderr });
  const artifacts = join(o.world.root, "artifacts");
  switch (action) {
    case "actions/checkout": {
      // What actions/checkout does, by plain git: the event's commit (or `ref`), detached.
      const target = join(o.workspace, inputs.path ?? "");
      const ref = inputs.ref || o.env.GITHUB_SHA || "";
      const r = await checkoutCommit({
        target,
        origin: o.world.origin,
        remote: `https://github.com/${inputs.repository || o.world.repository}.git`,
        ref,
        env: o.env,
      });
      if (r.code !== 0) return r;
      return done(`checked out ${ref}`);
    }
    case "actions/setup-node":
      // Node is on PATH already (the test runs in it); the version asked for is recorded.
      return done(`setup-node: node-version ${inputs["node-version"] ?? "(none)"}`);
    case "actions/github-script": {
      const env = {
        ...o.env,
        INPUT_SCRIPT: inputs.script ?? "",
        "INPUT_GITHUB-TOKEN": inputs["github-token"] || o.token,
      };
      // In this process: a Node process of its own would only add its start-up.
      return runGitHubScript(env, o.cwd);
    }
    case "actions/upload-artifact": {
      const name = inputs.name || "artifact";
      const source = inputs.path ?? "";
      // One path a line, as the action takes them; a path that matches nothing is left
      // out as long as one does (files of one folder keep their names in the artifact).
      let copied = false;
      for (const one of source.split("\n").map((l) => l.trim())) {
        if (one !== "" && (await copyPath(join(o.cwd, one), join(artifacts, name, one))))
          copied = true;
      }
      if (copied) return done(`uploaded ${source} as ${name}`);
      // The action's default `if-no-files-found: warn`: the step still succeeds.
      if ((inputs["if-no-files-found"] ?? "warn") === "error")
        return failed(`no files at ${source}`);
      return done(`::warning::No files were found with the provided path: ${source}`);
    }
    case "actions/download-artifact": {
      const name = inputs.name || "artifact";
      const ok = await copyPath(join(artifacts, name), join(o.cwd, inputs.path ?? ""));
      return ok
        ? done(`downloaded ${name}`)
        : failed(`Unable to download artifact(s): Artifact not found for name: ${name}`);
    }
    default:
      throw new Error(`no stand-in for the action ${uses}: add one to the recipe harness`);
  }
};
