/**
 * `on: config` policies in `waybill validate` (offline, no request at all), and the
 * problems of `policies:`, `exceptions:` and `guards:` themselves, reported at FILE:LINE:COL
 * like every config error. The README's example of the five rules is valid and passes.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, REPO_ROOT, runCli, type TempDir } from "../helpers/cli.js";

const base = `org: gh/acme
contexts:
  prod-db:
    restrictions: []
  dev: {}
`;

const restricted = (level: string) => `policies:
  - id: prod-restricted
    level: ${level}
    on: config
    address: context["prod-*"]
    count: restriction
    min: 1
`;

describe("waybill validate: on: config policies", () => {
  let tmp: TempDir;
  beforeAll(async () => {
    tmp = await makeTempDir("waybill-policy-validate-");
  });
  afterAll(async () => {
    await tmp?.remove();
  });
  const validate = async (name: string, text: string, ...more: string[]) =>
    runCli(["validate", "-c", await tmp.write(name, text), ...more]);

  it("level error: exit 1, the violation at the item's and the rule's FILE:LINE:COL", async () => {
    const r = await validate("error.yaml", base + restricted("error"));
    expect(r.code).toBe(1);
    const file = join(tmp.dir, "error.yaml");
    expect(r.stderr).toContain(
      `Error: policy prod-restricted: context["prod-db"] must have at least 1 restriction item(s) (it has 0) (item at ${file}:3:3; rule at ${file}:7:5)`,
    );
    const gh = await validate("error.yaml", base + restricted("error"), "--format", "github");
    expect(gh.stdout).toMatch(
      new RegExp(
        `^::error file=${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")},line=3,col=3,title=waybill policy prod-restricted::`,
      ),
    );
  });

  it("level warn: printed, exit 0", async () => {
    const r = await validate("warn.yaml", base + restricted("warn"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Warning: policy prod-restricted: /m);
    expect(r.stdout).toMatch(/^OK: /);
    const json = await validate("warn.yaml", base + restricted("warn"), "--format", "json");
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      policy_violations: [{ rule: "prod-restricted", level: "warn", on: "config" }],
    });
  });

  it("an expired exception fails; a current one waives", async () => {
    const exception = (expires: string) =>
      `exceptions:\n  - rule: prod-restricted\n    address: context["prod-db"]\n    reason: migration OPS-7\n    expires: ${expires}\n`;
    const current = await validate(
      "current.yaml",
      base + restricted("error") + exception("2999-12-31"),
    );
    expect(current.code, current.stderr).toBe(0);
    const expired = await validate(
      "expired.yaml",
      base + restricted("error") + exception("2020-01-31"),
    );
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(
      /policy prod-restricted: the exception for context\["prod-db"\] \("migration OPS-7"\) expired on 2020-01-31.*\(exception at .*expired\.yaml:14:5\)/,
    );
  });

  it("expect_match: a rule whose glob matches nothing fails", async () => {
    const rotted = `policies:\n  - id: staging\n    level: warn\n    on: config\n    address: context["staging-*"]\n    expect_match: true\n`;
    const r = await validate("rotted.yaml", base + rotted);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rule staging matched no item: its address context\["staging-\*"\]/);
  });

  it.each([
    [
      "a field without an operator",
      `policies:\n  - { id: a, on: config, address: 'context["x"]', field: name }\n`,
      /policies\.0\.field: a field condition takes exactly one of equals/,
    ],
    [
      "two operators",
      `policies:\n  - { id: a, on: config, address: 'context["x"]', field: name, equals: x, absent: true }\n`,
      /exactly one of .* \(this rule has equals, absent\)/,
    ],
    [
      "a regular expression that does not compile",
      `policies:\n  - { id: a, on: config, address: 'context["x"]', field: name, matches: "(" }\n`,
      /policies\.0\.matches: not a regular expression/,
    ],
    [
      "a regular expression that backtracks without bound on a hostile live value",
      `policies:\n  - { id: a, on: config, address: 'context["x"]', field: name, matches: "^(a+)+$" }\n`,
      /policies\.0\.matches: the pattern has a repeated group that repeats inside/,
    ],
    [
      "actions on a config rule",
      `policies:\n  - { id: a, on: config, address: 'context["x"]', actions: [delete] }\n`,
      /policies\.0\.actions: actions selects changes: it needs on: plan/,
    ],
    [
      "an address that is no address glob",
      `policies:\n  - { id: a, on: config, address: 'contexts["x"]' }\n`,
      /policies\.0\.address: /,
    ],
    [
      "a rule id declared twice",
      `policies:\n  - { id: a, on: config, address: 'context["x"]' }\n  - { id: a, on: plan, address: 'context["y"]' }\n`,
      /bad\.yaml:8:5: policies: rule id "a" is declared twice: here and at .*:7:5/,
    ],
    [
      "an exception for no rule",
      `exceptions:\n  - { rule: nope, address: 'context["x"]', reason: r, expires: 2030-01-01 }\n`,
      /no policy rule "nope" \(the config has no policies\)/,
    ],
    [
      "a date that is not in the calendar",
      `policies:\n  - { id: a, on: config, address: 'context["x"]' }\nexceptions:\n  - { rule: a, address: 'context["x"]', reason: r, expires: 2030-02-30 }\n`,
      /exceptions\.0\.expires: 2030-02-30 is not a date of the calendar/,
    ],
    [
      "an unknown risky rule in guards.allow",
      `guards:\n  allow: [everything]\n`,
      /guards\.allow\.0/,
    ],
  ])("refuses %s at its FILE:LINE:COL", async (_, text, message) => {
    const r = await validate("bad.yaml", base + text);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+: /);
  });

  it("the README's five rules are a valid config that passes", async () => {
    const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    const at = readme.indexOf("### Rules a platform team writes");
    const block = /```yaml\n([\s\S]*?)```/.exec(readme.slice(at))?.[1] ?? "";
    expect(block).toMatch(/^policies:/m);
    const r = await validate("readme.yaml", block);
    expect(r.code, r.stderr).toBe(0);
  });

  it("a template key marked final: an item's override is an error at the item's line naming the template's", async () => {
    const template = `org: gh/acme
templates:
  projects:
    service:
      final: [settings.can_pass_secrets_to_fork_pr_jobs]
      settings:
        can_pass_secrets_to_fork_pr_jobs: false
        is_oss: false
projects:
`;
    const item = (settings: string) =>
      `${template}  gh/acme/api:\n    extends: [service]\n    settings:\n${settings}`;
    const overridden = await validate(
      "final.yaml",
      item("      can_pass_secrets_to_fork_pr_jobs: true\n      is_oss: true\n"),
    );
    expect(overridden.code).toBe(1);
    const file = join(tmp.dir, "final.yaml");
    expect(overridden.stderr).toContain(
      `${file}:13:7: projects.gh/acme/api.settings.can_pass_secrets_to_fork_pr_jobs: overrides settings.can_pass_secrets_to_fork_pr_jobs, which template "service" marks final at ${file}:7:9; remove the override (or change the template)`,
    );
    // Only the final key: is_oss, overridden too, is the item's to change.
    expect(overridden.stderr).toMatch(/^1 problem found/m);
    // The same value is no override; removing the map above it with null is one.
    const same = await validate(
      "same.yaml",
      item("      can_pass_secrets_to_fork_pr_jobs: false\n"),
    );
    expect(same.code, same.stderr).toBe(0);
    const removed = await validate(
      "removed.yaml",
      `${template}  gh/acme/api:\n    extends: [service]\n    settings: null\n`,
    );
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(
      /removed\.yaml:12:5: projects\.gh\/acme\/api\.settings: overrides/,
    );
    const unset = await validate(
      "unset.yaml",
      template.replace(
        "final: [settings.can_pass_secrets_to_fork_pr_jobs]",
        "final: [settings.is_ssh_disabled]",
      ),
    );
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(
      /unset\.yaml:5:15: .*final names settings\.is_ssh_disabled, which this template does not set/,
    );
  });

  it("a template listed later in extends cannot override a key an earlier template marks final", async () => {
    const config = (laxValue: string) => `org: gh/acme
templates:
  projects:
    service:
      final: [settings.can_pass_secrets_to_fork_pr_jobs]
      settings:
        can_pass_secrets_to_fork_pr_jobs: false
    lax:
      settings:
        can_pass_secrets_to_fork_pr_jobs: ${laxValue}
        is_oss: true
projects:
  gh/acme/api:
    extends: [service, lax]
`;
    const r = await validate("later.yaml", config("true"));
    expect(r.code).toBe(1);
    const file = join(tmp.dir, "later.yaml");
    expect(r.stderr).toContain(
      `${file}:14:24: projects.gh/acme/api.extends.1: template "lax", listed after "service", overrides settings.can_pass_secrets_to_fork_pr_jobs, which template "service" marks final at ${file}:7:9`,
    );
    // Listed first, lax is overridden by service's value: the final key holds, no error.
    const before = await validate(
      "before.yaml",
      config("true").replace("extends: [service, lax]", "extends: [lax, service]"),
    );
    expect(before.code, before.stderr).toBe(0);
    // The same value is no override.
    const same = await validate("same-later.yaml", config("false"));
    expect(same.code, same.stderr).toBe(0);
  });
});
