/**
 * Pipelines, i.e. config sources (spec: api-v3.md "Pipeline", Pipelines).
 * `POST /pipelines/:id/update` takes name, description, config.file_path and
 * config.file_type ("only present fields change"); any other change (config.type,
 * config.vcs, config.hosted, checkout.vcs) forces replacement, and replacing a pipeline
 * replaces its triggers (src/plan). The synthetic OAuth pipeline is never touched.
 */
import type { PipelineAttributes, V3Resource } from "../core/wire.js";
import { addr } from "../model/address.js";
import type { DesiredPipeline } from "../model/desired.js";
import type { LivePipeline } from "../model/live.js";
import { call } from "./calls.js";
import { addFields, compareFields, type FieldRule, newComparison } from "./compare.js";
import {
  type DocMap,
  escapeText,
  hasVcs,
  namedEntries,
  type Skip,
  scopeName,
  vcsDoc,
} from "./config-doc.js";
import { defineKind, renamableByName } from "./grouped.js";
import { pageOptions, requireId, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";

export const PIPELINE_CONFIG_TYPES = ["vcs", "hosted"] as const;

export interface RawPipelineConfig {
  type: (typeof PIPELINE_CONFIG_TYPES)[number];
  file_path: string;
  file_type?: string;
  vcs?: RawVcsRepo;
  hosted?: { provider: string };
}

/**
 * A pipeline as written under a project's `pipelines:`, its own keys: `triggers` are its
 * children's (the kind under `pipeline`, whose `config.yamlKey` src/config/raw.ts adds).
 */
export interface RawPipeline {
  id?: string;
  description?: string;
  config: RawPipelineConfig;
  checkout?: { vcs: RawVcsRepo };
}

/** The schema objects of a pipeline, checked against its raw types (src/kinds/raw-keys.ts). */
export const PIPELINE_KEYS = {
  pipeline: keysOf<RawPipeline>()(["id", "description", "config", "checkout"], ["config"]),
  "pipeline/config": keysOf<RawPipelineConfig>()(
    ["type", "file_path", "file_type", "vcs", "hosted"],
    ["type", "file_path"],
  ),
  "pipeline/config/hosted": keysOf<NonNullable<RawPipelineConfig["hosted"]>>()(
    ["provider"],
    ["provider"],
  ),
  "pipeline/checkout": keysOf<NonNullable<RawPipeline["checkout"]>>()(["vcs"], ["vcs"]),
  vcsRepo: VCS_REPO_KEYS,
};

/**
 * A listed pipeline. `synthetic` is false here: the synthetic OAuth pipeline is told apart
 * by a probe (src/live/synthetic.ts), only where it matters.
 */
const toLivePipeline = (p: V3Resource<PipelineAttributes>): LivePipeline => ({
  ...p.attributes,
  id: requireId(p, "pipeline"),
  synthetic: false,
});

import { getPath, type JsonObject, toJsonObject } from "./values.js";
import { buildVcs, lowerUuid, type RawVcsRepo, VCS_REPO_KEYS } from "./vcs.js";

export const PIPELINE_UPDATE_FIELDS = [
  "name",
  "description",
  "config.file_path",
  "config.file_type",
] as const;

const RULES: readonly FieldRule[] = [
  { path: "name", mode: "update" },
  { path: "description", mode: "update" },
  { path: "config.file_path", mode: "update" },
  { path: "config.file_type", mode: "update" },
  { path: "config.type", mode: "replace" },
  { path: "config.vcs", mode: "replace" },
  { path: "config.hosted", mode: "replace" },
  { path: "checkout.vcs", mode: "replace" },
];

const view = (p: {
  name: string;
  description?: string;
  config: object;
  checkout?: object;
}): JsonObject =>
  toJsonObject({
    name: p.name,
    description: p.description,
    config: p.config,
    checkout: p.checkout,
  });

/** One pipeline's document, without its name (export adds its `triggers`). */
const pipelineDoc = (p: LivePipeline): DocMap | Skip => {
  const c = p.config;
  if (typeof c?.file_path !== "string" || c.file_path === "")
    return { skip: "no config.file_path" };
  const config: DocMap = { type: c.type, file_path: escapeText(c.file_path) };
  if (typeof c.file_type === "string" && c.file_type !== "")
    config.file_type = escapeText(c.file_type);
  if (c.type === "vcs") {
    if (!hasVcs(c.vcs)) return { skip: "config.vcs is incomplete" };
    config.vcs = vcsDoc(c.vcs);
  } else if (c.type === "hosted") {
    if (typeof c.hosted?.provider !== "string" || c.hosted.provider === "")
      return { skip: "config.hosted is incomplete" };
    config.hosted = { provider: escapeText(c.hosted.provider) };
  } else {
    return { skip: `config.type ${JSON.stringify(c.type)} is neither vcs nor hosted` };
  }
  const out: DocMap = {};
  // Decision: an empty description is left out (nothing to manage); any other is written.
  if (typeof p.description === "string" && p.description !== "")
    out.description = escapeText(p.description);
  out.config = config;
  if (hasVcs(p.checkout?.vcs)) out.checkout = { vcs: vcsDoc(p.checkout.vcs) };
  // spec: api-v3.md Pipelines: POST /pipelines requires `checkout`; the config says so for a
  // hosted pipeline (src/config/rules.ts), so one read without it cannot be written.
  else if (c.type === "hosted") return { skip: "a hosted pipeline without checkout.vcs" };
  return out;
};

export const pipelineKind = defineKind<DesiredPipeline, LivePipeline, "project">({
  identity: {
    type: "pipeline",
    parent: "project",
    // spec: api-v3.md Pipelines: POST /pipelines/:id/update takes `name` (issue 19 `moved`).
    ...renamableByName<DesiredPipeline, LivePipeline>(),
  },
  diff: {
    // Pipelines are matched by name: two with one name would make the next plan ambiguous.
    replaceOrder: "delete_before_create",
    replaceOrderWhy:
      "pipelines are identified by name, so the old one goes first to never have two with one name",
    desiredView: (d) => view(d),
    liveView: (l) => view(l),
    compare: (d, l) => {
      const acc = newComparison();
      addFields(acc, compareFields(view(d), view(l), RULES));
      return acc;
    },
  },
  wire: {
    // spec: api-v3.md Pipelines: listed with filter[project_id].
    list: async (api, scope, options) =>
      (
        await api.listV3<PipelineAttributes>(
          "/pipelines",
          { "filter[project_id]": scopeId(scope, "project_id") },
          pageOptions(options, toLivePipeline),
        )
      ).map(toLivePipeline),
    // Decision: the create body needs `checkout` (spec: POST /pipelines lists it without `?`);
    // when the YAML leaves it out, apply sends config.vcs as the checkout source (what a user
    // who did not mention it expects) and the comparison leaves the live checkout alone.
    createCalls: (d) => [
      call("create", "POST", "/pipelines", {
        body: "envelope",
        body_fields: [
          "name",
          ...(d.description === undefined ? [] : ["description"]),
          "config",
          "checkout",
          "references.project",
        ],
        ...(d.checkout === undefined
          ? { note: "checkout.vcs is not declared: config.vcs is sent as the checkout source" }
          : {}),
      }),
    ],
    // Decision (above): the create's `checkout`, when the YAML leaves it out, is config.vcs.
    bodyFallback: (field, after) => {
      if (field !== "checkout") return undefined;
      const vcs = getPath(after, "config.vcs");
      return vcs === undefined ? undefined : { vcs };
    },
    updateCalls: (fields) => [
      call("update", "POST", "/pipelines/{id}/update", {
        body: "flat",
        body_fields: fields
          .filter((f) => (PIPELINE_UPDATE_FIELDS as readonly string[]).includes(f.path))
          .map((f) => f.path),
      }),
    ],
    deleteCalls: () => [call("delete", "DELETE", "/pipelines/{id}")],
  },
  // Otherwise a project's map's place: `project["<slug>"].pipeline["<name>"]`, removed with
  // the project, every pipeline read (the synthetic one too) kept for saved plans.
  place: {
    collection: {
      liveIn: (p) => p.pipelines?.filter((x) => !x.synthetic),
      childParam: "pipeline_id",
      // spec: api-v3.md Pipelines: the synthetic OAuth pipeline is listed but derived from the
      // project (design.md §1 "Identity").
      synthetic: {
        of: (p) => (p.pipelines ?? []).filter((x) => x.synthetic),
        clash: (d, l) => l.name === d.name || l.id === d.id,
        refusal: (id) =>
          `this is the synthetic OAuth pipeline (id ${id}), which the service derives from the project and cannot be created, updated or deleted; remove it from the config`,
      },
    },
  },
  config: {
    yamlKey: "pipelines",
    summary: { key: "pipelines", one: "pipeline" },
    schemaKeys: PIPELINE_KEYS,
    build: (ctx, name, raw: RawPipeline, path): DesiredPipeline => {
      const c = raw.config;
      return {
        name,
        source: ctx.at(path),
        ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
        ...(raw.description !== undefined && { description: ctx.text(raw.description) }),
        config: {
          type: c.type,
          file_path: ctx.text(c.file_path),
          ...(c.file_type !== undefined && { file_type: ctx.text(c.file_type) }),
          ...(c.vcs !== undefined && { vcs: buildVcs(ctx, c.vcs) }),
          ...(c.hosted !== undefined && { hosted: { provider: ctx.text(c.hosted.provider) } }),
        },
        ...(raw.checkout !== undefined && { checkout: { vcs: buildVcs(ctx, raw.checkout.vcs) } }),
      };
    },
    export: (items, scope) => {
      const slug = scopeName(scope, "project");
      return namedEntries(items, "pipeline", (name) => addr.pipeline(slug, name), pipelineDoc);
    },
  },
  // hooks: after an uncertain create, re-list and adopt the pipeline of the declared name
  // (the default).
});
