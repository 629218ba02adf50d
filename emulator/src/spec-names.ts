/**
 * The names the spec defines, written here from the spec itself, not imported from the
 * client (src/core/wire.ts, src/model/): a misreading shared by the client and the emulator
 * would pass every test of both. test/unit/emulator-spec-names.test.ts compares these lists
 * with the client's and with the spec's text, so a divergence fails a test and the spec
 * decides which side is wrong.
 */

// spec: api-v3.md "Resources" — Org settings (singleton), the 18 booleans.
export const ORG_SETTINGS = [
  "is_runner_terms_of_service_accepted",
  "enable_ai_error_summarization",
  "enable_ai_agents",
  "enable_unversioned_config",
  "enable_certified_public_orbs",
  "enable_chunk_ip_ranges",
  "enable_marketing_tracking",
  "enable_minor_ai_features",
  "enable_preferences_tracking",
  "enable_private_orbs",
  "enable_statistics_tracking",
  "enable_uncertified_public_orbs",
  "is_user_checkout_keys_disabled",
  "is_running_disabled",
  "is_privacy_optout_enforced",
  "enable_image_brownouts",
  "is_context_group_restriction_required",
  "enable_resource_class_brownouts",
] as const;

// spec: api-v3.md "Resources" — Project settings (singleton): 12 booleans …
export const PROJECT_BOOL_SETTINGS = [
  "enable_ai_error_summarization",
  "enable_unversioned_config",
  "enable_auto_cancel_redundant_workflows",
  "enable_building_fork_prs",
  "is_build_prs_only",
  "is_ssh_disabled",
  "is_running_disabled",
  "can_pass_secrets_to_fork_pr_jobs",
  "is_oss",
  "can_set_github_status",
  "enable_dynamic_config",
  "is_admin_required_for_writing_settings",
] as const;
// … and `pr_only_branch_overrides` (array of string).
export const PROJECT_LIST_SETTING = "pr_only_branch_overrides";

// spec: api-v3.md "Resources" — Webhook: `events` (array of `workflow-completed` | `job-completed`).
export const WEBHOOK_EVENT_NAMES = ["workflow-completed", "job-completed"] as const;

// spec: api-v3.md "Resources" — Context restriction: `restriction_type` (`project` |
// `expression` | `group`); POST /context-restrictions: 400 (invalid restriction type).
export const RESTRICTION_TYPES = ["project", "expression", "group"] as const;

// spec: api-v3.md "Resources" — Trigger: `event` { `type`, `vcs`, `webhook`, `schedule` }.
export const TRIGGER_EVENT_TYPES = ["vcs", "webhook", "schedule"] as const;

// spec: api-v2-v1.md "Enumerations" — trigger `event_preset` values (the V3 trigger's
// `filter.preset` is the same setting).
export const EVENT_PRESETS = [
  "all-pushes",
  "only-tags",
  "default-branch-pushes",
  "only-build-prs",
  "only-open-prs",
  "only-labeled-prs",
  "only-merged-prs",
  "only-ready-for-review-prs",
  "only-branch-delete",
  "only-build-pushes-to-non-draft-prs",
  "only-merged-or-closed-prs",
  "pr-comment-equals-run-ci",
] as const;
