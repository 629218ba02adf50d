/**
 * OTLP exporters (src/kinds/otel-exporter.ts; spec: api-v2-v1.md "OTLP exporter", Endpoints
 * (V2), Limits), as pure code: identity = protocol + endpoint; no update route, so every
 * change is a replace (created first); header values are secrets compared as values that are
 * never read back; export writes each header as a `${env:}` placeholder; the serial order
 * that keeps a replace inside the 5-per-org limit.
 */
import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { type EnvNameRequest, EnvRef } from "../../src/kinds/config-doc.js";
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
  PROJECT,
  secret,
  source,
} from "../helpers/builders.js";

const env = (forceSecrets = false): KindEnv => ({
  orgId: "org-1",
  projectId: () => undefined,
  refId: () => undefined,
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

describe("OTLP exporter: pure members", () => {
  const k = otelExporterKind;
  const placeholders: EnvNameRequest[] = [];
  const ctx = {
    env: (parts: readonly string[], address: string, what: string) => {
      const r = { parts, address, what };
      placeholders.push(r);
      return new EnvRef(r);
    },
  };

  it("the live key and the address key are the desired key's words; the id is the live id", () => {
    const l = lExporter("otlp.example.com:4318", { protocol: "http", id: "ex-9" });
    expect(k.liveAddressKey(l)).toBe("http:otlp.example.com:4318");
    expect(k.liveId(l)).toBe("ex-9");
    expect(k.desiredKey(dExporter("otlp.example.com:4318", { protocol: "http" }))).toBe(
      k.liveKey(l),
    );
    expect(k.pinnedId(dExporter("otlp.example.com:4318"))).toBeUndefined();
  });

  it("defaults: an unwritten insecure is false, so it is no change against a live false", () => {
    const c = k.compare(dExporter("a.example.com:4317"), lExporter("a.example.com:4317"), env());
    expect(c).toMatchObject({ fields: [], replace_reasons: [], unverified: [], skipped: [] });
    expect(k.desiredView(dExporter("a.example.com:4317"), env())).toEqual({
      org_id: "org-1",
      endpoint: "a.example.com:4317",
      protocol: "grpc",
      insecure: false,
      headers: {},
    });
  });

  it("nothing updates in place: no update calls, and every difference is a replace, created first", () => {
    expect(k.updateCalls([{ path: "insecure", before: false, after: true }])).toEqual([]);
    expect(k.replaceOrder).toBe("create_before_delete");
    const c = k.compare(
      dExporter("a.example.com:4317", { insecure: false }),
      lExporter("a.example.com:4317", { insecure: true }),
      env(),
    );
    expect(c.fields.every((f) => f.forces_replacement === true)).toBe(true);
    expect(c.replace_reasons).toEqual([expect.stringMatching(/^insecure /)]);
  });

  it("delete is one V2 DELETE by id, with no body", () => {
    expect(k.deleteCalls()).toEqual([
      expect.objectContaining({
        phase: "delete",
        method: "DELETE",
        api: "v2",
        route: "/otel/exporters/{id}",
        body: "none",
        body_fields: [],
        sensitive_fields: [],
      }),
    ]);
  });

  it("no call and no view holds a header value; an unresolved one is listed by its path", () => {
    const d = dExporter("a.example.com:4317", {
      headers: { "x-api-key": secret("hdr-secret-value-42") },
    });
    const text = JSON.stringify([
      k.createCalls(d),
      k.desiredView(d, env()),
      k.compare(d, lExporter("a.example.com:4317", { header_names: ["x-api-key"] }), env(true)),
    ]);
    expect(text).not.toContain("hdr-secret-value-42");
    expect(k.unresolvedSecrets(d)).toEqual([]);
    const skipped = dExporter("a.example.com:4317", {
      headers: { "x-api-key": Secret.unresolved("env:KEY") },
    });
    expect(k.unresolvedSecrets(skipped)).toEqual(["headers.x-api-key"]);
  });

  it("export writes protocol, endpoint, insecure only when true, and each header as a placeholder", () => {
    placeholders.length = 0;
    const out = k.toConfig(
      [
        lExporter("b.example.com:4318", { protocol: "http", insecure: true }),
        lExporter("a.example.com:4317", { header_names: ["x-team"] }),
      ],
      {},
      ctx,
    );
    expect(out.map((e) => ("written" in e ? e.written : e.ignored.glob))).toEqual([
      "grpc:a.example.com:4317",
      "http:b.example.com:4318",
    ]);
    const [a, b] = out;
    expect(a && "written" in a && a.doc).toEqual({
      endpoint: "a.example.com:4317",
      protocol: "grpc",
      headers: { "x-team": expect.any(EnvRef) },
    });
    expect(b && "written" in b && b.doc).toEqual({
      endpoint: "b.example.com:4318",
      protocol: "http",
      insecure: true,
    });
    expect(placeholders).toEqual([
      {
        parts: ["OTEL", "a.example.com", "x-team"],
        address: 'otel_exporter["grpc:a.example.com:4317"]',
        what: "exporter header",
      },
    ]);
  });

  it("export leaves under ignore what the config cannot say: a shared key, a bad protocol or endpoint", () => {
    const out = k.toConfig(
      [
        lExporter("dup.example.com:4317", { id: "e1" }),
        lExporter("dup.example.com:4317", { id: "e2" }),
        lExporter("odd.example.com:4317", { protocol: "thrift" }),
        lExporter("https://noport.example.com", { protocol: "http" }),
      ],
      {},
      ctx,
    );
    expect(
      out.map((e) => ("ignored" in e ? [e.ignored.glob, e.ignored.reason] : ["written"])),
    ).toEqual([
      [
        'otel_exporter["grpc:dup.example.com:4317"]',
        expect.stringMatching(/^2 live exporters share this protocol and endpoint \(ids e1, e2\)/),
      ],
      ['otel_exporter["http:https://noport.example.com"]', "the endpoint is not host:port"],
      ['otel_exporter["thrift:odd.example.com:4317"]', 'protocol "thrift" is not grpc or http'],
    ]);
  });

  it("cannot be renamed: `moved` says why", () => {
    expect(k.rename.can).toBe(false);
    expect(k.rename.can === false && k.rename.why).toMatch(/protocol and endpoint/);
  });
});
