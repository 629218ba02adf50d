/**
 * The live state a service would hold right after applying `desired`: what a plan on it
 * must find empty. Ids are derived from names; defaults are what the service fills in.
 */

import { isSecret } from "../../src/core/secret.js";
import type { LiveWebhook } from "../../src/kinds/webhook.js";
import type { DesiredConfig, DesiredRestriction } from "../../src/model/desired.js";
import type {
  LiveContext,
  LiveOrg,
  LivePipeline,
  LiveProject,
  LiveRestriction,
  LiveState,
  LiveTrigger,
} from "../../src/model/live.js";

const restriction = (r: DesiredRestriction, orgId: string, i: number): LiveRestriction => {
  switch (r.type) {
    case "project":
      return {
        id: `r${i}`,
        restriction_type: "project",
        match_pattern: `prj:${r.project}`,
        key_value: r.project,
      };
    case "expression":
      return {
        id: `r${i}`,
        restriction_type: "expression",
        match_pattern: r.expression,
        key_value: r.expression,
      };
    case "group":
      return {
        id: `r${i}`,
        restriction_type: "group",
        match_pattern: r.group === "all-members" ? orgId : r.group,
        key_value: r.group,
      };
  }
};

export const liveFromDesired = (d: DesiredConfig): LiveState => ({
  orgs: d.orgs.map((org): LiveOrg => {
    const orgId = `org:${org.slug}`;
    const contexts = org.contexts
      ? [...org.contexts.values()].map(
          (c): LiveContext => ({
            id: `ctx:${c.name}`,
            name: c.name,
            env: [...(c.env?.values() ?? [])].map((e) => ({
              name: e.name,
              truncated_value: e.value.lastFour() ?? "",
            })),
            restrictions: (c.restrictions ?? []).map((r, i) => restriction(r, orgId, i)),
          }),
        )
      : undefined;
    const projects = new Map<string, LiveProject>();
    for (const p of org.projects.values()) {
      const webhooks = [...(p.webhooks?.values() ?? [])].map(
        (w): LiveWebhook => ({
          id: `wh:${w.name}`,
          name: w.name,
          scope: w.scope ?? "project",
          url: isSecret(w.url) ? w.url.reveal() : w.url,
          events: [...w.events].reverse(),
          should_verify_tls: w.should_verify_tls ?? true,
          has_signing_secret: w.signing_secret !== undefined,
          is_enabled: w.is_enabled ?? true,
        }),
      );
      const pipelines: LivePipeline[] = [];
      const triggers: LiveTrigger[] = [];
      for (const pl of p.pipelines?.values() ?? []) {
        const id = `pl:${pl.name}`;
        pipelines.push({
          id,
          name: pl.name,
          ...(pl.description === undefined ? {} : { description: pl.description }),
          config: { file_type: "yaml", ...pl.config },
          ...(pl.checkout === undefined ? {} : { checkout: pl.checkout }),
          synthetic: false,
        });
        for (const t of pl.triggers?.values() ?? []) {
          const ev = t.event;
          triggers.push({
            id: `tr:${pl.name}:${t.key}`,
            pipeline_id: id,
            is_disabled: t.is_disabled ?? false,
            ...(t.config === undefined ? {} : { config: t.config }),
            ...(t.checkout === undefined ? {} : { checkout: t.checkout }),
            event: {
              type: ev.type,
              ...(ev.vcs === undefined ? {} : { vcs: ev.vcs }),
              ...(ev.type === "webhook"
                ? { webhook: { name: t.key, source: ev.webhook?.source ?? "ext" } }
                : {}),
              ...(ev.type === "schedule"
                ? {
                    schedule: {
                      name: t.key,
                      cron_expression: ev.schedule?.cron_expression ?? "0 0 * * *",
                      attribution_actor: ev.schedule?.attribution_actor ?? "system",
                    },
                  }
                : {}),
              ...(ev.filter === undefined ? {} : { filter: ev.filter }),
            },
            ...(t.parameters === undefined ? {} : { parameters: t.parameters }),
            synthetic: false,
          });
        }
      }
      // The synthetic OAuth pipeline and trigger are always listed and never planned.
      pipelines.push({
        id: `syn:${p.slug}`,
        name: "OAuth pipeline",
        config: { type: "vcs", file_path: ".service/config.yml" },
        synthetic: true,
      });
      triggers.push({
        id: `syn-tr:${p.slug}`,
        pipeline_id: `syn:${p.slug}`,
        is_disabled: false,
        event: { type: "vcs" },
        synthetic: true,
      });
      projects.set(p.slug, {
        status: "found",
        id: `prj:${p.slug}`,
        slug: p.slug,
        settings: {
          ...Object.fromEntries(Object.entries(p.settings ?? {}).filter(([k]) => k !== "source")),
        } as LiveProject["settings"] & object,
        env: [...(p.env?.values() ?? [])].map((e) => ({
          name: e.name,
          truncated_value: e.value.lastFour() ?? "",
        })),
        webhooks,
        pipelines,
        triggers,
      });
    }
    const projectIds = new Map<string, string>();
    for (const c of org.contexts?.values() ?? []) {
      for (const r of c.restrictions ?? []) {
        if (r.type === "project") projectIds.set(r.project, `prj:${r.project}`);
      }
    }
    return {
      status: "found",
      id: orgId,
      slug: org.slug,
      settings: Object.fromEntries(
        Object.entries(org.settings ?? {}).filter(([k]) => k !== "source"),
      ) as Record<string, boolean>,
      ...(contexts === undefined ? {} : { contexts }),
      projects,
      projectIds,
    };
  }),
});
