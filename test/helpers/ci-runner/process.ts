/**
 * The pieces both CI runners share: run one shell step as a child process (its output kept,
 * a hang killed), copy a tree, read a runner's `NAME=value` / `NAME<<DELIM` command files.
 */
import { cp, mkdir, readFile, stat } from "node:fs/promises";
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
