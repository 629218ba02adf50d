/**
 * `--changed-since REF` (plan, apply; design.md §5 "Scoped plans and the reviewed plan"):
 * read the config as it was at the git ref REF, expand it with the same loader (templates,
 * `extends`, folders, `moved`), and compare it with the config now (src/plan/scope.ts).
 *
 * Git's output is data: the ref must name a commit (`rev-parse --verify REF^{commit}`), the
 * config's files are listed at it with `ls-tree` (only regular files, at relative paths with
 * no `..`), and each is read with `cat-file blob` into a private temporary folder that is
 * removed afterwards. Nothing is run through a shell.
 *
 * Decision: the config at REF is loaded with the secrets resolved where they can be
 * (`available`): secret values never take part in the comparison (only where a secret comes
 * from: src/model/config-canonical.ts), so a `${file:}` that is not in git, or an env var
 * the job no longer has, is no reason to plan in full.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { loadConfig } from "../config/load.js";
import { stripControls } from "../core/controls.js";
import { UsageError } from "../core/errors.js";
import type { DesiredConfig } from "../model/desired.js";
import { type PlanScope, type ScopeDecision, scopeOfChange } from "../plan/scope.js";
import type { Plan } from "../plan/types.js";
import type { CliIO } from "./io.js";

/** Why git could not give the config at the ref: the plan is made in full, with this. */
class NoConfigAtRef extends Error {}

const GIT_TIMEOUT_MS = 30_000;
/** Larger than the loader's per-file bound, so a file over it is the loader's to refuse. */
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

const git = (cwd: string, args: readonly string[]) =>
  new Promise<Buffer>((done, fail) => {
    execFile(
      "git",
      args,
      { cwd, encoding: "buffer", maxBuffer: GIT_MAX_BUFFER, timeout: GIT_TIMEOUT_MS },
      (err, stdout, stderr) => {
        if (err) {
          const said = stripControls(
            Buffer.from(stderr).toString("utf8").trim().split("\n")[0] ?? "",
          );
          fail(new NoConfigAtRef(said === "" ? err.message : said));
        } else done(Buffer.from(stdout));
      },
    );
  });

/**
 * Decision: a ref that git would read as an option, or that holds a control character, is a
 * usage error (exit 1, before any request), not a reason to plan in full: it is not a ref
 * the user could have meant.
 */
export const checkedRef = (ref: string | undefined): string | undefined => {
  if (ref === undefined) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refused, not matched for use.
  if (ref === "" || ref.startsWith("-") || /[\u0000-\u001f\u007f]/.test(ref)) {
    throw new UsageError(
      `--changed-since ${JSON.stringify(stripControls(ref))} is not a git ref: give a branch, tag or commit (e.g. origin/main)`,
    );
  }
  return ref;
};

const folderOf = (path: string): string => (statSync(path).isDirectory() ? path : dirname(path));

/** A config file at the ref: its path from the repository's top, `/`-separated, and blob. */
interface AtRef {
  readonly file: string;
  readonly blob: string;
}

/** Each `-c` path at the ref: where it is from the top, and the files under it there. */
const listAt = async (
  top: string,
  commit: string,
  paths: readonly string[],
): Promise<{ roots: { rel: string; isDir: boolean }[]; files: AtRef[] }> => {
  const roots: { rel: string; isDir: boolean }[] = [];
  const files: AtRef[] = [];
  for (const p of paths) {
    const real = realpathSync(resolve(p));
    const rel = relative(top, real).split(sep).join("/");
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new NoConfigAtRef(`${p} is outside the git repository`);
    }
    const isDir = statSync(real).isDirectory();
    const listed = (
      await git(top, ["ls-tree", "-r", "-z", "--full-tree", commit, "--", rel === "" ? "." : rel])
    )
      .toString("utf8")
      .split("\0")
      .filter((l) => l !== "");
    let found = 0;
    for (const line of listed) {
      // `<mode> <type> <object>\t<path>`: only regular files, at a path inside the config.
      const m = /^(100644|100755) blob ([0-9a-f]{40,64})\t(.+)$/s.exec(line);
      if (!m) continue;
      const file = m[3] as string;
      if (file.split("/").some((x) => x === ".." || x === "" || x === ".")) continue;
      if (!isDir && file !== rel) continue;
      files.push({ file, blob: m[2] as string });
      found++;
    }
    if (found === 0) throw new NoConfigAtRef(`${p} did not exist there`);
    roots.push({ rel, isDir });
  }
  return { roots, files };
};

/** Write `files` (at the ref) under `into`, at their paths from the top. */
const writeAt = async (top: string, files: readonly AtRef[], into: string): Promise<string[]> => {
  const out: string[] = [];
  for (const { file, blob } of files) {
    const target = join(into, ...file.split("/"));
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, await git(top, ["cat-file", "blob", blob]), { mode: 0o600 });
    out.push(target);
  }
  return out;
};

/** git's object name of a file's bytes (sha1, or sha256 in a repository that uses it). */
const blobId = (bytes: Buffer, like: string): string =>
  createHash(like.length === 64 ? "sha256" : "sha1")
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest("hex");

const TEMPLATES = /^templates\s*:/m;
const YAML_FILE = /\.ya?ml$/i;
const EMPTY: DesiredConfig = { orgs: [], files: [] };

const loadWith = async (
  paths: readonly string[],
  io: CliIO,
): Promise<DesiredConfig | undefined> => {
  if (paths.length === 0) return EMPTY;
  const loaded = await loadConfig(paths, { env: io.env, resolveSecrets: "available" });
  return loaded.ok ? loaded.config : undefined;
};

const orgSet = (c: DesiredConfig): string =>
  [...new Set(c.orgs.map((o) => o.slug))].sort().join("\n");

/**
 * The files that differ, compared alone (issue 44: a pull request pays for what it changes;
 * loading the whole config twice costs more than the reads at 2,000 projects): the config
 * files whose blob differs (or that exist on one side only) and every file that holds
 * `templates:` (what `extends` reads), loaded from the ref and from the work tree. What the
 * other files declare is the same on both sides. Undefined when the parts cannot be compared
 * alone (one fails to load, or they name other orgs): then the whole configs are.
 */
const comparedByFile = async (
  top: string,
  atRef: readonly AtRef[],
  desired: DesiredConfig,
  into: string,
  since: string,
  io: CliIO,
): Promise<ScopeDecision | undefined> => {
  const now = new Map<string, { path: string; bytes: Buffer }>();
  for (const f of desired.files) {
    const rel = relative(top, realpathSync(resolve(f)))
      .split(sep)
      .join("/");
    now.set(rel, { path: f, bytes: readFileSync(f) });
  }
  const was = new Map(atRef.filter((f) => YAML_FILE.test(f.file)).map((f) => [f.file, f]));
  const like = atRef[0]?.blob ?? "";
  const changed = new Set<string>();
  const templates = new Set<string>();
  for (const [rel, f] of now) {
    const before = was.get(rel);
    if (before === undefined || before.blob !== blobId(f.bytes, like)) changed.add(rel);
    if (TEMPLATES.test(f.bytes.toString("utf8"))) templates.add(rel);
  }
  for (const rel of was.keys()) if (!now.has(rel)) changed.add(rel);
  if (changed.size === 0) return scopeOfChange(EMPTY, EMPTY, since, desired);
  // A file with templates that changed may reach items of any file: compare the whole.
  if ([...changed].some((rel) => templates.has(rel))) return undefined;
  const part = [...new Set([...changed, ...templates])].sort();
  const refPart = part.flatMap((rel) => {
    const f = was.get(rel);
    return f === undefined ? [] : [f];
  });
  const written = await writeAt(top, refPart, join(into, "part"));
  for (const [i, f] of refPart.entries()) {
    if (changed.has(f.file) && TEMPLATES.test(readFileSync(written[i] as string, "utf8"))) {
      return undefined;
    }
  }
  const before = await loadWith(written, io);
  const after = await loadWith(
    part.flatMap((rel) => {
      const f = now.get(rel);
      return f === undefined ? [] : [f.path];
    }),
    io,
  );
  if (before === undefined || after === undefined || orgSet(before) !== orgSet(after)) {
    return undefined;
  }
  return scopeOfChange(before, after, since, desired);
};

/**
 * The scope of `--changed-since REF`, or why the plan is made in full. Never throws for a
 * ref git does not know or a config that did not load at it: both are reasons.
 */
export const changedSince = async (
  ref: string,
  configPath: string | readonly string[],
  desired: DesiredConfig,
  io: CliIO,
): Promise<ScopeDecision> => {
  const paths = typeof configPath === "string" ? [configPath] : [...configPath];
  const shown = stripControls(ref);
  let into: string | undefined;
  try {
    const first = paths[0];
    if (first === undefined) throw new NoConfigAtRef("no config path");
    const top = (await git(folderOf(first), ["rev-parse", "--show-toplevel"]))
      .toString("utf8")
      .trim();
    let commit: string;
    try {
      commit = (await git(top, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]))
        .toString("utf8")
        .trim();
    } catch {
      throw new NoConfigAtRef(`${shown} is not a commit git knows here (fetch it first?)`);
    }
    if (!/^[0-9a-f]{40,64}$/.test(commit)) {
      throw new NoConfigAtRef(`${shown} is not a commit git knows here`);
    }
    into = mkdtempSync(join(tmpdir(), "waybill-since-"));
    const root = realpathSync(top);
    const listed = await listAt(root, commit, paths);
    const byFile = await comparedByFile(root, listed.files, desired, into, shown, io);
    if (byFile !== undefined) return byFile;
    // The whole config at the ref, laid out as the -c paths name it.
    await writeAt(root, listed.files, join(into, "whole"));
    const at = listed.roots.map(({ rel }) =>
      join(into as string, "whole", ...(rel === "" ? [] : rel.split("/"))),
    );
    const loaded = await loadConfig(at, { env: io.env, resolveSecrets: "available" });
    if (!loaded.ok) {
      const d = loaded.diagnostics[0];
      return {
        kind: "full",
        reason: `the config at ${shown} does not load (${loaded.diagnostics.length} problem${loaded.diagnostics.length === 1 ? "" : "s"}${d ? `, first: ${stripControls(d.message)}` : ""})`,
      };
    }
    return scopeOfChange(loaded.config, desired, shown);
  } catch (err) {
    if (err instanceof NoConfigAtRef) {
      return { kind: "full", reason: `the config at ${shown} cannot be read: ${err.message}` };
    }
    throw err;
  } finally {
    if (into !== undefined) rmSync(into, { recursive: true, force: true });
  }
};

/** The line a full plan made instead of a partial one carries (a plan warning). */
export const fullPlanNote = (ref: string, reason: string): string =>
  `--changed-since ${stripControls(ref)}: the whole config was planned, not a partial plan: ${reason}`;

/** The option, as plan and apply declare it. */
export const CHANGED_SINCE_OPTION = [
  "--changed-since <ref>",
  "plan only the addresses whose desired state differs from the config at git REF (with the parents and references they need); a full plan, with the reason, when the change cannot be scoped",
] as const;

/**
 * `--changed-since`'s part of a run: the plan options (a scope, or none) and what to add to
 * the plan (the reason, when it was made in full).
 */
export const scopeFor = async (
  since: string | undefined,
  configPath: string | readonly string[],
  desired: DesiredConfig,
  io: CliIO,
): Promise<{ options: { scope?: PlanScope }; note: (plan: Plan) => Plan }> => {
  if (since === undefined) return { options: {}, note: (plan) => plan };
  const decision = await changedSince(since, configPath, desired, io);
  if (decision.kind === "scoped") return { options: { scope: decision.scope }, note: (p) => p };
  const line = fullPlanNote(since, decision.reason);
  io.stderr.write(`Note: ${line}\n`);
  return { options: {}, note: (plan) => ({ ...plan, warnings: [line, ...plan.warnings] }) };
};
