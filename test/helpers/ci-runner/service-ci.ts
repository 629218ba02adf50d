/**
 * Run the service's own pipeline config (examples/ci/service/.service/config.yml: the
 * service's format, CircleCI-like; spec: api-v3.md "What the service does") for one
 * pipeline, as the service runs it:
 *   - `<< pipeline.git.branch >>`, `<< pipeline.git.revision >>` and
 *     `<< pipeline.parameters.NAME >>` are filled in first (the compile step); a workflow
 *     runs when its `when:` holds (`and`, `or`, `not`, `equal`, a literal);
 *   - a workflow's jobs run in `requires` order; an approval job is approved; a job whose
 *     requirement failed does not run;
 *   - each job gets a fresh HOME and working folder (~/project), the executor's
 *     `environment`, and the environment of the contexts it names, except on a pull request
 *     from a fork (the project does not pass secrets to fork builds:
 *     can_pass_secrets_to_fork_pr_jobs false);
 *   - `run` steps run with `bash -eo pipefail` (the spec names no shell; this is the
 *     CircleCI default the format follows), `checkout` fetches the pipeline's commit,
 *     `persist_to_workspace`/`attach_workspace` carry files between the jobs of a workflow,
 *     `store_artifacts` is recorded, `commands:` are expanded. Any other step is an error.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { checkoutCommit, copyPath, runProcess, type StepRun } from "./process.js";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});

export interface ServicePipeline {
  readonly branch: string;
  readonly sha: string;
  readonly parameters: Readonly<Record<string, string | boolean>>;
  /** A pull request from a fork: no context is passed. */
  readonly fromFork: boolean;
}

export interface ServiceWorld {
  readonly root: string;
  readonly repository: string;
  readonly origin: string;
  /** Each context's environment variables. */
  readonly contexts: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly path: string;
}

export interface ServiceStepRecord {
  readonly name: string;
  readonly outcome: "success" | "failure" | "skipped";
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ServiceJobRecord {
  readonly workflow: string;
  readonly job: string;
  readonly status: "success" | "failure" | "blocked" | "approved";
  readonly steps: readonly ServiceStepRecord[];
  readonly workdir: string;
  readonly artifacts: readonly string[];
}

/** The compile step: pipeline values and parameters filled in, then parsed. */
export const compileConfig = (text: string, pipeline: ServicePipeline, declared: Json): Json => {
  const params: Record<string, string | boolean> = {};
  for (const [name, spec] of Object.entries(obj(declared))) {
    const d = obj(spec).default;
    if (typeof d === "string" || typeof d === "boolean") params[name] = d;
  }
  Object.assign(params, pipeline.parameters);
  const filled = text.replace(/<<\s*pipeline\.([\w.-]+)\s*>>/g, (_m, key: string) => {
    if (key === "git.branch") return pipeline.branch;
    if (key === "git.revision") return pipeline.sha;
    const p = /^parameters\.([\w-]+)$/.exec(key)?.[1];
    if (p !== undefined && p in params) return String(params[p]);
    throw new Error(
      `the service config names << pipeline.${key} >>, which the harness does not know`,
    );
  });
  return obj(parse(filled));
};

const holds = (when: unknown): boolean => {
  if (typeof when === "boolean") return when;
  if (typeof when === "string") return when !== "" && when !== "false";
  const w = obj(when);
  if (Array.isArray(w.and)) return w.and.every(holds);
  if (Array.isArray(w.or)) return w.or.some(holds);
  if ("not" in w) return !holds(w.not);
  if (Array.isArray(w.equal)) {
    const [first, ...rest] = w.equal.map(String);
    return rest.every((x) => x === first);
  }
  throw new Error(`unsupported when: ${JSON.stringify(when)}`);
};

/** Steps with `commands:` expanded. */
const expand = (steps: unknown, commands: Json): unknown[] =>
  (Array.isArray(steps) ? steps : []).flatMap((s) => {
    const name = typeof s === "string" ? s : Object.keys(obj(s))[0];
    if (name !== undefined && name in commands) return expand(obj(commands[name]).steps, commands);
    return [s];
  });

/** Run every workflow of the config whose `when:` holds for the pipeline. */
export const runPipeline = async (
  text: string,
  pipeline: ServicePipeline,
  world: ServiceWorld,
): Promise<ServiceJobRecord[]> => {
  const config = compileConfig(text, pipeline, obj(obj(parse(text)).parameters));
  const records: ServiceJobRecord[] = [];
  for (const [workflow, spec] of Object.entries(obj(config.workflows))) {
    const w = obj(spec);
    if ("when" in w && !holds(w.when)) continue;
    const done = new Map<string, ServiceJobRecord["status"]>();
    const shared = join(world.root, `workspace-${workflow}-${randomUUID().slice(0, 8)}`);
    for (const entry of Array.isArray(w.jobs) ? w.jobs : []) {
      const jobName = typeof entry === "string" ? entry : (Object.keys(obj(entry))[0] ?? "");
      const options = typeof entry === "string" ? {} : obj(obj(entry)[jobName]);
      const requires = Array.isArray(options.requires) ? options.requires.map(String) : [];
      if (!requires.every((r) => done.get(r) === "success" || done.get(r) === "approved")) {
        done.set(jobName, "blocked");
        records.push({
          workflow,
          job: jobName,
          status: "blocked",
          steps: [],
          workdir: "",
          artifacts: [],
        });
        continue;
      }
      if (options.type === "approval") {
        done.set(jobName, "approved");
        records.push({
          workflow,
          job: jobName,
          status: "approved",
          steps: [],
          workdir: "",
          artifacts: [],
        });
        continue;
      }
      const contexts = Array.isArray(options.context)
        ? options.context.map(String)
        : typeof options.context === "string"
          ? [options.context]
          : [];
      const record = await runServiceJob(
        config,
        workflow,
        jobName,
        contexts,
        shared,
        pipeline,
        world,
      );
      done.set(jobName, record.status);
      records.push(record);
    }
  }
  return records;
};

const runServiceJob = async (
  config: Json,
  workflow: string,
  jobName: string,
  contexts: readonly string[],
  shared: string,
  pipeline: ServicePipeline,
  world: ServiceWorld,
): Promise<ServiceJobRecord> => {
  const job = obj(obj(config.jobs)[jobName]);
  if (Object.keys(job).length === 0)
    throw new Error(`workflow ${workflow} names an unknown job ${jobName}`);
  const executor = obj(obj(config.executors)[String(job.executor)]);
  const dir = join(world.root, `svc-${jobName}-${randomUUID().slice(0, 8)}`);
  const home = join(dir, "home");
  const workdir = join(home, "project");
  await mkdir(workdir, { recursive: true });
  await writeFile(
    join(home, ".gitconfig"),
    `[url "file://${world.origin}"]\n\tinsteadOf = https://github.com/${world.repository}.git\n[advice]\n\tdetachedHead = false\n`,
  );
  const contextEnv = pipeline.fromFork
    ? {}
    : Object.assign(
        {},
        ...contexts.map((c) => {
          const env = world.contexts[c];
          if (!env) throw new Error(`no context ${c} in the harness`);
          return env;
        }),
      );
  const baseEnv: Record<string, string> = {
    HOME: home,
    PATH: world.path,
    LANG: "C.UTF-8",
    CI: "true",
    ...Object.fromEntries(
      Object.entries(obj(executor.environment)).map(([k, v]) => [k, String(v)]),
    ),
    ...(obj(job.environment) as Record<string, string>),
    ...contextEnv,
  };
  const steps: ServiceStepRecord[] = [];
  const artifacts: string[] = [];
  let failed = false;
  for (const step of expand(job.steps, obj(config.commands))) {
    const kind = typeof step === "string" ? step : (Object.keys(obj(step))[0] ?? "");
    const args = typeof step === "string" ? {} : obj(obj(step)[kind]);
    const run =
      typeof step !== "string" && typeof obj(step).run === "string"
        ? { command: obj(step).run }
        : args;
    const when = String(run.when ?? "on_success");
    const name = String(run.name ?? kind);
    if ((failed && when === "on_success") || (!failed && when === "on_fail")) {
      steps.push({ name, outcome: "skipped", code: null, stdout: "", stderr: "" });
      continue;
    }
    let r: StepRun;
    switch (kind) {
      case "checkout": {
        r = await checkoutCommit({
          target: workdir,
          origin: world.origin,
          remote: `https://github.com/${world.repository}.git`,
          ref: pipeline.sha,
          env: baseEnv,
        });
        break;
      }
      case "run": {
        const script = join(dir, `${randomUUID()}.sh`);
        await writeFile(script, String(run.command ?? ""));
        const env = {
          ...baseEnv,
          ...Object.fromEntries(
            Object.entries(obj(run.environment)).map(([k, v]) => [k, String(v)]),
          ),
        };
        r = await runProcess(["bash", "-eo", "pipefail", script], { cwd: workdir, env });
        break;
      }
      case "store_artifacts":
        artifacts.push(String(args.path));
        r = { code: 0, signal: null, stdout: "", stderr: "" };
        break;
      case "persist_to_workspace": {
        const root = join(workdir, String(args.root ?? "."));
        for (const p of Array.isArray(args.paths) ? args.paths.map(String) : []) {
          await copyPath(join(root, p), join(shared, p));
        }
        r = { code: 0, signal: null, stdout: "", stderr: "" };
        break;
      }
      case "attach_workspace": {
        const ok = await copyPath(shared, join(workdir, String(args.at ?? ".")));
        r = ok
          ? { code: 0, signal: null, stdout: "", stderr: "" }
          : { code: 1, signal: null, stdout: "", stderr: "no workspace was persisted" };
        break;
      }
      default:
        throw new Error(`the service-config harness has no step ${kind}`);
    }
    steps.push({
      name,
      outcome: r.code === 0 ? "success" : "failure",
      code: r.code,
      stdout: r.stdout,
      stderr: r.stderr,
    });
    if (r.code !== 0) failed = true;
  }
  return {
    workflow,
    job: jobName,
    status: failed ? "failure" : "success",
    steps,
    workdir,
    artifacts,
  };
};
