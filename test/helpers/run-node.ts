/**
 * Run a Node script in a child process with exactly the environment given and collect its
 * output: for the tests of programs other than the CLI itself (the demo, the GitHub Action,
 * the single-file release). CLI runs go through cli.ts, which also scans for leaks.
 */
import { spawn } from "node:child_process";

export interface NodeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandRun extends NodeRun {
  readonly signal: NodeJS.Signals | null;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Kill the child (SIGKILL) after this long, so a hang fails the test, not the run. */
  readonly timeoutMs?: number;
}

/** Run any program (argv[0] found on the env's PATH) the same way. */
export const runCommand = (argv: readonly string[], options: RunOptions): Promise<CommandRun> =>
  new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (cmd === undefined) throw new Error("no command");
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString("utf8");
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString("utf8");
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });

export const runNode = async (args: readonly string[], options: RunOptions): Promise<NodeRun> => {
  const { code, stdout, stderr } = await runCommand([process.execPath, ...args], options);
  return { code, stdout, stderr };
};
