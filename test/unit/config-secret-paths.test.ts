/**
 * Issue 16: where a config may hold a secret reference is said by the kinds
 * (`config.secretPaths`, src/kinds/contract.ts) and read from the registry by
 * src/config/references.ts, so a new kind's secret needs no hand-kept path list.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referencePlaces, resolveReferences, secretFieldAt } from "../../src/config/references.js";
import { type DocPath, pathKey } from "../../src/config/yaml-doc.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { propertyRuns } from "../helpers/property-runs.js";

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

  it("the loader's walk records a value exactly where secretFieldAt says a secret is", () => {
    // Documents whose strings sit at the secret paths above, or at paths one edit away
    // (a segment changed, dropped or added), so that most strings are near a secret field.
    const secretPaths: readonly (readonly (string | number)[])[] = [
      ["contexts", "deploy", "env", "TOKEN"],
      ["projects", "gh/acme/api", "env", "KEY"],
      ["projects", "gh/acme/api", "webhooks", "notify", "url"],
      ["projects", "gh/acme/api", "webhooks", "notify", "signing_secret"],
      ["projects", "p", "pipelines", "b", "triggers", "t", "event", "webhook", "secret"],
      ["otel_exporters", 0, "headers", "x-api-key"],
    ];
    const edited = fc
      .tuple(
        fc.constantFrom(...secretPaths),
        fc.nat(9),
        fc.constantFrom("keep", "change", "drop", "add"),
        fc.constantFrom("env", "url", "x", "headers", "event", "secret", 0),
      )
      .map(([path, at, op, seg]) => {
        const p = [...path];
        const i = at % (p.length + 1);
        if (op === "change" && i < p.length) p[i] = seg;
        if (op === "drop" && i < p.length && p.length > 1) p.splice(i, 1);
        if (op === "add") p.splice(i, 0, seg);
        return p;
      });
    const doc = fc.array(edited, { minLength: 1, maxLength: 6 }).map((paths) => {
      const root: Record<string, unknown> = {};
      for (const path of paths) {
        let node: Record<string | number, unknown> = root;
        let ok = true;
        for (let d = 0; d < path.length - 1 && ok; d++) {
          const seg = path[d] as string | number;
          const next = node[seg];
          if (next === undefined) {
            const child = typeof path[d + 1] === "number" ? [] : {};
            node[seg] = child;
            node = child as Record<string | number, unknown>;
          } else if (typeof next === "object" && next !== null) {
            node = next as Record<string | number, unknown>;
          } else ok = false;
        }
        const last = path[path.length - 1] as string | number;
        if (ok && node[last] === undefined) node[last] = "https://x.test/literal";
      }
      return root;
    });
    let reached = 0;
    fc.assert(
      fc.property(doc, (value) => {
        const { values, diagnostics } = resolveReferences("f.yaml", value, new Map(), {
          env: {},
          readFile: () => ({ ok: false, reason: "none" }),
          resolve: false,
        });
        expect(diagnostics).toEqual([]);
        const leaves: DocPath[] = [];
        const walk = (node: unknown, path: (string | number)[]): void => {
          if (typeof node === "string") leaves.push(path);
          else if (Array.isArray(node)) {
            for (const [i, n] of node.entries()) walk(n, [...path, i]);
          } else if (node !== null && typeof node === "object") {
            for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
          }
        };
        walk(value, []);
        for (const path of leaves) {
          expect(values.has(pathKey(path)), JSON.stringify(path)).toBe(
            secretFieldAt(path) !== undefined,
          );
        }
        expect(values.size).toBeLessThanOrEqual(leaves.length);
        if (values.size > 0) reached++;
      }),
      { numRuns: propertyRuns(200) },
    );
    // Not vacuous: some documents reach a secret field.
    expect(reached).toBeGreaterThan(10);
  });
});
