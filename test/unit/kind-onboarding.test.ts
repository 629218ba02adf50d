/**
 * Issue 18's kinds, as pure code: checkout keys (identity = type; a live `<vcs>-user-key` is
 * the declared `user-key`, spec: api-v2-v1.md "Checkout key") and OTLP exporters (identity =
 * protocol + endpoint; no update route, so every change is a replace; header values are
 * secrets compared as values that are never read back), and the serial order that keeps a
 * replace inside the 5-per-org limit (spec: api-v2-v1.md "Limits").
 */
import { describe, expect, it } from "vitest";
import { checkoutKeyKind, checkoutKeyType } from "../../src/kinds/checkout-key.js";
import type { KindEnv } from "../../src/kinds/contract.js";
import { OTEL_LIMIT_REPLACE_REFUSAL, otelExporterKind } from "../../src/kinds/otel-exporter.js";
import type { DesiredOtelExporter } from "../../src/model/desired.js";
import type { LiveOtelExporter } from "../../src/model/live.js";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dProject,
  live,
  lOrg,
  lProject,
  PROJECT,
  secret,
  source,
} from "../helpers/builders.js";

const env = (forceSecrets = false): KindEnv => ({
  orgId: "org-1",
  projectId: () => undefined,
  groupId: () => undefined,
  forceSecrets,
});

const dExporter = (
  endpoint: string,
  opts: Partial<Omit<DesiredOtelExporter, "endpoint" | "source">> = {},
): DesiredOtelExporter => ({
  endpoint,
  protocol: opts.protocol ?? "grpc",
  source,
  ...(opts.insecure === undefined ? {} : { insecure: opts.insecure }),
  ...(opts.headers === undefined ? {} : { headers: opts.headers }),
});

const lExporter = (endpoint: string, opts: Partial<LiveOtelExporter> = {}): LiveOtelExporter => ({
  id: opts.id ?? `id-${endpoint}`,
  org_id: "org-1",
  endpoint,
  protocol: opts.protocol ?? "grpc",
  insecure: opts.insecure ?? false,
  header_names: opts.header_names ?? [],
});

describe("checkout keys", () => {
  it("a live <vcs>-user-key is the declared user-key (spec: `deploy-key` or a `<vcs>-user-key`)", () => {
    expect(checkoutKeyType("deploy-key")).toBe("deploy-key");
    expect(checkoutKeyType("github-user-key")).toBe("user-key");
    expect(checkoutKeyType("bitbucket-user-key")).toBe("user-key");
    expect(checkoutKeyType("user-key")).toBe("user-key");
    expect(checkoutKeyType("mystery")).toBe("mystery");
  });

  it("plans nothing for matching types, creates a missing one and deletes an undeclared one", () => {
    const key = (type: string, fingerprint: string, preferred = false) => ({
      type,
      fingerprint,
      public_key: "ssh-ed25519 AAAA",
      preferred,
    });
    const p = planChanges(
      desired(
        dOrg({
          projects: [
            {
              ...dProject(PROJECT),
              checkout_keys: [
                { type: "user-key", source },
                { type: "deploy-key", source },
              ],
            },
          ],
        }),
      ),
      live(
        lOrg({
          projects: [
            lProject(PROJECT, {
              checkout_keys: [
                key("github-user-key", "SHA256:u"),
                key("deploy-key", "SHA256:a"),
                key("deploy-key", "SHA256:b", true),
              ],
            }),
          ],
        }),
      ),
    );
    // Two live deploy keys: the preferred one is kept, the other is a surplus.
    expect(p.changes.map((c) => [c.action, c.address, c.params.id])).toEqual([
      ["delete", `project["${PROJECT}"].checkout_key["deploy-key#SHA256:a"]`, "SHA256:a"],
    ]);
    expect(p.changes[0]?.calls.map((c) => `${c.method} ${c.api} ${c.route}`)).toEqual([
      "DELETE v2 /project/{project_slug}/checkout-key/{id}",
    ]);
    expect(p.changes[0]?.params.project_slug).toBe(PROJECT);
  });

  it("export writes one entry per type; several keys of one type, or a type the config cannot say, go under ignore", () => {
    const key = (type: string, fingerprint: string) => ({
      type,
      fingerprint,
      public_key: "",
      preferred: false,
    });
    const ctx = { env: () => expect.unreachable() as never };
    const out = checkoutKeyKind.toConfig(
      [
        key("deploy-key", "a"),
        key("deploy-key", "b"),
        key("gitlab-user-key", "c"),
        key("odd", "d"),
      ],
      { project: PROJECT },
      ctx,
    );
    expect(
      out.map((e) => ("written" in e ? `written ${e.written}` : `ignored ${e.ignored.glob}`)),
    ).toEqual([
      `ignored project["${PROJECT}"].checkout_key["deploy-key"]`,
      `ignored project["${PROJECT}"].checkout_key["odd"]`,
      "written user-key",
    ]);
  });

  it("a create is one V2 POST of the type, announced with its fingerprint and public key", () => {
    expect(checkoutKeyKind.createCalls({ type: "deploy-key", source })).toEqual([
      expect.objectContaining({ method: "POST", api: "v2", body: "flat", body_fields: ["type"] }),
    ]);
    const l = checkoutKeyKind.announce?.fromResponse({
      "public-key": "ssh-ed25519 AAAAxyz",
      type: "deploy-key",
      fingerprint: "aa:bb",
      preferred: true,
    });
    expect(l && checkoutKeyKind.announce?.note(l)).toBe(
      "deploy-key fingerprint aa:bb, public key ssh-ed25519 AAAAxyz",
    );
    expect(checkoutKeyKind.announce?.fromResponse({ message: "no" })).toBeUndefined();
  });
});

describe("OTLP exporters", () => {
  const headers = { "x-honeycomb-team": secret("team-key-value-1") };

  it("identity is protocol + endpoint", () => {
    expect(otelExporterKind.desiredKey(dExporter("api.honeycomb.io:443"))).toBe(
      "grpc:api.honeycomb.io:443",
    );
    expect(otelExporterKind.liveKey(lExporter("api.honeycomb.io:443", { protocol: "http" }))).toBe(
      "http:api.honeycomb.io:443",
    );
  });

  it("header values are never read back: unverified, re-set only by --force-secrets, as a replace", () => {
    const d = dExporter("api.honeycomb.io:443", { headers });
    const l = lExporter("api.honeycomb.io:443", { header_names: ["x-honeycomb-team"] });
    const quiet = otelExporterKind.compare(d, l, env());
    expect(quiet.fields).toEqual([]);
    expect(quiet.unverified).toEqual(["headers.x-honeycomb-team"]);
    const forced = otelExporterKind.compare(d, l, env(true));
    expect(forced.fields).toEqual([
      {
        path: "headers.x-honeycomb-team",
        before: "(sensitive)",
        after: "(sensitive)",
        sensitive: true,
        forces_replacement: true,
      },
    ]);
    expect(forced.replace_reasons[0]).toMatch(/no update route/);
    expect(JSON.stringify([quiet, forced, otelExporterKind.desiredView(d, env())])).not.toContain(
      "team-key-value-1",
    );
  });

  it("other header names or another insecure flag force a replace", () => {
    const l = lExporter("a.example.com:4317", { header_names: ["x-old"] });
    const names = otelExporterKind.compare(dExporter("a.example.com:4317", { headers }), l, env());
    expect(names.replace_reasons[0]).toMatch(/header names differ/);
    const insecure = otelExporterKind.compare(
      dExporter("a.example.com:4317", { insecure: true }),
      lExporter("a.example.com:4317"),
      env(),
    );
    expect(insecure.fields).toEqual([
      { path: "insecure", before: false, after: true, forces_replacement: true },
    ]);
  });

  it("header names compare case-insensitively: a case difference alone never re-creates", () => {
    // Issue 28: HTTP header names ignore case (RFC 9110 §5.1).
    const d = dExporter("a.example.com:4317", {
      headers: { "X-Honeycomb-Team": secret("team-key-value-1") },
    });
    const l = lExporter("a.example.com:4317", { header_names: ["x-honeycomb-team"] });
    const cmp = otelExporterKind.compare(d, l, env());
    expect(cmp.replace_reasons).toEqual([]);
    expect(cmp.fields).toEqual([]);
    expect(cmp.unverified).toEqual(["headers.X-Honeycomb-Team"]);
  });

  it("the create sends each header value from the config, by its dotted path", () => {
    const [post] = otelExporterKind.createCalls(dExporter("a.example.com:4317", { headers }));
    expect(post).toMatchObject({
      method: "POST",
      api: "v2",
      route: "/otel/exporters",
      body_fields: ["org_id", "endpoint", "protocol", "insecure", "headers.x-honeycomb-team"],
      sensitive_fields: ["headers.x-honeycomb-team"],
    });
  });

  it("runs one at a time: removals first, then replaces, then creates", () => {
    const p = planChanges(
      desired({
        ...dOrg(),
        otel_exporters: [
          dExporter("new.example.com:4317"),
          dExporter("kept.example.com:4317", { insecure: true }),
        ],
      }),
      live({
        ...lOrg(),
        otel_exporters: [lExporter("kept.example.com:4317"), lExporter("gone.example.com:4317")],
      }),
    );
    const ops = orderOperations(p).operations;
    expect(ops.map((o) => `${o.phase} ${o.address}`)).toEqual([
      'delete otel_exporter["grpc:gone.example.com:4317"]',
      'create otel_exporter["grpc:kept.example.com:4317"]',
      'delete otel_exporter["grpc:kept.example.com:4317"]',
      'create otel_exporter["grpc:new.example.com:4317"]',
    ]);
    // Each waits for the one before it.
    for (let i = 1; i < ops.length; i++) expect(ops[i]?.after).toContain(ops[i - 1]?.id);
  });

  it("refuses a replace when all 5 declared exporters are live (no slot for create-first)", () => {
    const endpoints = [0, 1, 2, 3, 4].map((i) => `c${i}.example.com:4317`);
    const plan = (n: number) =>
      planChanges(
        desired({
          ...dOrg(),
          otel_exporters: endpoints
            .slice(0, n)
            .map((e, i) => dExporter(e, i === 0 ? { insecure: true } : {})),
        }),
        live({ ...lOrg(), otel_exporters: endpoints.slice(0, n).map((e) => lExporter(e)) }),
      );
    expect(() => plan(5)).toThrow(OTEL_LIMIT_REPLACE_REFUSAL);
    expect(plan(4).changes.map((c) => c.action)).toEqual(["replace"]);
  });
});

describe("validate's summary", () => {
  it("counts exporters and checkout keys, and says them only when there are some", async () => {
    const { formatSummary, summarizeConfig } = await import("../../src/config/index.js");
    const bare = desired(dOrg());
    expect(formatSummary(summarizeConfig(bare))).not.toMatch(/exporter|checkout/);
    const both = desired({
      ...dOrg({
        projects: [{ ...dProject(PROJECT), checkout_keys: [{ type: "deploy-key", source }] }],
      }),
      otel_exporters: [dExporter("a.example.com:4317"), dExporter("b.example.com:4317")],
    });
    expect(summarizeConfig(both)).toMatchObject({ otel_exporters: 2, checkout_keys: 1 });
    expect(formatSummary(summarizeConfig(both))).toMatch(/, 2 OTLP exporters, 1 checkout key$/);
  });
});

describe("the 5-exporter limit across the files of one org", () => {
  it("is checked on the merged org, at the first exporter past the limit, before any call", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { loadConfig } = await import("../../src/config/index.js");
    const dir = await mkdtemp(join(tmpdir(), "waybill-otel-"));
    const file = (prefix: string) =>
      `org: gh/acme\notel_exporters:\n${[0, 1, 2]
        .map((i) => `  - { endpoint: ${prefix}${i}.example.com:4317, protocol: grpc }\n`)
        .join("")}`;
    try {
      await writeFile(join(dir, "a.yaml"), file("a"));
      await writeFile(join(dir, "b.yaml"), file("b"));
      const r = await loadConfig(dir, { env: {} });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.diagnostics.map((d) => [d.file.endsWith("b.yaml"), d.line, d.code])).toEqual([
        [true, 5, "too_many_otel_exporters"],
      ]);
      expect(r.diagnostics[0]?.message).toMatch(
        /6 OTLP exporters across its files \(3 before this file\)/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
