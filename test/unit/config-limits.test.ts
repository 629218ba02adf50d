/**
 * A kind's per-parent limit is contract data (`config.limit`, src/kinds/contract.ts),
 * checked for every kind that declares one: in one file by src/config/rules.ts
 * (`checkLimits`), across an org's files by src/config/build.ts (`limitsAcrossFiles`), with
 * the code `too_many_<yamlKey>`. Test-only kinds get both with no edit outside their module;
 * the real kinds keep their codes (users' scripts match them). The exact diagnostics of the
 * real kinds are pinned by the invalid corpus (otel-exporters-6, otel-exporters-across-files,
 * webhooks-26).
 */
import { describe, expect, it } from "vitest";
import { limitsAcrossFiles } from "../../src/config/build.js";
import { DIAGNOSTIC_CODES } from "../../src/config/diagnostic.js";
import { checkLimits } from "../../src/config/rules.js";
import type { DocPath } from "../../src/config/yaml-doc.js";
import { limitCode, type ParentName, type ResourceKind } from "../../src/kinds/contract.js";
import { otelExporterKind } from "../../src/kinds/otel-exporter.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { webhookKind } from "../../src/kinds/webhook.js";
import type { ResourceType } from "../../src/model/address.js";
import type { DesiredOrg } from "../../src/model/desired.js";

/** A test-only kind: only its type, parent and config part matter to the limit checks. */
const fixtureKind = (
  type: string,
  parent: ParentName | string,
  yamlKey: string,
  shape: "map" | "list",
  max?: number,
): ResourceKind<unknown, unknown> =>
  ({
    ...otelExporterKind,
    type: type as ResourceType,
    parent,
    config: {
      ...otelExporterKind.config,
      yamlKey,
      shape,
      schemaDef: type,
      limit:
        max === undefined
          ? undefined
          : {
              max,
              message: (total: number, before: number) =>
                `${total} ${yamlKey} (${before} before); at most ${max}`,
            },
    },
  }) as unknown as ResourceKind<unknown, unknown>;

const channels = fixtureKind("notification_channel", "org", "channels", "list", 2);
const hooks = fixtureKind("project_hook", "project", "hooks", "map", 1);
const steps = fixtureKind("pipeline_step", "pipeline", "steps", "list", 1);
const notes = fixtureKind("context_note", "context", "notes", "map");

type Reported = [DocPath, "key" | "value", string, string];
const limitsOf = (
  doc: Record<string, unknown>,
  kinds: readonly ResourceKind<unknown, unknown>[],
) => {
  const out: Reported[] = [];
  checkLimits(doc, (path, at, code, message) => out.push([path, at, code, message]), kinds);
  return out;
};

describe("per-parent limits, as kind data", () => {
  it("reports the first list item past an org kind's limit, at its value, with its code", () => {
    const doc = { org: "gh/acme", channels: [{}, {}, {}, {}] };
    expect(limitsOf(doc, [...ALL_KINDS, channels])).toEqual([
      [["channels", 2], "value", "too_many_channels", "4 channels (0 before); at most 2"],
    ]);
    expect(limitsOf({ org: "gh/acme", channels: [{}, {}] }, [...ALL_KINDS, channels])).toEqual([]);
  });

  it("walks every parent of a kind below the org, however deep, from the registry", () => {
    const doc = {
      org: "gh/acme",
      projects: {
        "gh/acme/a": {
          hooks: { x: {}, y: {}, z: {} },
          pipelines: { build: { steps: [{}, {}] }, test: { steps: [{}] } },
        },
        "gh/acme/b": { hooks: { x: {} } },
        "gh/acme/c": "not an object: the schema says so",
      },
      contexts: { c: { notes: { a: {}, b: {} } } },
    };
    expect(limitsOf(doc, [...ALL_KINDS, hooks, steps, notes])).toEqual([
      [
        ["projects", "gh/acme/a", "hooks", "y"],
        "key",
        "too_many_hooks",
        "3 hooks (0 before); at most 1",
      ],
      [
        ["projects", "gh/acme/a", "pipelines", "build", "steps", 1],
        "value",
        "too_many_steps",
        "2 steps (0 before); at most 1",
      ],
    ]);
  });

  it("leaves values of the wrong type to the schema check", () => {
    expect(limitsOf({ org: "gh/acme", channels: "oops" }, [...ALL_KINDS, channels])).toEqual([]);
    expect(limitsOf({ org: "gh/acme", projects: [] }, [...ALL_KINDS, hooks])).toEqual([]);
  });

  it("counts an org kind's items across the org's files, at the first past the limit", () => {
    const at = (line: number) => ({ file: "b.yaml", line, col: 5 });
    const prev = { slug: "gh/acme", channels: [{ source: at(1) }] } as unknown as DesiredOrg;
    const next = {
      slug: "gh/acme",
      channels: [{ source: at(2) }, { source: at(3) }, { source: at(4) }],
    } as unknown as DesiredOrg;
    expect(limitsAcrossFiles(prev, next, [channels])).toEqual([
      {
        file: "b.yaml",
        line: 3,
        col: 5,
        path: "channels.1",
        code: "too_many_channels",
        message: "4 channels (1 before); at most 2",
      },
    ]);
    const none = { slug: "gh/acme" } as unknown as DesiredOrg;
    expect(limitsAcrossFiles(none, next, [channels])).toEqual([]);
  });

  it("keeps the real kinds' codes, which users' scripts match", () => {
    expect(limitCode(otelExporterKind.config.yamlKey)).toBe("too_many_otel_exporters");
    expect(limitCode(webhookKind.config.yamlKey)).toBe("too_many_webhooks");
    expect(DIAGNOSTIC_CODES).toContain("too_many_otel_exporters");
    expect(DIAGNOSTIC_CODES).toContain("too_many_webhooks");
    expect(otelExporterKind.config.limit?.max).toBe(5);
    expect(webhookKind.config.limit?.max).toBe(25);
  });
});
