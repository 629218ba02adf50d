/**
 * The world a CI recipe runs in, for test/integration/ci-recipes-run.test.ts: a fixture
 * repository (a bare `origin` with `main` and a pull request's commit), a release server on
 * 127.0.0.1 serving the real single file (and stand-ins that exit with a chosen code), the
 * service emulator, the GitHub stand-in, and the user's edit of a recipe (the three pinned
 * install values).
 */
import { createHash } from "node:crypto";
import { chmod, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Seed } from "../../../emulator/src/seed.js";
import { makeTempDir, REPO_ROOT, type TempDir } from "../cli.js";
import { GH_STAND_IN } from "./fake-github.js";
import { pathWithoutWaybill, runProcess } from "./process.js";

export const REPOSITORY = "acme/platform";
export const PR_NUMBER = 7;
export const FEATURE_BRANCH = "feature";

/** The values the repository's settings hold (secrets are ≥ 8 characters: leak scans). */
export const SECRETS = {
  SERVICE_READ_TOKEN: "svc-read-token-4f1e2d3c",
  SERVICE_WRITE_TOKEN: "svc-write-token-8a9b0c1d",
  PROD_AWS_SECRET: "prod-aws-secret-value-7f3a",
  NPM_TOKEN: "npm-token-value-9e9e",
  WAYBILL_PULL_TOKEN: "ghp_pull-token-5e6f7a8b9c",
} as const;
export const ACTIONS_TOKEN = "ghs_actions-token-1a2b3c4d";
export const FORK_TOKEN = "ghs_fork-read-only-token-5d6e";
/** The service recipe's GitHub token (a bot user's: GET /user answers for it). */
export const SERVICE_GITHUB_TOKEN = "ghp_service-bot-token-0f0e0d";

/** The config at infra/waybill/ on main. */
export const MAIN_CONFIG = `org: gh/acme
settings:
  enable_private_orbs: true
contexts:
  deploy:
    env:
      AWS_REGION: eu-west-1
      AWS_SECRET_ACCESS_KEY: \${env:PROD_AWS_SECRET}
projects:
  gh/acme/api:
    env:
      NPM_TOKEN: \${env:NPM_TOKEN}
`;

/** The pull request's config: one more variable. */
export const PR_CONFIG = MAIN_CONFIG.replace(
  "      AWS_REGION: eu-west-1\n",
  "      AWS_REGION: eu-west-1\n      LOG_LEVEL: debug\n",
);

/**
 * The service's state: as main says, or changed by hand (an org setting turned off). Every
 * context and project variable is a secret, compared by its last four characters: they
 * match the config's, so they are unverified, not drift.
 */
export const seedOf = (state: "in-sync" | "changed-by-hand"): Seed => ({
  tokens: [
    { token: SECRETS.SERVICE_WRITE_TOKEN },
    { token: SECRETS.SERVICE_READ_TOKEN, read_only: true },
  ],
  orgs: [
    {
      slug: "gh/acme",
      name: "acme",
      settings: { enable_private_orbs: state === "in-sync" },
      contexts: [
        { name: "deploy", env: { AWS_REGION: "eu-west-1", AWS_SECRET_ACCESS_KEY: "old-aws-7f3a" } },
      ],
      projects: [{ slug: "api", name: "api", env: { NPM_TOKEN: "old-npm-9e9e" } }],
    },
  ],
});

export interface Origin {
  readonly bare: string;
  readonly mainSha: string;
  readonly prSha: string;
}

const gitIn = async (cwd: string, ...args: string[]): Promise<string> => {
  const r = await runProcess(["git", ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: cwd,
      GIT_AUTHOR_NAME: "alice",
      GIT_AUTHOR_EMAIL: "alice@example.com",
      GIT_COMMITTER_NAME: "alice",
      GIT_COMMITTER_EMAIL: "alice@example.com",
    },
  });
  if (r.code !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
};

/**
 * The fixture repository: main holds the config and the service recipe's files (copied as
 * examples/ci/README.md tells a user to); `feature` (also refs/pull/7/head) changes the
 * config. A bare copy is `origin`, fetchable by commit id as GitHub's is.
 */
export const makeOrigin = async (tmp: TempDir): Promise<Origin> => {
  const src = tmp.path("origin-src");
  const bare = tmp.path("origin.git");
  await tmp.write("origin-src/infra/waybill/waybill.yaml", MAIN_CONFIG);
  await tmp.write("origin-src/README.md", "the platform's CI config\n");
  const scripts = await readdir(join(REPO_ROOT, "examples/ci/service/scripts"));
  for (const f of [".service/config.yml", ...scripts.map((n) => `scripts/${n}`)]) {
    await tmp.write(
      `origin-src/${f}`,
      await readFile(join(REPO_ROOT, "examples/ci/service", f), "utf8"),
    );
  }
  await gitIn(tmp.dir, "init", "-q", "-b", "main", src);
  await gitIn(src, "add", "-A");
  await gitIn(src, "commit", "-q", "-m", "the platform's config");
  const mainSha = await gitIn(src, "rev-parse", "HEAD");
  await gitIn(src, "switch", "-q", "-c", FEATURE_BRANCH);
  await writeFile(join(src, "infra/waybill/waybill.yaml"), PR_CONFIG);
  await gitIn(src, "commit", "-q", "-am", "log at debug level");
  const prSha = await gitIn(src, "rev-parse", "HEAD");
  await gitIn(tmp.dir, "clone", "-q", "--bare", src, bare);
  await gitIn(bare, "update-ref", `refs/pull/${PR_NUMBER}/head`, prSha);
  await gitIn(bare, "config", "uploadpack.allowAnySHA1InWant", "true");
  return { bare, mainSha, prSha };
};

export const gitRead = (bare: string, ...args: string[]): Promise<string> => gitIn(bare, ...args);

export interface ReleaseServer {
  readonly url: string;
  /** A release: its base URL (what WAYBILL_RELEASE_URL holds) and the file's sha256. */
  add(name: string, file: Buffer): { readonly url: string; readonly sha256: string };
  readonly requests: string[];
  close(): Promise<void>;
}

/** Serves `/<name>/v<version>/waybill.mjs` for every release added. */
export const startReleaseServer = async (version: string): Promise<ReleaseServer> => {
  const files = new Map<string, Buffer>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const body = files.get(req.url ?? "");
    if (req.method !== "GET" || !body) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    add: (name, file) => {
      files.set(`/${name}/v${version}/waybill.mjs`, file);
      return { url: `${url}/${name}`, sha256: createHash("sha256").update(file).digest("hex") };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** A stand-in for the single file that exits with `code` whatever it is asked. */
export const exitingRelease = (code: number): Buffer =>
  Buffer.from(
    `#!/usr/bin/env node\nconsole.error("stand-in waybill exits ${code}");\nprocess.exit(${code});\n`,
  );

/** The folder of stand-in programs (`gh`), and the runner's PATH with it and without Waybill. */
export const makeRunnerPath = async (tmp: TempDir): Promise<string> => {
  const gh = await tmp.write("stand-in-bin/gh", GH_STAND_IN);
  await chmod(gh, 0o755);
  return pathWithoutWaybill(tmp.path("stand-in-bin"));
};

/**
 * What a user edits when copying a recipe: the three pinned install values, each on one
 * line of the file. A value that is an expression (`${{ vars.X }}`) is left as the recipe
 * has it: the repository setting it reads is then given instead (the harness's vars).
 */
export const pinRelease = (
  text: string,
  release: { readonly url: string; readonly sha256: string },
): string => {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  if (count(/^\s*WAYBILL_SHA256:/gm) !== 1) {
    throw new Error("a recipe must pin WAYBILL_SHA256 on exactly one line");
  }
  return text
    .replace(/^(\s*WAYBILL_SHA256:\s*)"[^"]*"/m, `$1"${release.sha256}"`)
    .replace(/^(\s*WAYBILL_RELEASE_URL:\s*)(?!\$\{\{)("[^"]*"|\S+)/m, `$1"${release.url}"`);
};

export const newTempDir = (): Promise<TempDir> => makeTempDir("waybill-recipes-");
