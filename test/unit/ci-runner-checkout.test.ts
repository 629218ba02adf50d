/**
 * The CI recipes' checkout stand-in (test/helpers/ci-runner/process.ts `checkoutCommit`):
 * the first checkout of a commit is fetched with git and kept; a later checkout of the same
 * commit copies the kept one, and must leave the workspace a fresh fetch leaves (the files
 * at the commit, a detached HEAD there, the `origin` remote, a clean status). A branch name
 * is fetched every time (what it names can move), and so is a checkout into a folder that
 * is not empty.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutCommit, runProcess } from "../helpers/ci-runner/process.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";

const REMOTE = "https://github.com/acme/platform.git";

describe("the checkout stand-in", () => {
  let tmp: TempDir;
  let origin: string;
  let sha: string;
  let env: Record<string, string>;
  const git = async (cwd: string, ...args: string[]): Promise<string> => {
    const r = await runProcess(["git", ...args], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    tmp = await makeTempDir("waybill-checkout-");
    env = {
      PATH: process.env.PATH ?? "",
      HOME: tmp.path("home"),
      GIT_AUTHOR_NAME: "alice",
      GIT_AUTHOR_EMAIL: "alice@example.com",
      GIT_COMMITTER_NAME: "alice",
      GIT_COMMITTER_EMAIL: "alice@example.com",
    };
    const src = tmp.path("src");
    await tmp.write("src/infra/waybill.yaml", "org: gh/acme\n");
    await tmp.write("src/README.md", "first\n");
    await git(tmp.dir, "init", "-q", "-b", "main", src);
    await git(src, "add", "-A");
    await git(src, "commit", "-q", "-m", "first");
    sha = await git(src, "rev-parse", "HEAD");
    origin = tmp.path("origin.git");
    await git(tmp.dir, "clone", "-q", "--bare", src, origin);
    await git(origin, "config", "uploadpack.allowAnySHA1InWant", "true");
    // The runner's git reaches the GitHub URL through its HOME, as the runners set it up.
    await tmp.write("home/.gitconfig", `[url "file://${origin}"]\n\tinsteadOf = ${REMOTE}\n`);
  });
  afterAll(() => tmp?.remove());

  const checkout = (target: string, ref = sha) =>
    checkoutCommit({ target: tmp.path(target), origin, remote: REMOTE, ref, env });

  /** What a job sees of its workspace. */
  const seen = async (target: string) => ({
    head: await git(tmp.path(target), "rev-parse", "HEAD"),
    detached: await git(tmp.path(target), "rev-parse", "--abbrev-ref", "HEAD"),
    // As written in .git/config (`remote get-url` would show the insteadOf rewrite).
    remote: await git(tmp.path(target), "config", "--get", "remote.origin.url"),
    status: await git(tmp.path(target), "status", "--porcelain"),
    files: (await readdir(tmp.path(target))).sort(),
    config: await readFile(tmp.path(`${target}/infra/waybill.yaml`), "utf8"),
  });

  it("a second checkout of a commit is the kept copy, and the same workspace as a fetch", async () => {
    expect((await checkout("fetched")).code).toBe(0);
    const kept = await readdir(`${origin}.checkouts`);
    expect(kept).toHaveLength(1);
    // A mark in the kept copy's .git shows the second checkout came from it, not from git.
    await writeFile(join(`${origin}.checkouts`, kept[0] as string, ".git", "kept-mark"), "");
    expect((await checkout("copied")).code).toBe(0);
    expect(await readdir(tmp.path("copied/.git"))).toContain("kept-mark");

    const fresh = await seen("fetched");
    expect(fresh).toMatchObject({ head: sha, detached: "HEAD", remote: REMOTE, status: "" });
    expect(fresh.config).toBe("org: gh/acme\n");
    const copy = await seen("copied");
    expect(copy).toEqual(fresh);
  });

  it("a branch name is fetched every time; so is a checkout into a folder that is not empty", async () => {
    const before = await readdir(`${origin}.checkouts`);
    expect((await checkout("by-branch", "main")).code).toBe(0);
    expect((await seen("by-branch")).head).toBe(sha);
    expect(await readdir(tmp.path("by-branch/.git"))).not.toContain("kept-mark");
    await tmp.write("busy/left-over.txt", "from an earlier step\n");
    expect((await checkout("busy")).code).toBe(0);
    expect(await readdir(tmp.path("busy/.git"))).not.toContain("kept-mark");
    expect((await seen("busy")).head).toBe(sha);
    expect(await readdir(`${origin}.checkouts`)).toEqual(before);
  });

  it("a commit git cannot fetch fails the step, and nothing is kept for it", async () => {
    const r = await checkout("missing", "0".repeat(40));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^git fetch -q --depth 1 origin 0{40}: /);
    expect(await readdir(`${origin}.checkouts`)).toHaveLength(1);
  });
});
