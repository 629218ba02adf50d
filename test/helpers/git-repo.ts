/**
 * A git repository for the `--changed-since` tests: the folder's files as they are now,
 * committed as the base (by a fixed author, whatever the machine's git config), and tagged
 * when a tag is given. git runs without a shell; a failure throws with git's stderr.
 */
import { execFileSync } from "node:child_process";

export const commitBase = (dir: string, tag?: string): void => {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "base");
  if (tag !== undefined) git("tag", tag);
};
