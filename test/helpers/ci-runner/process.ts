/**
 * The pieces both CI runners share: run one shell step as a child process (its output kept,
 * a hang killed), check out a commit, copy a tree, read a runner's `NAME=value` /
 * `NAME<<DELIM` command files.
 */
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { type CommandRun, runCommand } from "../run-node.js";

export type StepRun = CommandRun;

/** Run argv in cwd with exactly env; SIGKILL after timeoutMs (a hang fails, never blocks). */
export const runProcess = (
  argv: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    readonly timeoutMs?: number;
  },
): Promise<StepRun> => runCommand(argv, { ...options, timeoutMs: options.timeoutMs ?? 60_000 });

/**
 * Check out `ref` of `remote` into `target` as actions/checkout and the service's `checkout`
 * step do, by plain git: init, add the remote, a shallow fetch of the commit, a detached
 * checkout (git reaching `remote` through the runner's HOME/.gitconfig in `env`).
 *
 * A commit never changes, so the first checkout of a commit id is kept next to the bare
 * `origin` it came from (`<origin>.checkouts/`, removed with it) and later checkouts of the
 * same commit, remote and git config copy that folder, .git and all: the same files, remote,
 * detached HEAD and shallow history, for one copy instead of the ~9 git processes a fetch
 * costs (ci-recipes-run: ~370 git processes fewer, ~1 s of CPU less). A branch or tag name is
 * fetched every time: what it names can move between runs; so is a folder that is not empty.
 */
export const checkoutCommit = async (o: {
  readonly target: string;
  readonly origin: string;
  readonly remote: string;
  readonly ref: string;
  readonly env: Readonly<Record<string, string>>;
}): Promise<StepRun> => {
  const ok: StepRun = { code: 0, signal: null, stdout: "", stderr: "" };
  const gitConfig = await readFile(join(o.env.HOME ?? "", ".gitconfig"), "utf8").catch(() => "");
  const key = createHash("sha256")
    .update([o.remote, o.ref, gitConfig].join("\0"))
    .digest("hex")
    .slice(0, 16);
  await mkdir(o.target, { recursive: true });
  // Only into an empty folder: git's own steps would merge with what is there.
  const kept =
    /^[0-9a-f]{40}$/.test(o.ref) && (await readdir(o.target)).length === 0
      ? join(`${o.origin}.checkouts`, key)
      : undefined;
  if (kept !== undefined && (await copyPath(kept, o.target))) return ok;
  for (const args of [
    ["init", "-q", "."],
    ["remote", "add", "origin", o.remote],
    ["fetch", "-q", "--depth", "1", "origin", o.ref],
    ["checkout", "-q", "--detach", "FETCH_HEAD"],
  ]) {
    const r = await runProcess(["git", ...args], { cwd: o.target, env: o.env });
    if (r.code !== 0) return { ...r, stderr: `git ${args.join(" ")}: ${r.stderr}` };
  }
  if (kept !== undefined) {
    // Kept under a temporary name and renamed: a concurrent reader never copies half of it.
    const temp = `${kept}.${process.pid}.${Date.now()}.tmp`;
    await copyPath(o.target, temp);
    await rename(temp, kept).catch(() => rm(temp, { recursive: true, force: true }));
  }
  return ok;
};

/**
 * A runner's command file (GITHUB_ENV, GITHUB_OUTPUT): `NAME=value` lines and
 * `NAME<<DELIMITER` … `DELIMITER` blocks, later lines winning.
 */
export const parseCommandFile = async (file: string): Promise<Record<string, string>> => {
  const text = await readFile(file, "utf8").catch(() => "");
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] && heredoc[2]) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i] ?? "");
      if (i >= lines.length)
        throw new Error(`${file}: ${heredoc[1]}<<${heredoc[2]} is never closed`);
      out[heredoc[1]] = value.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`${file}: not NAME=value: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
};

/** Copy a file or a folder (its content into `to`); false when `from` does not exist. */
export const copyPath = async (from: string, to: string): Promise<boolean> => {
  const s = await stat(from).catch(() => undefined);
  if (!s) return false;
  await mkdir(s.isDirectory() ? to : dirname(to), { recursive: true });
  await cp(from, to, { recursive: true });
  return true;
};

/**
 * The PATH a fresh runner has, without Waybill: this machine's PATH less every folder that
 * holds a `waybill` (node_modules/.bin of a checkout, a global install), with node's own
 * folder (setup-node's stand-in changes nothing: node is there) and the stand-ins first.
 */
export const pathWithoutWaybill = async (standIns: string): Promise<string> => {
  const dirs: string[] = [];
  for (const d of (process.env.PATH ?? "").split(delimiter)) {
    if (d === "" || dirs.includes(d)) continue;
    if (
      await stat(join(d, "waybill")).then(
        () => true,
        () => false,
      )
    )
      continue;
    dirs.push(d);
  }
  return [standIns, dirname(process.execPath), ...dirs].join(delimiter);
};
