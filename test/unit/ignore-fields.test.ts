/**
 * `ignore_fields` entries (issue 41): the field is checked against the kind's fields with a
 * "did you mean"; a `*` matches within one key, never across steps into another kind; an
 * entry hiding a field that widens access is flagged (a warning unless acknowledged); a long
 * entry is checked in one pass.
 */
import { describe, expect, it } from "vitest";
import {
  checkIgnoreFieldEntry,
  checkIgnoreFieldGlob,
  ignoreFieldWarnings,
} from "../../src/config/ignore-glob.js";
import { loadConfig } from "../../src/config/load.js";
import { fieldIgnoredMatcher } from "../../src/plan/ignore-fields.js";
import { writeTempConfig } from "../helpers/cli.js";

describe("ignore_fields entries", () => {
  it("name a field of the kind, with a did-you-mean", () => {
    expect(checkIgnoreFieldGlob('project["*"].webhook["*"].is_enabled')).toBeUndefined();
    expect(checkIgnoreFieldGlob('project["*"].settings.enable_dynamic_config')).toBeUndefined();
    expect(checkIgnoreFieldGlob("org_settings.enable_ai_agents")).toBeUndefined();
    expect(checkIgnoreFieldGlob('project["*"].pipeline["*"].trigger["*"].event')).toBeUndefined();
    expect(checkIgnoreFieldGlob('context["*"].env["*"].value')).toBeUndefined();
    expect(checkIgnoreFieldGlob('project["*"].url')).toMatch(/project has no field "url"/);
    expect(checkIgnoreFieldGlob('project["*"].webhook["*"].is_enabeld')).toMatch(
      /did you mean is_enabled\?/,
    );
    expect(checkIgnoreFieldGlob("org_settings.enable_ai_agent")).toMatch(
      /did you mean enable_ai_agents\?/,
    );
    expect(checkIgnoreFieldGlob('projet["*"].webhook["*"].url')).toMatch(/did you mean project\?/);
    expect(checkIgnoreFieldGlob('project["*"].webhook["*"]')).toMatch(/no field name/);
  });

  it("match with * inside one step only: never another kind's field", () => {
    const byProject = fieldIgnoredMatcher(['project["*"].url']);
    expect(byProject('project["gh/acme/api"].webhook["slack"]', "url")).toBe(false);
    const byWebhook = fieldIgnoredMatcher(['project["*"].webhook["*"].url']);
    expect(byWebhook('project["gh/acme/api"].webhook["slack"]', "url")).toBe(true);
    expect(byWebhook('project["gh/acme/api"].webhook["slack"]', "events")).toBe(false);
    const trigger = fieldIgnoredMatcher(['project["*"].pipeline["*"].trigger["n*"].event']);
    expect(
      trigger('project["a"].pipeline["b"].trigger["nightly"]', "event.schedule.cron_expression"),
    ).toBe(true);
    expect(trigger('project["a"].pipeline["b"].trigger["other"]', "event")).toBe(false);
    const settings = fieldIgnoredMatcher(['project["gh/*"].settings.is_oss']);
    expect(settings('project["gh/acme/api"].settings', "is_oss")).toBe(true);
    expect(settings('project["bb/acme/api"].settings', "is_oss")).toBe(false);
  });

  it("flag an entry that hides a field widening access, unless it says acknowledge: true", async () => {
    const entry = 'project["*"].settings.can_pass_secrets_to_fork_pr_jobs';
    expect(checkIgnoreFieldEntry(entry)).toEqual({
      ok: true,
      security: "can_pass_secrets_to_fork_pr_jobs",
    });
    const { tmp, configPath } = await writeTempConfig(
      `org: gh/acme\nignore_fields:\n  - '${entry}'\n  - { field: 'project["*"].webhook["*"].url', acknowledge: true }\n  - 'project["*"].webhook["*"].is_enabled'\n`,
    );
    try {
      const r = await loadConfig(configPath, { env: {} });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const warnings = ignoreFieldWarnings(r.config);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /waybill\.yaml:3:5: ignore_fields hides can_pass_secrets_to_fork_pr_jobs/,
      );
      expect(warnings[0]).toContain("acknowledge: true");
      expect(r.config.orgs[0]?.ignore_fields).toEqual([
        entry,
        'project["*"].webhook["*"].url',
        'project["*"].webhook["*"].is_enabled',
      ]);
    } finally {
      await tmp.remove();
    }
  });

  it("check a 150 KB entry in one pass (no step copies the rest of the text)", () => {
    const long = `project["${"a*".repeat(75_000)}"].webhook["*"].is_enabled`;
    expect(checkIgnoreFieldGlob(long)).toBeUndefined();
    const steps = `project["*"].${"settings.".repeat(15_000)}is_oss`;
    expect(checkIgnoreFieldGlob(steps)).toMatch(/settings/);
  });
});
