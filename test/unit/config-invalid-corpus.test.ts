/**
 * The invalid-config corpus (issue 3 "Done when"): every `test/fixtures/invalid/*.expected.json`
 * names a config (file or folder) and the exact diagnostics it must produce — file, line,
 * column, path, code and message, all of them, in order. Each case also checks that no
 * secret value (from the environment or from a `${file:}`) appears anywhere in the output.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ConfigDiagnostic,
  ConfigError,
  formatDiagnostic,
  loadConfig,
} from "../../src/config/index.js";
import { readGolden } from "../helpers/every-kind.js";

const DIR = "test/fixtures/invalid";

/** Values the fixtures reference; none of them may ever be printed. */
const ENV: Readonly<Record<string, string>> = {
  PROD_SECRET: "S3CR3T-prod-4f9a1c",
  NPM_TOKEN: "S3CR3T-npm-77c1d0",
  SLACK_SECRET: "S3CR3T-slack-0b2e55",
  HTTP_HOOK_URL: "http://S3CR3T-hook.example.com/x",
  EMPTY_VAR: "",
};
const FILE_SECRET = "FILESECRET-9d2c7e"; // inside test/fixtures/invalid/secrets/deploy.pem
/** A literal env value next to a YAML syntax error (yaml-stray-token.yaml): never echoed. */
const LITERAL_SECRET = "literal-value-here"; // in yaml-stray-token.yaml
const SECRETS = [
  ...Object.values(ENV).filter((v) => v !== ""),
  FILE_SECRET,
  LITERAL_SECRET,
  "S3CR3T",
];

interface Expected {
  readonly config: string;
  readonly options?: { readonly maxFileBytes?: number };
  readonly diagnostics: readonly ConfigDiagnostic[];
}

const cases = readdirSync(DIR)
  .filter((f) => f.endsWith(".expected.json"))
  .sort()
  .map((f) => ({
    name: f.replace(/\.expected\.json$/, ""),
    // A message that lists every kind is written with placeholders (test/helpers/every-kind.ts).
    expected: readGolden<Expected>(join(DIR, f)),
  }));

describe("invalid config corpus", () => {
  it("holds at least 40 cases, each naming an existing config", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const entries = new Set(readdirSync(DIR));
    for (const c of cases) expect(entries.has(c.expected.config), c.name).toBe(true);
  });

  it("covers every kind of problem the issue lists", () => {
    const codes = new Set(cases.flatMap((c) => c.expected.diagnostics.map((d) => d.code)));
    for (const code of [
      "yaml_syntax",
      "wrong_type",
      "unknown_key",
      "duplicate_key",
      "duplicate_address",
      "not_https",
      "invalid_cron",
      "parameters_not_allowed",
      "too_many_webhooks",
      "alias_limit",
      "file_too_large",
      "binary_file",
      "empty_file",
      "env_missing",
      "secret_file_unreadable",
      "secret_file_outside",
      "checkout_required",
      "webhook_secret_required",
      "empty_env_value",
      "masked_value",
      "invalid_ignore_glob",
      "not_utf8",
    ]) {
      expect(codes.has(code as ConfigDiagnostic["code"]), code).toBe(true);
    }
  });

  it.each(cases)("$name", async ({ expected }) => {
    const result = await loadConfig(join(DIR, expected.config), {
      env: ENV,
      ...(expected.options?.maxFileBytes !== undefined && {
        maxFileBytes: expected.options.maxFileBytes,
      }),
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const got = result.diagnostics.map((d) => ({ ...d, file: relative(DIR, d.file) }));
    expect(got).toEqual(expected.diagnostics);

    const error = new ConfigError(result.diagnostics);
    expect(error.code).toBe("config_invalid");
    expect(error.message).toBe(result.diagnostics.map(formatDiagnostic).join("\n"));
    expect(error.message.split("\n")[0]).toMatch(/^test\/fixtures\/invalid\/.+:\d+:\d+: /);

    const everything = [error.message, JSON.stringify(result.diagnostics)].join("\n");
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});
