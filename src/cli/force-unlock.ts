/**
 * `waybill force-unlock [RUN_ID]` (issue 15): show or break the org lock that `apply` holds
 * (src/lock/org-lock.ts). Without RUN_ID it lists the locks and changes nothing; with it (or
 * `--all`) it deletes those claims. The orgs are `--org` (repeatable) or the config's.
 */

import { UsageError } from "../core/errors.js";
import { describeClaim, describeListedClaim } from "../lock/claim.js";
import { forceUnlock, listClaims } from "../lock/org-lock.js";
import {
  ALLOWED_ORGS_OPTION,
  addConnectionOptions,
  allowedOrgsOf,
  type CommonOptionFlags,
  type CommonOptions,
  checkAllowedOrgs,
  collectConfig,
  connect,
  DEFAULT_CONFIG_PATH,
  DEFAULT_PARALLELISM,
  DEFAULT_TIMEOUT_SECONDS,
  loadDesired,
  parseAllowedOrgs,
} from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { lockTimingFor, resolveOrgRef } from "./lock-options.js";
import type { RegisterCommand } from "./register-command.js";

interface ForceUnlockFlags {
  readonly org?: string[];
  readonly all?: boolean;
  readonly config: string | string[];
  readonly baseUrl?: string;
  readonly tokenFile?: string;
  readonly verbose?: boolean;
  readonly allowedOrgs?: string;
}

const EXAMPLES = `
Examples:
  # Who holds the lock of the org? (changes nothing)
  $ waybill force-unlock --org gh/acme

  # The apply that held it was killed: break every lock of the config's orgs (or name
  # the one run: waybill force-unlock 3f2a9c1e5d2b --org gh/acme)
  $ waybill force-unlock --all -c infra/waybill.yaml

Only break a lock when the run that holds it is gone: two applies at once may duplicate
items. Requests a killed run had in flight may still land for a short while; a lock left
alone lapses on its own 60 s after its last renewal (by the service's clock), and the
next apply waits for that by default. A lock-named context that holds env vars or
restrictions is not a claim and is never deleted.

Exit codes: 0 done (or nothing held), 1 error, or RUN_ID holds no lock on these orgs.
`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const registerForceUnlock: RegisterCommand = (program, io, setExit) => {
  const command = program
    .command("force-unlock")
    .argument("[run_id]", "the run whose lock to break (shown by apply and by this command)")
    .description("Show the org locks that apply holds, or break one left by a run that was killed.")
    .option("--org <slug>", "the org (repeatable); default: the orgs of the config", collect)
    .option("--all", "break every lock of these orgs, whichever run holds it")
    // design.md §5 "Secrets and files": force-unlock takes --allowed-orgs like every command.
    .option(...ALLOWED_ORGS_OPTION)
    .option(
      "-c, --config <path>",
      "config file or folder (repeatable), whose orgs are used when --org is not given",
      collectConfig,
      DEFAULT_CONFIG_PATH,
    );
  addConnectionOptions(command)
    .option("--verbose", "log every API request on stderr (method, path, status, ms; redacted)")
    .addHelpText("after", EXAMPLES)
    .action(async (runId: string | undefined, flags: ForceUnlockFlags) => {
      setExit(await forceUnlockCommand(runId, flags, io));
    });
};

const forceUnlockCommand = async (
  runId: string | undefined,
  flags: ForceUnlockFlags,
  io: CliIO,
): Promise<number> => {
  if (runId !== undefined && flags.all) {
    throw new UsageError("give a RUN_ID or --all, not both");
  }
  if (runId !== undefined && !/^[0-9a-f]{12}$/.test(runId)) {
    throw new UsageError(
      `${runId} is not a run id (12 hex characters, e.g. 3f2a9c1e5d2b, as apply's lock message shows it)`,
    );
  }
  const options: CommonOptions = {
    configPath: flags.config,
    format: "text",
    parallelism: DEFAULT_PARALLELISM,
    targets: [],
    excludes: [],
    color: false,
    verbose: flags.verbose === true,
    timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
    ...(flags.allowedOrgs !== undefined
      ? { allowedOrgs: parseAllowedOrgs(flags.allowedOrgs, "--allowed-orgs") }
      : {}),
  };
  let slugs = flags.org ?? [];
  // An --org outside the allowed orgs is refused before any request (the config's orgs are
  // checked by loadDesired).
  checkAllowedOrgs(slugs, allowedOrgsOf(options, io));
  if (slugs.length === 0) {
    // Decision: the config is read only for its org slugs; secrets are not resolved (none
    // is needed to unlock, and a missing ${env:X} must not stand in the way).
    const desired = await loadDesired(options, io, false);
    if (!desired) return EXIT.error;
    slugs = desired.orgs.map((o) => o.slug);
  }
  const commonFlags: CommonOptionFlags = {
    config: flags.config,
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.tokenFile !== undefined ? { tokenFile: flags.tokenFile } : {}),
    parallelism: DEFAULT_PARALLELISM,
    target: [],
    color: false,
    verbose: flags.verbose === true,
  };
  const api = await connect(commonFlags, options, io);
  try {
    let removed = 0;
    for (const slug of [...new Set(slugs)].sort()) {
      const org = await resolveOrgRef(api, slug);
      if (runId === undefined && !flags.all) {
        const { claims, ignored } = await listClaims(api, org);
        const leaseMs = lockTimingFor(io.env).leaseMs;
        if (claims.length === 0) io.stdout.write(`org ${slug}: not locked\n`);
        // Decision: the service's time is not known here (apply learns it by writing a
        // claim, and this command only reads), so each claim shows when the service wrote it
        // and when it lapses unless renewed.
        for (const c of claims) {
          io.stdout.write(`org ${slug}: locked by ${describeListedClaim(c, leaseMs)}\n`);
        }
        for (const i of ignored) {
          io.stdout.write(`org ${slug}: context ${i.name} is not a lock claim: ${i.why}\n`);
        }
        continue;
      }
      const gone = await forceUnlock(api, org, runId ?? "all");
      removed += gone.length;
      for (const c of gone)
        io.stdout.write(`org ${slug}: removed the lock of ${describeClaim(c)}\n`);
      if (gone.length === 0)
        io.stdout.write(`org ${slug}: no lock${runId ? ` of run ${runId}` : ""}\n`);
    }
    // Decision: naming a run that holds no lock anywhere is an error (a mistyped id must not
    // look like success); --all on unlocked orgs is not.
    return runId !== undefined && removed === 0 ? EXIT.error : EXIT.ok;
  } finally {
    await api.close();
  }
};
