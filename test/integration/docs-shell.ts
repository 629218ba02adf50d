/**
 * Run the shell lines the docs show (README.md `sh` blocks, `--help` examples, CI recipes)
 * for real, so the docs cannot rot. This is not a shell: it understands exactly what the
 * docs use (leading VAR=value assignments, quotes, $VAR expansion, `> FILE`, `2> FILE`, a
 * trailing `&`, a trailing `# exit N` comment) and throws on anything else, so a doc line
 * it cannot run fails the test instead of being skipped.
 */
import { spawn } from "node:child_process";
import { cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLI_BIN, type CliResult, REPO_ROOT, runCli } from "../helpers/cli.js";

type Token =
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "op"; readonly text: string };

/** Split off a trailing `# comment` (a `#` at a word start, outside quotes). */
export const splitComment = (line: string): { readonly code: string; readonly comment: string } => {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) {
      return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
    }
  }
  return { code: line.trimEnd(), comment: "" };
};

const expand = (text: string, vars: Readonly<Record<string, string>>): string => {
  if (text.includes("$(")) throw new Error(`command substitution is not supported: ${text}`);
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a, b) => {
    const name = (a ?? b) as string;
    const value = vars[name];
    if (value === undefined) throw new Error(`variable ${name} is not set`);
    return value;
  });
};

/** Words and operators of one line; quotes removed, variables expanded (not in '…'). */
export const tokenize = (code: string, vars: Readonly<Record<string, string>>): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i] ?? "";
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const op = /^(2>|>>|>|\|\||\||&&|&|;)/.exec(code.slice(i));
    if (op?.[1]) {
      tokens.push({ kind: "op", text: op[1] });
      i += op[1].length;
      continue;
    }
    let word = "";
    while (i < code.length && !/\s/.test(code[i] ?? "") && !/[<>|&;]/.test(code[i] ?? "")) {
      const ch = code[i] ?? "";
      if (ch === "'") {
        const end = code.indexOf("'", i + 1);
        if (end < 0) throw new Error(`unterminated ' in: ${code}`);
        word += code.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        let j = i + 1;
        let raw = "";
        while (j < code.length && code[j] !== '"') {
          if (code[j] === "\\" && j + 1 < code.length) j++;
          raw += code[j];
          j++;
        }
        if (j >= code.length) throw new Error(`unterminated " in: ${code}`);
        word += expand(raw, vars);
        i = j + 1;
      } else {
        let j = i;
        while (j < code.length && !/[\s'"<>|&;]/.test(code[j] ?? "")) j++;
        word += expand(code.slice(i, j), vars);
        i = j;
      }
    }
    tokens.push({ kind: "word", text: word });
  }
  return tokens;
};

export interface WaybillLine {
  /** The doc line as written. */
  readonly line: string;
  /** `VAR=value` assignments before the command. */
  readonly env: Readonly<Record<string, string>>;
  /** Arguments after `waybill` (or `node bin/waybill.js`, this checkout's build). */
  readonly args: readonly string[];
  readonly stdoutTo?: string;
  readonly stderrTo?: string;
  readonly background: boolean;
  /** From a trailing `# exit N` (or `# exit N: why`) comment. */
  readonly expectedExit?: number;
}

/**
 * Parse one doc line as a waybill command; undefined when the line does not run waybill.
 * Throws for a waybill line that uses shell features this runner does not have.
 */
export const parseWaybillLine = (
  line: string,
  vars: Readonly<Record<string, string>>,
): WaybillLine | undefined => {
  const { code, comment } = splitComment(line.trim());
  if (code === "") return undefined;
  const tokens = tokenize(code, vars);
  const env: Record<string, string> = {};
  let k = 0;
  for (; k < tokens.length; k++) {
    const t = tokens[k];
    const m = t?.kind === "word" ? /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(t.text) : null;
    if (!m?.[1]) break;
    env[m[1]] = m[2] ?? "";
  }
  if (tokens[k]?.text === "node" && tokens[k + 1]?.text === "bin/waybill.js") k += 2;
  else if (tokens[k]?.text === "waybill") k += 1;
  else return undefined;
  const args: string[] = [];
  let stdoutTo: string | undefined;
  let stderrTo: string | undefined;
  let background = false;
  for (; k < tokens.length; k++) {
    const t = tokens[k];
    if (!t) break;
    if (t.kind === "word") {
      args.push(t.text);
      continue;
    }
    const target = tokens[k + 1];
    if ((t.text === ">" || t.text === "2>") && target?.kind === "word") {
      if (t.text === ">") stdoutTo = target.text;
      else stderrTo = target.text;
      k++;
    } else if (t.text === "&" && k === tokens.length - 1) {
      background = true;
    } else {
      throw new Error(`shell operator ${t.text} is not supported by the docs runner: ${line}`);
    }
  }
  const exit = /^exit (\d+)\b/.exec(comment);
  return {
    line,
    env,
    args,
    ...(stdoutTo !== undefined ? { stdoutTo } : {}),
    ...(stderrTo !== undefined ? { stderrTo } : {}),
    background,
    ...(exit?.[1] !== undefined ? { expectedExit: Number(exit[1]) } : {}),
  };
};

/** The secrets examples/demo/waybill.yaml reads, with test values (all at least 8 chars). */
export const DEMO_SECRETS: Readonly<Record<string, string>> = {
  DEMO_AWS_SECRET_ACCESS_KEY: "docs-aws-secret-0001",
  DEMO_NPM_TOKEN: "docs-npm-token-0002",
  DEMO_SLACK_SIGNING_SECRET: "docs-slack-signing-0003",
  DEMO_DEPLOY_KEY: "docs-deploy-key-0004",
  DEMO_RELEASE_HOOK_SECRET: "docs-release-hook-0005",
};

/** The token examples/demo/seed.json accepts for writes. */
export const DEMO_TOKEN = "demo-token";

/**
 * A temp folder laid out like the repository for the docs' relative paths: `examples/`
 * and `schemas/` copied, and the demo config at the places the examples name.
 */
export const prepareDocsDir = async (dir: string): Promise<void> => {
  await cp(join(REPO_ROOT, "examples"), join(dir, "examples"), { recursive: true });
  await cp(join(REPO_ROOT, "schemas"), join(dir, "schemas"), { recursive: true });
};

/** Run a parsed line with the built CLI; writes redirected output into `cwd`. */
export const runWaybillLine = async (
  cmd: WaybillLine,
  options: {
    readonly cwd: string;
    readonly baseUrl: string;
    readonly env: Readonly<Record<string, string>>;
  },
): Promise<CliResult> => {
  // SERVICE_TOKEN=... and SERVICE_BASE_URL=... in a doc line are placeholders: the test's
  // emulator and token win.
  const { SERVICE_TOKEN: _t, SERVICE_BASE_URL: _u, ...lineEnv } = cmd.env;
  const result = await runCli(cmd.args, {
    cwd: options.cwd,
    baseUrl: options.baseUrl,
    token: DEMO_TOKEN,
    env: { ...options.env, ...lineEnv },
    timeoutMs: 25_000,
  });
  if (cmd.stdoutTo !== undefined) await writeFile(join(options.cwd, cmd.stdoutTo), result.stdout);
  if (cmd.stderrTo !== undefined) await writeFile(join(options.cwd, cmd.stderrTo), result.stderr);
  return result;
};

export interface CliEmulator {
  readonly url: string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Start `waybill emulator ...` as a real process (as the docs tell users to) and wait for
 * its "Emulator listening on URL" line. A `--port N` is replaced by `--port 0` so parallel
 * test files never collide; the docs' fixed port is only a convenience for humans.
 */
export const startCliEmulator = (args: readonly string[], cwd: string): Promise<CliEmulator> => {
  const argv = args.map((a, i) => (args[i - 1] === "--port" ? "0" : a));
  const child = spawn(process.execPath, [CLI_BIN, ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`waybill ${argv.join(" ")} did not start: ${err}`));
    }, 15_000);
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
    });
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
      // Wait for the whole line: a chunk may end in the middle of the port number.
      const m = /Emulator listening on (http:\/\/127\.0\.0\.1:\d+)\r?\n/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        const url = m[1];
        resolve({
          url,
          stop: () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`waybill ${argv.join(" ")} exited (${code}) before listening: ${err}`));
    });
  });
};

/** The lines of every ```sh block, in order. */
export const shBlockLines = (markdown: string): string[] => {
  const lines: string[] = [];
  let inSh = false;
  for (const line of markdown.split("\n")) {
    if (!inSh && /^```sh\s*$/.test(line)) inSh = true;
    else if (inSh && /^```\s*$/.test(line)) inSh = false;
    else if (inSh) lines.push(line);
  }
  return lines;
};
