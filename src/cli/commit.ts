/**
 * The commit a plan was made from, for the Markdown comment (issue 46: a reviewer sees which
 * commit, config and org a comment is about). CI systems name it in the environment; else
 * `git rev-parse HEAD` in the config's folder. Either is data to check: only a hex object
 * name is taken, shown short. Unknown (no CI variable, no git, not a repository): left out.
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { dirname } from "node:path";

/** GitHub Actions, GitLab CI, CircleCI, Buildkite, Jenkins. */
const COMMIT_VARIABLES = [
  "GITHUB_SHA",
  "CI_COMMIT_SHA",
  "CIRCLE_SHA1",
  "BUILDKITE_COMMIT",
  "GIT_COMMIT",
];
const OBJECT_NAME = /^[0-9a-f]{7,64}$/i;

const short = (sha: string): string => sha.slice(0, 12).toLowerCase();

export const commitOf = (
  env: Readonly<Record<string, string | undefined>>,
  configPath: string | readonly string[],
): string | undefined => {
  for (const name of COMMIT_VARIABLES) {
    const v = env[name]?.trim();
    if (v !== undefined && OBJECT_NAME.test(v)) return short(v);
  }
  const first = typeof configPath === "string" ? configPath : configPath[0];
  if (first === undefined) return undefined;
  try {
    const folder = statSync(first).isDirectory() ? first : dirname(first);
    const out = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: folder,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 3000,
    }).trim();
    return OBJECT_NAME.test(out) ? short(out) : undefined;
  } catch {
    return undefined;
  }
};

/** The config as the comment names it: the path given, or the paths joined. */
export const configLabel = (configPath: string | readonly string[]): string =>
  typeof configPath === "string" ? configPath : configPath.join(", ");
