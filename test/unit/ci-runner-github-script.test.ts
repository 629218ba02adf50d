/**
 * The CI recipes' stand-in for actions/github-script runs in the test's own process
 * (test/helpers/ci-runner/fake-github.ts `runGitHubScript`), yet a script must see what it
 * sees in a Node process of its own: the step's environment as `process.env` (nothing of
 * this process's), the step's folder as the working folder (relative paths, `require`),
 * its output and exit code as the step's (`core.setFailed`, `process.exit`), and this
 * process's working folder unchanged after it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGitHubScript } from "../helpers/ci-runner/fake-github.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";

describe("github-script's stand-in, in this process", () => {
  let tmp: TempDir;
  let env: Record<string, string>;
  beforeAll(async () => {
    tmp = await makeTempDir("waybill-github-script-");
    const event = await tmp.write("event.json", JSON.stringify({ pull_request: { number: 7 } }));
    // No GitHub call is made below: the API root is never reached.
    env = {
      GITHUB_API_URL: "http://127.0.0.1:9",
      GITHUB_REPOSITORY: "acme/platform",
      GITHUB_EVENT_PATH: event,
      STEP_VALUE: "from the step",
    };
  });
  afterAll(() => tmp?.remove());

  const run = (script: string) => runGitHubScript({ ...env, INPUT_SCRIPT: script }, tmp.dir);

  it("sees the step's environment and folder; reads and writes relative paths there", async () => {
    await writeFile(tmp.path("in.txt"), "input\n");
    const before = process.cwd();
    const r = await run(
      `const fs = require("node:fs");
       fs.writeFileSync("out.txt", fs.readFileSync("in.txt", "utf8").trim() + " " + process.env.STEP_VALUE);
       console.log(process.cwd(), process.env.HOME === undefined, context.issue.number, context.repo.repo);
       process.stdout.write("raw");`,
    );
    expect(r).toEqual({
      code: 0,
      signal: null,
      stdout: `${tmp.dir} true 7 platform\nraw`,
      stderr: "",
    });
    expect(await readFile(tmp.path("out.txt"), "utf8")).toBe("input from the step");
    expect(process.cwd()).toBe(before);
  });

  it("fails the step as a process would: core.setFailed, process.exit, a throw", async () => {
    expect(await run(`core.setFailed("no plan comment");`)).toMatchObject({
      code: 1,
      stderr: "::error::no plan comment\n",
    });
    expect(await run(`console.error("bye"); process.exit(3); console.log("never");`)).toEqual({
      code: 3,
      signal: null,
      stdout: "",
      stderr: "bye\n",
    });
    expect(await run(`await github.rest.pulls.merge({});`)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("github.rest.pulls.merge is not implemented"),
    });
  });

  it("returns what the script returns, as JSON on stdout", async () => {
    expect(await run(`return { digest: "abc" };`)).toMatchObject({
      code: 0,
      stdout: '{"digest":"abc"}\n',
    });
  });
});
