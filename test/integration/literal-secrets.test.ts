/**
 * Secrets written in clear in the YAML (issue 43, design.md §5 "Secrets and files"):
 * `validate` warns, at FILE:LINE:COL and without the value, about a literal value in a
 * secret-only field (a webhook's signing_secret, an exporter header value) and about an env
 * value shaped like a well-known token; `validate --strict` refuses them (exit 1); `plan`
 * repeats each warning once. A plain env value (a region) says nothing.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { literalSecretWarning } from "../../src/config/references.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const GH = `ghp_${"A1b2C3d4E5".repeat(3)}Zz9Yy8`;
const AWS = "AKIAQ3EXAMPLE7KEY2ID";
const SLACK_BOT = "xoxb-1234567890-0987654321-Abc1Def2Ghi3";
const SLACK_HOOK = "https://hooks.slack.com/services/T0LIT/B0LIT/L1teralH00kT0ken9";
const SIGNING = "literal-signing-secret-Q1w2E3r4";
const HEADER = "literal-honeycomb-key-Z9x8C7v6";
const VALUES = [GH, AWS, SLACK_BOT, SLACK_HOOK, SIGNING, HEADER];

const config = `org: gh/acme
otel_exporters:
  - endpoint: api.honeycomb.io:443
    protocol: grpc
    headers:
      x-honeycomb-team: ${HEADER}
projects:
  gh/acme/api:
    env:
      AWS_REGION: eu-west-1
      GH_TOKEN: ${GH}
      AWS_ACCESS_KEY_ID: ${AWS}
      SLACK_BOT: ${SLACK_BOT}
      SLACK_HOOK: ${SLACK_HOOK}
      FROM_ENV: \${env:FROM_ENV}
    webhooks:
      slack:
        url: https://hooks.example.com/services/T0
        events: [workflow-completed]
        signing_secret: ${SIGNING}
`;

/** FILE:LINE:COL of each literal, in file order. */
const PLACES = ["6:25", "11:17", "12:26", "13:18", "14:19", "20:25"];

const seed = (): Seed => ({ orgs: [{ slug: "gh/acme", projects: [{ slug: "gh/acme/api" }] }] });

describe("literal secrets", () => {
  const suite = useEmulatorSuite(seed, { config: { name: "waybill.yaml", content: config } });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
    FROM_ENV: "from-the-environment-value",
  });
  const warningLines = (stderr: string) =>
    stderr.split("\n").filter((l) => l.startsWith("Warning:") && l.includes("in clear"));

  it("validate warns at FILE:LINE:COL without the value; --strict refuses; plan repeats each once", async () => {
    const v = await runInProcess(["validate", "-c", suite.files.config], env(), {
      secrets: VALUES,
    });
    expect(v.code, v.stderr).toBe(0);
    const lines = warningLines(v.stderr);
    expect(lines.map((l) => /:(\d+:\d+): /.exec(l)?.[1])).toEqual(PLACES);
    for (const l of lines) expect(l).toContain(suite.files.config);
    expect(v.stderr).toContain("looks like a GitHub token");
    expect(v.stderr).toContain("looks like an AWS access key id");
    expect(v.stderr).toContain("a webhook's signing_secret is written in clear");
    expect(v.stderr).toContain("an exporter header value is written in clear");
    expect(v.stderr).not.toContain("AWS_REGION");

    const strict = await runInProcess(["validate", "-c", suite.files.config, "--strict"], env(), {
      secrets: VALUES,
    });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("6 problems found; the config is invalid");
    expect(strict.stderr).toContain(`${suite.files.config}:11:17`);

    const json = await runInProcess(
      ["validate", "-c", suite.files.config, "--format", "json", "--strict"],
      env(),
      { secrets: VALUES },
    );
    const doc = JSON.parse(json.stdout) as { valid: boolean; diagnostics: { code: string }[] };
    expect(doc.valid).toBe(false);
    expect(doc.diagnostics.map((d) => d.code)).toEqual(PLACES.map(() => "literal_secret"));

    const github = await runInProcess(
      ["validate", "-c", suite.files.config, "--format", "github"],
      env(),
      { secrets: VALUES },
    );
    expect(github.code).toBe(0);
    expect(github.stdout.match(/^::warning file=/gm)?.length).toBe(6);

    const plan = await runInProcess(["plan", "-c", suite.files.config], env(), {
      secrets: VALUES,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(warningLines(plan.stderr).map((l) => /:(\d+:\d+): /.exec(l)?.[1])).toEqual(PLACES);
  });

  it("the warning of each secret-only field, and of token shapes only for env values", () => {
    expect(literalSecretWarning("webhook_secret", "x")).toContain(
      "a webhook trigger's secret is written in clear",
    );
    expect(literalSecretWarning("env", "eu-west-1")).toBeUndefined();
    expect(literalSecretWarning("env", `github_pat_${"a".repeat(30)}`)).toContain("fine-grained");
    expect(literalSecretWarning("url", SLACK_HOOK)).toBeUndefined();
    for (const v of VALUES) expect(literalSecretWarning("header", v)).not.toContain(v);
  });
});
