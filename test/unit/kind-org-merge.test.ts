/**
 * Issue 16: one org's declarations (the files of a folder, several -c) are merged kind by
 * kind from the registry, so an org-level kind is never dropped from a second file.
 */
import { describe, expect, it } from "vitest";
import { mergeOrgDeclarations } from "../../src/kinds/org-merge.js";
import { childKinds } from "../../src/kinds/registry.js";
import type { DesiredOrg } from "../../src/model/desired.js";
import { dContext, dOrg, dProject, dWebhook } from "../helpers/builders.js";

const source = { file: "b.yaml", line: 1, col: 1 };

describe("mergeOrgDeclarations", () => {
  it("keeps every org-level collection of either declaration, by the kind's shape", () => {
    const a: DesiredOrg = {
      ...dOrg({ settings: { enable_private_orbs: true }, contexts: [dContext("one")] }),
      otel_exporters: [
        { endpoint: "a.example.com:443", protocol: "grpc", insecure: false, source },
      ],
    } as DesiredOrg;
    const b: DesiredOrg = {
      ...dOrg({ settings: { enable_ai_agents: false }, contexts: [dContext("two")] }),
      otel_exporters: [
        { endpoint: "b.example.com:443", protocol: "http", insecure: false, source },
      ],
    } as DesiredOrg;
    const first = mergeOrgDeclarations(a, b, "first");
    expect([...(first.contexts?.keys() ?? [])]).toEqual(["one", "two"]);
    expect(first.otel_exporters?.map((e) => e.endpoint)).toEqual([
      "a.example.com:443",
      "b.example.com:443",
    ]);
    expect(first.settings).toMatchObject({ enable_private_orbs: true });
    expect(mergeOrgDeclarations(a, b, "overlay").settings).toMatchObject({
      enable_private_orbs: true,
      enable_ai_agents: false,
    });
    // Every org-level kind of the registry is merged: none is left out of the result.
    const keys = childKinds("org").map((k) => k.config.yamlKey);
    for (const key of keys) {
      const declared = [a, b].some(
        (o) => (o as unknown as Record<string, unknown>)[key] !== undefined,
      );
      if (declared) expect(first, key).toHaveProperty(key);
    }
  });

  it("merges a project declared in both by its parts, the first declaration's place kept", () => {
    const a = dOrg({ projects: [dProject("gh/acme/api", { env: { A: "value-aaaa" } })] });
    const b = dOrg({
      projects: [dProject("gh/acme/api", { webhooks: [dWebhook("w")] })],
    });
    const api = mergeOrgDeclarations(a, b, "first").projects.get("gh/acme/api");
    expect([...(api?.env?.keys() ?? [])]).toEqual(["A"]);
    expect([...(api?.webhooks?.keys() ?? [])]).toEqual(["w"]);
  });
});
