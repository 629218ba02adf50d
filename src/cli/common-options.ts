/**
 * The options shared by plan, apply, drift and export (design.md §1 "Commands": common
 * options), resolved once into a fully defaulted value (conventions.md §8), and the steps
 * every such command starts with: load the config (no API call when it is invalid), then
 * find the base URL and token, then build the client.
 */
import { stat } from "node:fs/promises";
import { type Command, InvalidArgumentError, Option } from "commander";
import {
  type ApiClientOptions,
  createApiClient,
  DEFAULT_MAX_ATTEMPTS,
  formatSeconds,
  type RetryNotice,
} from "../api/client.js";
import type { Api, RequestLogEntry } from "../api/types.js";
import { outsideAllowedOrgs } from "../config/allowed-orgs.js";
import { checkIgnoreGlob, ignoreFieldWarnings } from "../config/ignore-glob.js";
import { formatDiagnostic, loadConfig } from "../config/index.js";
import { shellVariableWarnings } from "../config/shell-vars.js";
import { stripControls } from "../core/controls.js";
import { UsageError } from "../core/errors.js";
import { readRegularFile } from "../core/read-regular.js";
import { resolvedSecretValues, Secret } from "../core/secret.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import { createRedactor } from "../model/redactor.js";
import { hostIsCredential } from "../model/url-mask.js";
import { count } from "./heartbeat.js";
import { type CliIO, clockOf } from "./io.js";

/**
 * `github` (issue 45): GitHub workflow annotations (policy violations, blocked guards) on
 * stdout, then the text rendering for the job log.
 */
export const OUTPUT_FORMATS = ["text", "json", "markdown", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What commander hands the action for the common options (before defaults are checked). */
export interface CommonOptionFlags {
  readonly config: string | string[];
  readonly baseUrl?: string;
  readonly tokenFile?: string;
  readonly format?: OutputFormat;
  readonly parallelism: number;
  /** Absent when no `--target` was given. */
  readonly target?: readonly string[];
  /** Absent when no `--exclude` was given. */
  readonly exclude?: readonly string[];
  readonly color: boolean;
  readonly verbose?: boolean;
  /** `--timeout SECONDS`: the longest one request may take, retries included. */
  readonly timeout?: number;
  /** `--allowed-orgs SLUG[,SLUG…]` (design.md §4 "Integration"). */
  readonly allowedOrgs?: string;
  /** `--show-urls` (plan and drift only). */
  readonly showUrls?: boolean;
}

export const DEFAULT_CONFIG_PATH = "./waybill.yaml";
export const DEFAULT_PARALLELISM = 10;
/**
 * Decision: `--parallelism` is bounded to 1..64. The service's rate limits are per route and
 * unpublished (spec: api-v3.md "Limits"); more than 64 requests in flight only buys 429s.
 */
export const MAX_PARALLELISM = 64;

const parseParallelism = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARALLELISM) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_PARALLELISM}`);
  }
  return n;
};

/**
 * Decision: apply runs unattended on merge, and one read that runs out of retries aborts the
 * whole run (the plan cannot be made), so its client retries idempotent requests (GET,
 * DELETE, and 429s) up to 8 times with waits capped at 4 s, where plan keeps the client's
 * defaults (5 attempts). Under the fault rates of issue 5 (35% of requests failing) 5
 * attempts leave about a 10% chance that one of a plan's ~20 reads fails.
 */
export const APPLY_RETRY = { maxAttempts: 8, maxDelayMs: 4_000 } as const;
const APPLY_MAX_ATTEMPTS = APPLY_RETRY.maxAttempts;

/**
 * `--timeout` (issue 28): the longest one request may wait for its answer, its retries and
 * the waits between them included, so a service that accepts connections and never answers
 * is reported within it (30 s by default; before, 5 attempts of 30 s each made 156 s for
 * plan, 8 made 251 s for apply). Each attempt waits at most what is left of it. Waits the
 * service asks for (429 Retry-After, announced on stderr) are not counted: it is answering.
 * Requests run in parallel, each within the bound, so a run whose first requests get no
 * answer ends within about the bound.
 *
 * Decision: `--timeout` takes seconds (fractions allowed) from 0.1 to 3,600 (an hour).
 */
export const TIMEOUT_HELP =
  "the longest one API request may wait for its answer, retries and the waits between them included (waits a 429 asks for excepted); a service that never answers is reported within it";
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const parseTimeout = (value: string): number => {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n >= 0.1 && n <= 3600)) {
    throw new InvalidArgumentError("expected a number of seconds from 0.1 to 3600");
  }
  return n;
};

/** A repeatable option's values, in order (commander's argParser). */
export const collect = (value: string, previous: readonly string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/**
 * Add the common options to a command. `formats` lists the `--format` values the command
 * accepts (export writes YAML and takes none).
 */
/** `--base-url` and `--token-file`: how a command reaches the service. */
export const addConnectionOptions = (command: Command): Command =>
  command
    .option(
      "--base-url <url>",
      "service root, e.g. https://service.example.com (default: env SERVICE_BASE_URL); http:// only for loopback",
    )
    .option(
      "--token-file <path>",
      "read the API token from this file (default: env SERVICE_TOKEN); there is no --token flag because argv is visible to other users",
    );

/**
 * Issue 19: `-c` may be given several times; their configs are merged like one folder's
 * files. The first `-c` replaces the default path, the next ones add to it.
 */
export const collectConfig = (value: string, previous: string | string[]): string[] =>
  Array.isArray(previous) ? [...previous, value] : [value];

export const addCommonOptions = (
  command: Command,
  options: { readonly formats?: readonly OutputFormat[] } = {},
): Command => {
  addConnectionOptions(
    command.option(
      "-c, --config <path>",
      "config file, or a folder whose *.yaml/*.yml files (sub-folders too) are merged; repeatable, several are merged",
      collectConfig,
      DEFAULT_CONFIG_PATH,
    ),
  );
  if (options.formats && options.formats.length > 0) {
    command.addOption(
      new Option("--format <format>", "output format on stdout")
        .choices([...options.formats])
        .default("text"),
    );
  }
  return command
    .option(
      "--parallelism <n>",
      `API requests in flight at once (1-${MAX_PARALLELISM})`,
      parseParallelism,
      DEFAULT_PARALLELISM,
    )
    .option(
      "--target <address>",
      "limit to addresses matching this glob, with their dependencies (repeatable), e.g. 'project[\"gh/acme/api\"].*'",
      collect,
    )
    .option(
      "--exclude <address>",
      "leave out addresses matching this glob, and the changes that depend on them (repeatable); a --target that needs one is an error",
      collect,
    )
    .option(
      "--timeout <seconds>",
      `${TIMEOUT_HELP}; within it a request is tried at most ${DEFAULT_MAX_ATTEMPTS} times (apply: ${APPLY_MAX_ATTEMPTS}), each retry announced on stderr`,
      parseTimeout,
      DEFAULT_TIMEOUT_SECONDS,
    )
    .option("--no-color", "never colour the output (colour is used only on a terminal)")
    .option("--verbose", "log every API request on stderr (method, path, status, ms; redacted)")
    .option(...ALLOWED_ORGS_OPTION);
};

/** The common options with every default applied and the environment consulted. */
export interface CommonOptions {
  /** One `-c` (or the default), or several to merge (issue 19). */
  readonly configPath: string | readonly string[];
  readonly format: OutputFormat;
  readonly parallelism: number;
  readonly targets: readonly string[];
  /** `--exclude` globs (design.md §5 "Scoped plans and the reviewed plan"), checked. */
  readonly excludes: readonly string[];
  /** Colour on stdout: a TTY, not `--no-color`, and no `NO_COLOR` in the environment. */
  readonly color: boolean;
  readonly verbose: boolean;
  /** `--timeout` in ms: one request's bound, retries included (and each attempt's at most). */
  readonly timeoutMs: number;
  /** `--allowed-orgs` parsed; absent: the environment's WAYBILL_ALLOWED_ORGS, or any org. */
  readonly allowedOrgs?: readonly string[];
  /** `--show-urls` on a terminal (src/plan/mask-urls.ts); false everywhere else. */
  readonly showUrls?: boolean;
}

export const resolveCommonOptions = (flags: CommonOptionFlags, io: CliIO): CommonOptions => ({
  ...(flags.allowedOrgs !== undefined
    ? { allowedOrgs: parseAllowedOrgs(flags.allowedOrgs, "--allowed-orgs") }
    : {}),
  ...(flags.showUrls === true ? { showUrls: showUrlsOnTerminal(io) } : {}),
  configPath: flags.config,
  format: flags.format ?? "text",
  parallelism: flags.parallelism,
  targets: checkedTargets(flags.target ?? []),
  excludes: checkedGlobs(flags.exclude ?? [], "--exclude"),
  // Decision: the NO_COLOR convention (no-color.org) is honoured as well as --no-color.
  color: flags.color && io.stdout.isTTY === true && !io.env.NO_COLOR,
  verbose: flags.verbose === true,
  timeoutMs: Math.round((flags.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
});

export interface Connection {
  readonly baseUrl: string;
  readonly token: Secret;
}

/**
 * The base URL and the token, from flags or the environment. The token is wrapped in a
 * Secret at once, so no message or log can show it. Problems are UsageErrors (exit 1), raised
 * before any request is made.
 */
export const resolveConnection = async (
  flags: CommonOptionFlags,
  io: CliIO,
): Promise<Connection> => {
  const baseUrl = flags.baseUrl ?? io.env.SERVICE_BASE_URL;
  if (baseUrl === undefined || baseUrl.trim() === "") {
    throw new UsageError("no service URL: pass --base-url URL or set SERVICE_BASE_URL");
  }
  const token =
    flags.tokenFile !== undefined ? await readTokenFile(flags.tokenFile, io) : envToken(io);
  return { baseUrl: baseUrl.trim(), token };
};

const envToken = (io: CliIO): Secret => {
  const value = io.env.SERVICE_TOKEN?.trim();
  if (value === undefined || value === "") {
    throw new UsageError("no API token: set SERVICE_TOKEN or pass --token-file PATH");
  }
  return new Secret(value, "env:SERVICE_TOKEN");
};

/**
 * Decision: `--token-file` wins over SERVICE_TOKEN when both are given (the flag is the more
 * explicit choice). The file's content is trimmed (a trailing newline from `echo` is not part
 * of a token). A file readable by group or others is used, with a warning, as ssh does for
 * keys it does not refuse.
 */
const readTokenFile = async (path: string, io: CliIO): Promise<Secret> => {
  // Issue 21: a FIFO as `--token-file` blocked forever; only a regular file is read, and
  // never past the bound (readRegularFile checks the type on the open descriptor).
  const read = readRegularFile(path, MAX_TOKEN_FILE_BYTES);
  if (!read.ok) {
    throw new UsageError(
      read.code === "unreadable"
        ? `cannot read token file ${path} (${read.reason})`
        : read.code === "too_large"
          ? `token file ${path} is over ${MAX_TOKEN_FILE_BYTES / 1024} KiB: it is not a token`
          : `cannot read token file ${path}: ${read.reason}`,
    );
  }
  try {
    const info = await stat(path);
    if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
      io.stderr.write(
        `Warning: token file ${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${path}\n`,
      );
    }
  } catch {
    // Read a moment ago: a file removed since has nothing left to warn about.
  }
  const value = read.bytes.toString("utf8").trim();
  if (value === "") throw new UsageError(`token file ${path} is empty`);
  return new Secret(value, `file:${path}`);
};

/** Decision: a token file over 64 KiB is refused (tokens are under 1 KiB). */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/** "Reading live state… 120/340" on stderr: one rewritten line on a TTY, else start and end. */
export const progressReporter = (
  io: CliIO,
  label: string,
): {
  readonly onProgress: (done: number, total: number) => void;
  readonly finish: () => void;
  /** The read failed: end the progress line without claiming it is done. */
  readonly abort: () => void;
} => {
  const tty = io.stderr.isTTY === true;
  const state = { started: false, done: 0, total: 0 };
  // Issue 46: off a terminal the heartbeat (heartbeat.ts) repeats where the read is; the
  // total grows as reads are found (src/live/progress.ts), hence the "~".
  io.heartbeat?.doing(() => `${label}: ${count(state.done)} of ~${count(state.total)} reads done`);
  return {
    onProgress: (done, total) => {
      state.done = done;
      state.total = total;
      if (tty) io.stderr.write(`\r${label}… ${done}/${total}`);
      else if (!state.started) io.stderr.write(`${label}…\n`);
      state.started = true;
    },
    finish: () => {
      io.heartbeat?.doing(() => `${label}: all ${count(state.total)} reads done; working on them`);
      if (!state.started) return;
      // Decision: off a TTY (CI logs) progress is one line at the start and one at the end,
      // not one line per request.
      io.stderr.write(
        tty
          ? `\r${label}… ${state.done}/${state.total} done\n`
          : `${label}: ${state.total} reads done\n`,
      );
    },
    abort: () => {
      if (state.started && tty) io.stderr.write("\n");
    },
  };
};

/**
 * Where `--verbose` request log lines go: `GET /api/v3/contexts?... 200 12ms`. The client
 * never puts the token in an entry (src/api/types.ts RequestLogEntry).
 */
export const verboseLogger =
  (io: CliIO) =>
  (entry: RequestLogEntry): void => {
    io.stderr.write(
      `${entry.method} ${entry.path} ${entry.status} ${Math.round(entry.ms)}ms${entry.attempt > 1 ? ` (attempt ${entry.attempt})` : ""}\n`,
    );
  };

/**
 * One stderr line per retry (issue 21: no silent minutes): the operation, why, the attempt
 * to come out of how many, the wait before it, and the longest the request can take.
 */
export const retryLine = (n: RetryNotice): string =>
  `Retrying ${n.method} ${n.path}: ${n.reason}; attempt ${n.nextAttempt}/${n.maxAttempts} in ${formatSeconds(n.waitMs)} (gives up after ${n.maxAttempts} attempts, ${formatSeconds(n.boundMs)} at most)\n`;

/** The client options every command shares: timeout, warnings, retries, the request log. */
export const clientReporting = (
  options: CommonOptions,
  io: CliIO,
): Pick<
  ApiClientOptions,
  "timeoutMs" | "requestTimeoutMs" | "onWarning" | "onRetry" | "onRequest" | "clock" | "maxPages"
> => ({
  // An attempt may take the whole bound (a slow answer is still an answer); the bound
  // counts every attempt and wait of the request.
  timeoutMs: options.timeoutMs,
  requestTimeoutMs: options.timeoutMs,
  clock: clockOf(io),
  onWarning: (message) => io.stderr.write(`Warning: ${message}\n`),
  onRetry: (notice) => io.stderr.write(retryLine(notice)),
  ...(options.verbose ? { onRequest: verboseLogger(io) } : {}),
  ...(io.maxPages !== undefined ? { maxPages: io.maxPages } : {}),
});

/**
 * Load and validate the config. On failure every diagnostic is printed on stderr and
 * undefined is returned: the caller exits 1 and no API call is made (issue 3).
 */
export const loadDesired = async (
  options: CommonOptions,
  io: CliIO,
  resolveSecrets: boolean | "available",
): Promise<DesiredConfig | undefined> => {
  // design.md §4 "Integration": the allowed orgs are known (and a malformed list refused)
  // before the config is even read.
  const allowed = allowedOrgsOf(options, io);
  const loaded = await loadConfig(options.configPath, { env: io.env, resolveSecrets });
  if (loaded.ok) {
    for (const w of [
      ...shellVariableWarnings(loaded.config),
      ...ignoreFieldWarnings(loaded.config),
    ])
      io.stderr.write(`Warning: ${w}\n`);
    // Issue 43: a secret written in clear, said once per place (validate --strict refuses it).
    for (const w of loaded.warnings) io.stderr.write(`Warning: ${formatDiagnostic(w)}\n`);
    checkAllowedOrgs(
      loaded.config.orgs.map((o) => o.slug),
      allowed,
    );
    // Issue 43: the allowed orgs bound every lookup, not only the config's `org:`.
    const outside = allowed === undefined ? [] : outsideAllowedOrgs(loaded.config, allowed);
    if (outside.length > 0) {
      for (const d of outside) io.stderr.write(`${formatDiagnostic(d)}\n`);
      io.stderr.write(
        `Error: the config refers to ${outside.length === 1 ? "a project" : `${outside.length} projects`} outside the allowed orgs; no API call was made\n`,
      );
      return undefined;
    }
    return loaded.config;
  }
  for (const d of loaded.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
  io.stderr.write(
    `Error: the config is invalid (${loaded.diagnostics.length} problem${loaded.diagnostics.length === 1 ? "" : "s"}); no API call was made\n`,
  );
  return undefined;
};

/**
 * Every resolved secret value of the config (env var values, signing secrets, anything from
 * `${env:}`/`${file:}`).
 */
export const collectSecretValues = (desired: DesiredConfig): string[] => [
  ...resolvedSecretValues(desired),
  ...credentialUrls(desired),
];

/**
 * Issue 30: the webhook URLs the config writes in clear are credentials too; a service error
 * that echoes one (a create refused for its url) is scrubbed like a secret.
 */
const credentialUrls = (desired: DesiredConfig): string[] => {
  const out: string[] = [];
  for (const org of desired.orgs) {
    for (const p of org.projects.values()) {
      for (const w of p.webhooks?.values() ?? []) if (typeof w.url === "string") out.push(w.url);
    }
    for (const e of org.otel_exporters ?? []) {
      if (endpointIsCredential(e.endpoint)) out.push(e.endpoint);
    }
  }
  return out;
};

/**
 * Issue 43: an exporter endpoint (host:port, spec: POST /otel/exporters) is scrubbed only when
 * its host is itself the credential; a plain host (`api.honeycomb.io:443`) is what an error
 * names to say which exporter failed.
 */
const endpointIsCredential = (endpoint: string): boolean =>
  hostIsCredential(endpoint.replace(/:\d+$/, ""));

/**
 * The values a service's error text is scrubbed of (issue 43 "Redact at the edge"): the
 * config's secrets and credential URLs, and the live state's credential URLs once a read
 * has brought them (`add`): an error on a write that quotes the live webhook URL (the one
 * being replaced) must not print it either. The config's values are collected on first use.
 */
export interface SecretBook {
  /** Add values (the live state's URLs after a read); those already known are ignored. */
  add(values: Iterable<string>): void;
  /** Every value so far. */
  values(): readonly string[];
  /** The number of values so far: a scrubber built on fewer is built again. */
  size(): number;
}

export const secretBook = (initial: () => readonly string[] = () => []): SecretBook => {
  let base: Set<string> | undefined;
  // Values added before anyone asked: the config's are collected only when a text is
  // scrubbed (the walk of every secret of a 40,000-item config is ~0.3–0.7 s, which a
  // plan that meets no error, a partial plan above all, should not pay).
  const early: string[] = [];
  const all = (): Set<string> => {
    if (base === undefined) {
      base = new Set(initial());
      for (const v of early) base.add(v);
      early.length = 0;
    }
    return base;
  };
  return {
    add: (values) => {
      if (base === undefined) {
        for (const v of values) early.push(v);
        return;
      }
      for (const v of values) base.add(v);
    },
    values: () => [...all()],
    size: () => all().size,
  };
};

/**
 * Issue 43: the credential URLs of the live state (webhook URLs; an exporter endpoint whose
 * host is itself the credential), for the book of values error texts are scrubbed of.
 */
export const liveCredentialUrls = (live: LiveState): string[] => {
  const out: string[] = [];
  for (const org of live.orgs) {
    for (const p of org.projects.values()) {
      if (p.status !== "found") continue;
      for (const w of p.webhooks ?? []) if (typeof w.url === "string") out.push(w.url);
    }
    for (const e of org.otel_exporters ?? []) {
      if (endpointIsCredential(e.endpoint)) out.push(e.endpoint);
    }
  }
  return out;
};

/**
 * Decision: error texts the service sends back are scrubbed of the config's secret values
 * and of the token, in every form a secret can take in a text (raw, JSON-escaped,
 * URL-encoded, base64, a long prefix: src/model/redactor.ts), not only of the token the
 * client removes itself: a service that echoes a rejected value in `detail` must not make
 * Waybill print it. One automaton reads each text once, however many secrets there are
 * (issue 22: 20,000 secrets made the old one-pass-per-secret scrubber dominate a plan).
 * Given a `SecretBook`, the automaton is built again when the book has grown since (the live
 * state's URLs, added after a read).
 */
export const secretScrubber = (
  secrets: readonly string[] | (() => readonly string[]) | SecretBook,
  token?: Secret,
): ((text: string) => string) => {
  // Built on the first text scrubbed (issue 33): only a service's error texts and notices
  // are scrubbed, so most runs never need the automaton, and at 20,000 secrets its forms
  // and trie took ~150 ms of CPU before a plan's first request.
  let redact: ((text: string) => string) | undefined;
  let builtOn = -1;
  const book = typeof secrets === "object" && "size" in secrets ? secrets : undefined;
  const build = (): ((text: string) => string) => {
    const values =
      book !== undefined
        ? book.values()
        : typeof secrets === "function"
          ? secrets()
          : (secrets as readonly string[]);
    return createRedactor(token?.isResolved === true ? [...values, token.reveal()] : values).redact;
  };
  // Issue 30: a service's text (an error title, a detail) never drives the terminal.
  return (text) => {
    const size = book?.size() ?? 0;
    if (redact === undefined || size !== builtOn) {
      redact = build();
      builtOn = size;
    }
    return stripControls(redact(text));
  };
};

/** Build the API client from the resolved options (the client refuses http:// off loopback). */
export const connect = async (
  flags: CommonOptionFlags,
  options: CommonOptions,
  io: CliIO,
  desired?: DesiredConfig,
  book?: SecretBook,
): Promise<Api> => connectWith(await resolveConnection(flags, io), options, io, desired, book);

/**
 * `connect` for a caller that already resolved the connection (it needs the base URL too):
 * the token file is read, and its permissions warned about, once.
 */
export const connectWith = (
  connection: Connection,
  options: CommonOptions,
  io: CliIO,
  desired?: DesiredConfig,
  book: SecretBook = secretBook(() => (desired ? collectSecretValues(desired) : [])),
): Api =>
  createApiClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    maxConcurrentRequests: options.parallelism,
    ...clientReporting(options, io),
    scrub: secretScrubber(book, connection.token),
  });

// ---------------------------------------------------------------------------------------
// design.md §4 "Integration": `--allowed-orgs` and `--show-urls` (issue 30: a fork's pull
// request chooses the config's `org:` and its webhooks; the plan job must not follow it to
// another org, nor print the org's webhook URLs in a public comment).

export const ALLOWED_ORGS_ENV = "WAYBILL_ALLOWED_ORGS";

/** The `--allowed-orgs` option, for commander's `.option(...)`. */
export const ALLOWED_ORGS_OPTION = [
  "--allowed-orgs <slugs>",
  `refuse, before any request, a config (or --org) naming an org outside this comma-separated list, e.g. gh/acme,gh/acme-labs (default: env ${ALLOWED_ORGS_ENV}; for plan jobs on pull requests)`,
] as const;

/**
 * Decision: the list is comma-separated slugs, compared exactly (case included: the config's
 * slug is what is sent). A list that is given but names no org (`--allowed-orgs ""`, or the
 * variable set from an unset CI variable) allows nothing and is refused, rather than read as
 * "no restriction": a misconfigured guard fails closed. The flag wins over the variable.
 */
export const parseAllowedOrgs = (value: string, source: string): string[] => {
  const slugs = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (slugs.length === 0) {
    throw new UsageError(`${source} names no org: give at least one slug, e.g. gh/acme`);
  }
  return slugs;
};

/** The allowed orgs from the options or the environment; undefined: any org. */
export const allowedOrgsOf = (
  options: Pick<CommonOptions, "allowedOrgs">,
  io: CliIO,
): readonly string[] | undefined => {
  if (options.allowedOrgs !== undefined) return options.allowedOrgs;
  const env = io.env[ALLOWED_ORGS_ENV];
  return env === undefined ? undefined : parseAllowedOrgs(env, ALLOWED_ORGS_ENV);
};

/** Refuse (exit 1, before any request) the orgs outside `allowed`. */
export const checkAllowedOrgs = (
  slugs: readonly string[],
  allowed: readonly string[] | undefined,
): void => {
  if (allowed === undefined) return;
  const outside = slugs.filter((s) => !allowed.includes(s));
  if (outside.length === 0) return;
  throw new UsageError(
    `${outside.map((s) => JSON.stringify(s)).join(", ")} ${outside.length === 1 ? "is" : "are"} not among the allowed orgs (${allowed.join(", ")}; --allowed-orgs or ${ALLOWED_ORGS_ENV}); no API call was made`,
  );
};

/** `--show-urls`: plan and drift only (apply, export and saved plans always mask). */
export const addShowUrlsOption = (command: Command): Command =>
  command.option(
    "--show-urls",
    "print webhook URLs in full (only when stdout is a terminal; otherwise they stay masked, with a warning)",
  );

/**
 * Decision: `--show-urls` off a terminal is ignored with a warning rather than refused: a
 * CI job that passes it still gets its plan, and nothing a log or a comment keeps holds a
 * URL (design.md §4: "a terminal only").
 */
const showUrlsOnTerminal = (io: CliIO): boolean => {
  if (io.stdout.isTTY === true) return true;
  io.stderr.write(
    "Warning: --show-urls is ignored: stdout is not a terminal, so webhook URLs stay masked\n",
  );
  return false;
};

/**
 * Decision: an address glob is malformed when it is empty or its brackets or quotes do not
 * pair (`project["a"`): such a glob matches nothing a user meant, and for `--exclude` a
 * glob that silently matches nothing would let through what was to be left out.
 */
export const checkedGlobs = (globs: readonly string[], flag: string): readonly string[] => {
  for (const g of globs) {
    let depth = 0;
    let quotes = 0;
    for (const ch of g) {
      if (ch === '"') quotes += 1;
      else if (quotes % 2 === 0 && ch === "[") depth += 1;
      else if (quotes % 2 === 0 && ch === "]") depth -= 1;
      if (depth < 0) break;
    }
    if (g.trim() === "" || depth !== 0 || quotes % 2 !== 0) {
      throw new UsageError(
        `${flag} ${JSON.stringify(stripControls(g))} is not an address glob: its brackets and quotes must pair, e.g. 'project["gh/acme/api"].webhook["*"]'`,
      );
    }
  }
  return globs;
};

/**
 * Issue 46: a `--target` that is not a well-formed address glob is an error (exit 1, before
 * any request), not a warning and "No changes". Well-formed: an `ignore` glob (stars inside
 * the `["..."]` keys), which may end in `*` or `.*` (everything inside the address), or `*`.
 */
export const checkedTargets = (targets: readonly string[], flag = "--target"): string[] =>
  targets.map((t) => {
    if (t === "*") return t;
    const problem = checkIgnoreGlob(t.replace(/(\.\*|\*)+$/, ""));
    if (problem !== undefined) throw new UsageError(`${flag} '${t}': ${problem}`);
    return t;
  });
