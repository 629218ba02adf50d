/**
 * Round trip (property): a random valid document, written as YAML by the `yaml` package
 * (with `${` escaped as `$${`), loads back into a model that holds exactly the written
 * values — names, order, secrets (revealed), restrictions and webhooks.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { formatDiagnostic, loadConfig } from "../../src/config/index.js";
import { WEBHOOK_EVENTS } from "../../src/model/desired.js";
import { propertyRuns } from "../helpers/property-runs.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "waybill-roundtrip-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const envName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
/** Any non-empty text, including `$`, `{`, quotes, colons, newlines and non-ASCII. */
const value = fc
  .string({
    minLength: 1,
    maxLength: 20,
    unit: fc.oneof(
      fc.constantFrom("$", "{", "}", ":", "#", "'", '"', "\n", " ", "-", "é", "*"),
      fc.string({ minLength: 1, maxLength: 1 }),
    ),
  })
  // YAML cannot keep a bare CR or other C0 controls in plain text reliably; printable only.
  .filter((s) => !/[\u0000-\u0009\u000b-\u001f\u007f]/.test(s) && s.trim() !== "");
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const escapeRefs = (s: string): string => s.replaceAll("${", () => "$${");

const restriction = fc.oneof(
  fc.constantFrom("gh/acme/api", "gh/acme/web").map((project) => ({ project })),
  value.map((expression) => ({ expression })),
  fc
    .constantFrom("all-members", "0f6b3c1e-2a4d-4c8e-9b1a-3d5e7f9a1b2c")
    .map((group) => ({ group })),
);

const documentArb = fc.record({
  contexts: fc.dictionary(
    name,
    fc.record({
      env: fc.dictionary(envName, value, { maxKeys: 4 }),
      restrictions: fc.uniqueArray(restriction, {
        maxLength: 3,
        selector: (r) => JSON.stringify(r),
      }),
    }),
    { maxKeys: 3 },
  ),
  webhooks: fc.dictionary(
    name,
    fc.record({
      path: fc.stringMatching(/^[a-z0-9/]{1,12}$/),
      events: fc.subarray([...WEBHOOK_EVENTS], { minLength: 1 }),
      secret: fc.option(value, { nil: undefined }),
    }),
    { maxKeys: 4 },
  ),
});

describe("config round trip", () => {
  it("loads back exactly what was written", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(documentArb, async (d) => {
        const doc = {
          org: "gh/acme",
          contexts: Object.fromEntries(
            Object.entries(d.contexts).map(([c, ctx]) => [
              c,
              {
                env: Object.fromEntries(
                  Object.entries(ctx.env).map(([k, v]) => [k, escapeRefs(v)]),
                ),
                restrictions: ctx.restrictions.map((r) =>
                  "expression" in r ? { expression: escapeRefs(r.expression) } : r,
                ),
              },
            ]),
          ),
          projects: {
            "gh/acme/api": {
              webhooks: Object.fromEntries(
                Object.entries(d.webhooks).map(([w, h]) => [
                  w,
                  {
                    url: `https://hooks.example.com/${h.path}`,
                    events: h.events,
                    ...(h.secret !== undefined && { signing_secret: escapeRefs(h.secret) }),
                  },
                ]),
              ),
            },
          },
        };
        n += 1;
        const path = join(dir, `doc-${n}.yaml`);
        await writeFile(path, stringify(doc));
        const r = await loadConfig(path, { env: {} });
        if (!r.ok) throw new Error(r.diagnostics.map(formatDiagnostic).join("\n"));
        const org = r.config.orgs[0]!;

        expect([...(org.contexts?.keys() ?? [])]).toEqual(Object.keys(d.contexts));
        for (const [c, ctx] of Object.entries(d.contexts)) {
          const got = org.contexts?.get(c);
          expect([...(got?.env?.keys() ?? [])]).toEqual(Object.keys(ctx.env));
          for (const [k, v] of Object.entries(ctx.env))
            expect(got?.env?.get(k)?.value.reveal()).toBe(v);
          expect(
            got?.restrictions?.map((x) =>
              x.type === "project"
                ? { project: x.project }
                : x.type === "expression"
                  ? { expression: x.expression }
                  : { group: x.group },
            ),
          ).toEqual(ctx.restrictions);
        }
        const hooks = org.projects.get("gh/acme/api")?.webhooks;
        expect([...(hooks?.keys() ?? [])]).toEqual(Object.keys(d.webhooks));
        for (const [w, h] of Object.entries(d.webhooks)) {
          const got = hooks?.get(w);
          expect(got?.url).toBe(`https://hooks.example.com/${h.path}`);
          expect(got?.events).toEqual(h.events);
          expect(got?.signing_secret?.reveal()).toBe(h.secret);
        }
      }),
      { numRuns: propertyRuns(30) },
    );
  });
});
