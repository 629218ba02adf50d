/**
 * `ignore_fields` against the emulator (issue 41): a security setting ignored in the config
 * and turned on by hand is neither changed nor pulled, but drift counts it ("1 ignored field
 * differs") and every command warns about the entry until it says `acknowledge: true`.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { API_ID, baseSeed, matchingConfig, matchingEnv } from "./plan-fixture.js";

const FIELD = 'project["*"].settings.can_pass_secrets_to_fork_pr_jobs';
const withIgnored = (entry: string) =>
  matchingConfig
    .replace(
      "      enable_auto_cancel_redundant_workflows: false\n",
      "      enable_auto_cancel_redundant_workflows: false\n      can_pass_secrets_to_fork_pr_jobs: false\n",
    )
    .replace("ignore:\n", `ignore_fields:\n  - ${entry}\nignore:\n`);

describe("ignore_fields and drift", () => {
  const suite = useEmulatorSuite(baseSeed, {
    plain: { name: "plain.yaml", content: withIgnored(`'${FIELD}'`) },
    acked: {
      name: "acked/waybill.yaml",
      content: withIgnored(`{ field: '${FIELD}', acknowledge: true }`),
    },
  });
  const cli = (args: string[], config: string) =>
    runCli([...args, "-c", config], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
    });

  it("counts an ignored security setting turned on by hand, and warns until acknowledged", async () => {
    const set = await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/update-settings`, {
      can_pass_secrets_to_fork_pr_jobs: true,
    });
    expect(set.status).toBe(200);
    const drift = await cli(["drift"], suite.files.plain);
    expect(drift.stdout + drift.stderr).toMatch(
      /No drift: the service matches the config \(1 ignored field differs\)/,
    );
    expect(drift.stderr).toMatch(
      /plain\.yaml:\d+:\d+: ignore_fields hides can_pass_secrets_to_fork_pr_jobs/,
    );
    const json = await cli(["plan", "--format", "json"], suite.files.plain);
    expect(JSON.parse(json.stdout).ignored_fields).toEqual([
      { address: 'project["gh/acme/api"].settings', path: "can_pass_secrets_to_fork_pr_jobs" },
    ]);
    const acked = await cli(["drift"], suite.files.acked);
    expect(acked.stderr).not.toMatch(/ignore_fields hides/);
    expect(acked.stdout + acked.stderr).toMatch(/1 ignored field differs/);
  });
});
