/**
 * Issue 16: where a config may hold a secret reference is said by the kinds
 * (`config.secretPaths`, src/kinds/contract.ts) and read from the registry by
 * src/config/references.ts, so a new kind's secret needs no hand-kept path list.
 */
import { describe, expect, it } from "vitest";
import { referencePlaces, secretFieldAt } from "../../src/config/references.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";

describe("secretFieldAt, from the kinds", () => {
  it.each([
    [["contexts", "deploy", "env", "TOKEN"], "env"],
    [["projects", "gh/acme/api", "env", "KEY"], "env"],
    [["projects", "gh/acme/api", "webhooks", "notify", "url"], "url"],
    [["projects", "gh/acme/api", "webhooks", "notify", "signing_secret"], "signing_secret"],
    [
      [
        "projects",
        "gh/acme/api",
        "pipelines",
        "build",
        "triggers",
        "t",
        "event",
        "webhook",
        "secret",
      ],
      "webhook_secret",
    ],
    [["otel_exporters", 0, "headers", "x-api-key"], "header"],
  ] as const)("%j is a secret field (%s)", (path, field) => {
    expect(secretFieldAt(path)).toBe(field);
  });

  it.each([
    [["contexts", "deploy", "restrictions", 0, "value"]],
    [["contexts", "deploy", "env"]],
    [["projects", "gh/acme/api", "webhooks", "notify", "name"]],
    [["projects", "gh/acme/api", "pipelines", "build", "description"]],
    [["projects", "gh/acme/api", "pipelines", "build", "triggers", "t", "event", "webhook"]],
    [["otel_exporters", 0, "endpoint"]],
    [["org"]],
    [["settings", "env", "x", "y"]],
  ] as const)("%j is not", (path) => {
    expect(secretFieldAt(path)).toBeUndefined();
  });

  it("the refusal names every place a kind allows, once", () => {
    const places = referencePlaces();
    for (const kind of ALL_KINDS) {
      for (const p of kind.config.secretPaths ?? []) expect(places).toContain(p.where);
    }
    expect(places.match(/env values/g)).toHaveLength(1);
  });
});
