/**
 * Where drift lands (issue 46; design.md §5 "Drift"): `drift --format slack`, a Slack Block
 * Kit message, and `--format webhook`, one JSON document whose schema is published in
 * `schemas/drift-webhook.schema.json` (and `waybill schema drift-webhook`). Both are made
 * from the masked, sanitized plan (src/cli/drift.ts renderDrift): a secret is `(sensitive)`
 * and a credential URL shows scheme and host only, as in every other rendering.
 */
import type { UnmanagedItem } from "../live/unmanaged.js";
import type { Plan } from "../plan/types.js";
import { formatValue } from "../render/common.js";
import type { DriftExtras } from "./drift.js";

type DriftChange = Plan["changes"][number];

/** How a change stands against the baseline: `drift` when none was given. */
const statusOf = (c: DriftChange, extras: DriftExtras): "new" | "known" | "drift" => {
  const b = extras.baseline;
  if (b === undefined) return "drift";
  return b.verdict.known.includes(c) ? "known" : "new";
};

const firstSeenOf = (c: DriftChange, extras: DriftExtras): string | undefined =>
  extras.baseline?.firstSeen.get(`${c.org}\u0000${c.address}`);

/** The webhook document (schemas/drift-webhook.schema.json). */
export const driftWebhookDocument = (
  plan: Plan,
  unmanaged: readonly UnmanagedItem[],
  extras: DriftExtras,
) => {
  const b = extras.baseline;
  const fresh = b === undefined ? plan.changes.length : b.verdict.fresh.length;
  return {
    kind: "waybill.drift",
    format_version: 1,
    drift: plan.changes.length > 0,
    new_drift: fresh > 0,
    orgs: plan.orgs.map((o) => ({ slug: o.slug, id: o.id })),
    summary: {
      differences: plan.changes.length,
      new: fresh,
      known: b === undefined ? 0 : b.verdict.known.length,
      unmanaged: unmanaged.length,
      stale_baseline_entries: b === undefined ? 0 : b.verdict.stale.length,
    },
    ...(extras.coverage !== undefined ? { coverage: extras.coverage } : {}),
    differences: plan.changes.map((c) => {
      const seen = firstSeenOf(c, extras);
      return {
        org: c.org,
        address: c.address,
        resource_type: c.resource_type,
        action: c.action,
        status: statusOf(c, extras),
        ...(seen !== undefined ? { first_seen: seen } : {}),
        fields: c.fields.map((f) => ({
          path: f.path,
          live: f.before,
          config: f.after,
          ...(f.sensitive ? { sensitive: true } : {}),
        })),
      };
    }),
    unmanaged: unmanaged.map((u) => ({
      address: u.address,
      resource_type: u.resource_type,
      why: u.why,
      ...(u.reason !== undefined ? { reason: u.reason } : {}),
    })),
    stale_baseline_entries: (b?.verdict.stale ?? []).map((e) => ({
      org: e.org,
      address: e.address,
      first_seen: e.first_seen,
    })),
  };
};

export const renderDriftWebhook = (
  plan: Plan,
  unmanaged: readonly UnmanagedItem[],
  extras: DriftExtras,
): string => `${JSON.stringify(driftWebhookDocument(plan, unmanaged, extras), null, 2)}\n`;

/** Slack's mrkdwn escapes (api.slack.com "Formatting text": &, < and > only). */
const slackEscape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Slack refuses a section text over 3,000 characters and a message over 50 blocks. */
const SECTION_LIMIT = 2900;
const MAX_CHANGE_BLOCKS = 40;

const SYMBOL: Readonly<Record<DriftChange["action"], string>> = {
  create: "+",
  update: "~",
  replace: "-/+",
  delete: "-",
};

const changeText = (c: DriftChange, extras: DriftExtras): string => {
  const seen = firstSeenOf(c, extras);
  const status = statusOf(c, extras);
  const tag =
    status === "drift" ? "" : ` _${status}${seen !== undefined ? `, first seen ${seen}` : ""}_`;
  const fields =
    c.action === "update" || c.action === "replace"
      ? c.fields.map(
          (f) =>
            `\n• \`${slackEscape(f.path)}\`: ${slackEscape(formatValue(f.before))} → ${slackEscape(formatValue(f.after))}`,
        )
      : [];
  const text = `\`${SYMBOL[c.action]} ${slackEscape(c.address)}\`${tag}${fields.join("")}`;
  return text.length > SECTION_LIMIT ? `${text.slice(0, SECTION_LIMIT)}…` : text;
};

/** A Block Kit message (a `text` fallback for notifications, then the blocks). */
export const renderDriftSlack = (
  plan: Plan,
  unmanaged: readonly UnmanagedItem[],
  extras: DriftExtras,
): string => {
  const doc = driftWebhookDocument(plan, unmanaged, extras);
  const orgs = plan.orgs.map((o) => o.slug).join(", ");
  const title = !doc.drift
    ? `No drift in ${orgs}`
    : doc.new_drift
      ? `Drift in ${orgs}: ${doc.summary.new} new of ${doc.summary.differences}`
      : `No new drift in ${orgs} (${doc.summary.known} known)`;
  const shown = [...plan.changes]
    .sort(
      (a, b) => Number(statusOf(a, extras) === "known") - Number(statusOf(b, extras) === "known"),
    )
    .slice(0, MAX_CHANGE_BLOCKS);
  const more = plan.changes.length - shown.length;
  const context = [
    ...(extras.coverage !== undefined
      ? [`Coverage: ${extras.coverage.managed} of ${extras.coverage.live} live items managed`]
      : []),
    ...(unmanaged.length > 0 ? [`${unmanaged.length} unmanaged live item(s)`] : []),
    ...(doc.summary.stale_baseline_entries > 0
      ? [
          `${doc.summary.stale_baseline_entries} baseline entr${doc.summary.stale_baseline_entries === 1 ? "y" : "ies"} no longer match`,
        ]
      : []),
  ];
  const blocks = [
    { type: "header", text: { type: "plain_text", text: title.slice(0, 150) } },
    ...shown.map((c) => ({
      type: "section",
      text: { type: "mrkdwn", text: changeText(c, extras) },
    })),
    ...(more > 0
      ? [
          {
            type: "section",
            text: { type: "mrkdwn", text: `…and ${more} more (see \`waybill drift\`)` },
          },
        ]
      : []),
    ...(context.length > 0
      ? [
          {
            type: "context",
            elements: [{ type: "mrkdwn", text: slackEscape(context.join(" · ")) }],
          },
        ]
      : []),
  ];
  return `${JSON.stringify({ text: slackEscape(title), blocks }, null, 2)}\n`;
};
