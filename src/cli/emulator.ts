import { readFile } from "node:fs/promises";
// The one seam between the product and the emulator (docs/architecture.md): the emulator is
// its own folder (emulator/src, built to dist/emulator), reached only through the package's
// `#emulator` import (package.json "imports"), and only from this file.
import type { EmulatorOptions, FaultOptions, Seed } from "#emulator";
import { UsageError } from "../core/errors.js";
import { EXIT } from "./exit-codes.js";
import type { RegisterCommand } from "./register-command.js";

/** What the command needs from the outside world, injectable so tests run it in-process. */
export interface EmulatorCommandDeps {
  /** Resolves when the emulator should stop (SIGINT/SIGTERM in the real CLI). */
  readonly waitForStop: () => Promise<void>;
  readonly readFile: (path: string) => Promise<string>;
}

const waitForSignal = (): Promise<void> =>
  new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });

interface EmulatorFlags {
  readonly port: string;
  readonly seed?: string;
  readonly admin?: boolean;
  readonly latency?: string;
  readonly faults?: string;
  readonly keepAlive?: string;
  readonly shapes: string;
}

const EXAMPLES = `
Examples:
  # serve the demo state; then: curl -H 'Authorization: Bearer demo-token' http://127.0.0.1:8787/api/v3/orgs
  $ waybill emulator --seed examples/demo/seed.json --port 8787

  # for tests: admin API on, 50 ms of latency, and faults from a file
  $ waybill emulator --seed seed.json --admin --latency 50 --faults faults.json

The seed, fault and admin API formats are described in docs/emulator.md.
`;

const parseIntFlag = (name: string, raw: string, max: number): number => {
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw new UsageError(`${name} must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
};

const readJson = async (
  deps: EmulatorCommandDeps,
  flag: string,
  path: string,
): Promise<unknown> => {
  let text: string;
  try {
    text = await deps.readFile(path);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${flag} ${path}: cannot read the file (${reason})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${flag} ${path}: not valid JSON (${reason})`);
  }
};

/** The `waybill emulator` command with its outside world injected. */
export const makeRegisterEmulator =
  (deps: EmulatorCommandDeps): RegisterCommand =>
  (program, io, setExit) => {
    program
      .command("emulator")
      .description(
        "Start the bundled emulator of the service on 127.0.0.1 (V3 and V2 routes Waybill uses), for tests and demos. Runs until Ctrl-C.",
      )
      .option("--port <n>", "port to listen on (0 picks a free port)", "0")
      .option(
        "--seed <file>",
        "JSON seed: tokens, orgs, contexts, projects... (default: empty, token demo-token)",
      )
      .option(
        "--admin",
        "enable the test-only /__admin/ API (reset, state dump with secrets, request log, faults)",
      )
      .option("--latency <ms>", "add this many milliseconds to every API response")
      .option(
        "--faults <file>",
        "JSON fault options (rates of 429/500/drops, token-bucket rate limit, PRNG seed)",
      )
      .option(
        "--keep-alive <ms>",
        "keep idle connections this long, advertised as Keep-Alive: timeout=S (default 1000; 0: no limit, no header)",
      )
      .option(
        "--shapes <sparse|full>",
        'answer in the sparest shapes the real service sends (sparse: no page where it sends none, org look-up { id }, projects without slug, "" last cursors, V2 snake case, { message } 401s) or in every member the spec names (full)',
        "sparse",
      )
      .addHelpText("after", EXAMPLES)
      .action(async (flags: EmulatorFlags) => {
        // Loaded here, not at the top: the other commands never pay for the emulator's
        // modules at start-up (issue 8).
        const { DEFAULT_SEED, parseFaultOptions, SeedError, startEmulator } = await import(
          "#emulator"
        );
        const port = parseIntFlag("--port", flags.port, 65535);
        // design.md §5 "Reading the real service": `--shapes sparse|full`, default sparse.
        if (flags.shapes !== "sparse" && flags.shapes !== "full") {
          throw new UsageError(
            `--shapes must be sparse or full, got ${JSON.stringify(flags.shapes)}`,
          );
        }
        const shapes: "sparse" | "full" = flags.shapes;
        const seed = flags.seed
          ? ((await readJson(deps, "--seed", flags.seed)) as Seed)
          : DEFAULT_SEED;
        let faults: FaultOptions = flags.faults
          ? ((await readJson(deps, "--faults", flags.faults)) as FaultOptions)
          : {};
        if (flags.latency !== undefined) {
          faults = { ...faults, latency_ms: parseIntFlag("--latency", flags.latency, 600_000) };
        }
        try {
          faults = parseFaultOptions(faults);
        } catch (err) {
          throw new UsageError(`--faults: ${err instanceof Error ? err.message : String(err)}`);
        }
        const options: EmulatorOptions = {
          port,
          seed,
          admin: flags.admin === true,
          faults,
          ...(flags.keepAlive !== undefined
            ? { keepAliveMs: parseIntFlag("--keep-alive", flags.keepAlive, 600_000) }
            : {}),
          log: (line) => io.stderr.write(`${line}\n`),
          shapes,
        };
        let emu: Awaited<ReturnType<typeof startEmulator>>;
        try {
          emu = await startEmulator(options);
        } catch (err) {
          // The emulator's errors are its own (it imports nothing of the product): a bad
          // seed is the user's input, reported as before (same message, exit 1).
          if (err instanceof SeedError) throw new UsageError(err.message);
          throw err;
        }
        io.stdout.write(`Emulator listening on ${emu.url}\n`);
        // Decision: seed token values are never printed (a seed may hold a real-looking
        // token); only the well-known demo token is named, as a hint.
        if ((seed.tokens ?? []).some((t) => t.token === "demo-token")) {
          io.stdout.write(
            `Try: SERVICE_BASE_URL=${emu.url} SERVICE_TOKEN=demo-token, or curl -H 'Authorization: Bearer demo-token' ${emu.url}/api/v3/orgs\n`,
          );
        }
        if (options.admin) io.stdout.write(`Admin API: ${emu.url}/__admin/ (test only)\n`);
        await deps.waitForStop();
        await emu.close();
        io.stderr.write("Emulator stopped\n");
        setExit(EXIT.ok);
      });
  };

export const registerEmulator: RegisterCommand = makeRegisterEmulator({
  waitForStop: waitForSignal,
  readFile: (path) => readFile(path, "utf8"),
});
