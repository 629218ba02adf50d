/**
 * OTLP exporters (spec: api-v2-v1.md "OTLP exporter", Endpoints (V2), Limits):
 * - `GET /otel/exporters?org-id=` (experimental): an array of `{ id, org_id, endpoint,
 *   protocol, insecure, headers, issues }`;
 * - `POST /otel/exporters` `{ org_id, endpoint (host and port only, no scheme), protocol
 *   grpc|http, insecure bool?, headers map? }`;
 * - `DELETE /otel/exporters/{otel_exporter_id}`;
 * - at most 5 per organization (validated offline, src/config/rules.ts).
 *
 * Identity is protocol + endpoint (`otel_exporter["grpc:api.honeycomb.io:443"]`). There is
 * no update route, so any change (insecure, the header names, a header value re-set with
 * `--force-secrets`) is a replacement.
 *
 * Header values are secrets (design.md §3 "More kinds"). Decision: the spec lists `headers`
 * among the fields of a listed exporter without saying whether the values are masked; a
 * careful client does not rely on either, so only the header *names* are read into the live
 * state and compared, and the values are compared as context env vars are (values never
 * read back): unverified unless `--force-secrets` re-sets them.
 */
import { LiveReadError } from "../core/errors.js";
import type { Secret } from "../core/secret.js";
import { addr } from "../model/address.js";
import {
  type DesiredOtelExporter,
  MAX_OTEL_EXPORTERS_PER_ORG,
  OTEL_PROTOCOLS,
  type OtelProtocol,
} from "../model/desired.js";
import type { LiveOtelExporter } from "../model/live.js";
import { call } from "./calls.js";
import { addFields, addSecret, compareFields, compareSecret, newComparison } from "./compare.js";
import { type DocMap, groupBy, idsOf } from "./config-doc.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { type JsonObject, SENSITIVE, sameSet } from "./values.js";

/** An exporter as written in the org's `otel_exporters:` list. */
export interface RawOtelExporter {
  endpoint: string;
  protocol: OtelProtocol;
  insecure?: boolean;
  headers?: Record<string, string>;
}

/** The schema's `otelExporter` object, checked against RawOtelExporter (src/kinds/raw-keys.ts). */
export const OTEL_EXPORTER_KEYS = {
  otelExporter: keysOf<RawOtelExporter>()(
    ["endpoint", "protocol", "insecure", "headers"],
    ["endpoint", "protocol"],
  ),
};

/** An exporter as V2 returns it (spec: api-v2-v1.md "OTLP exporter"). */
interface V2OtelExporter {
  readonly id: string;
  readonly org_id?: string;
  readonly endpoint: string;
  readonly protocol: string;
  readonly insecure?: boolean;
  readonly headers?: Readonly<Record<string, unknown>> | null;
}

/** The identity key: `grpc:api.honeycomb.io:443`. */
export const otelKey = (protocol: string, endpoint: string): string => `${protocol}:${endpoint}`;

/**
 * spec: POST /otel/exporters: "endpoint string (host and port only, no scheme)".
 * Decision: the port is required (a host alone is not "host and port"); the schema holds
 * the same pattern.
 */
export const OTEL_ENDPOINT = /^[A-Za-z0-9._-]+:[0-9]{1,5}$/;

/**
 * Decision: a header name is an HTTP token without `.` (RFC 9110 §5.1 allows it, but a
 * header's value is found by its dotted path in the config and the plan's call data).
 */
export const OTEL_HEADER_NAME = /^[A-Za-z0-9!#$%&'*+^_`|~-]+$/;

const headerNames = (d: DesiredOtelExporter): string[] => Object.keys(d.headers ?? {}).sort();

const lowerName = (name: string): string => name.toLowerCase();

const maskedHeaders = (names: readonly string[]): JsonObject =>
  Object.fromEntries(names.map((n) => [n, SENSITIVE]));

const isV2Exporter = (x: unknown): x is V2OtelExporter => {
  if (x === null || typeof x !== "object") return false;
  const e = x as Record<string, unknown>;
  return (
    typeof e.id === "string" &&
    e.id !== "" &&
    typeof e.endpoint === "string" &&
    typeof e.protocol === "string"
  );
};

/** Only the header names are kept: a value the service may return never enters the state. */
const toLive = (e: V2OtelExporter, orgId: string): LiveOtelExporter => ({
  id: e.id,
  org_id: typeof e.org_id === "string" ? e.org_id : orgId,
  endpoint: e.endpoint,
  protocol: e.protocol,
  insecure: e.insecure === true,
  header_names: Object.keys(e.headers ?? {}).sort(),
});

const NO_UPDATE = "an exporter has no update route (the API reference, V2), so it is re-created";

export const OTEL_LIMIT_REPLACE_REFUSAL = `the org has ${MAX_OTEL_EXPORTERS_PER_ORG} exporters, the service's maximum (the API reference, V2 "Limits"), and this one must be re-created (${NO_UPDATE.replace(", so it is re-created", "")}). Waybill creates the replacement before deleting the old one, and never deletes first; free a slot: remove another exporter from the config (or this one, apply, then add it back and apply again)`;

export const otelExporterKind = defineKind<DesiredOtelExporter, LiveOtelExporter, "org">({
  identity: {
    type: "otel_exporter",
    parent: "org",
    desiredKey: (d) => otelKey(d.protocol, d.endpoint),
    liveKey: (l) => otelKey(l.protocol, l.endpoint),
    liveId: (l) => l.id,
    // spec: api-v2-v1.md: exporters are created and deleted, never updated.
    rename: cannotRename(
      "an OTLP exporter has no name and no update route: it is identified by protocol and endpoint",
    ),
  },
  diff: {
    // Decision: create the new exporter before deleting the old one. Never delete before the
    // replacement is known to be accepted (a refused create leaves the old one exporting);
    // two exporters with one endpoint may coexist for the moment (the spec has no uniqueness
    // rule). The 5-per-org limit: the collection runs serially, removals first (`serial`),
    // and a replace that would need a sixth slot is refused in the plan (`refuse`).
    replaceOrder: "create_before_delete",
    replaceOrderWhy:
      "no update route: the replacement is created first, so exports never stop and nothing is deleted before the new one is accepted",
    desiredView: (d, env) => ({
      org_id: env.orgId,
      endpoint: d.endpoint,
      protocol: d.protocol,
      insecure: d.insecure ?? false,
      headers: maskedHeaders(headerNames(d)),
    }),
    liveView: (l) => ({
      org_id: l.org_id,
      endpoint: l.endpoint,
      protocol: l.protocol,
      insecure: l.insecure,
      headers: maskedHeaders(l.header_names),
    }),
    compare: (d, l, env) => {
      const acc = newComparison();
      addFields(
        acc,
        compareFields({ insecure: d.insecure ?? false }, { insecure: l.insecure }, [
          { path: "insecure", mode: "replace", default: false },
        ]),
      );
      const names = headerNames(d);
      // Issue 28: HTTP header names are case-insensitive (RFC 9110 §5.1): `X-Honeycomb-Team`
      // and `x-honeycomb-team` are one header, so a case difference alone never re-creates
      // the exporter (the loader refuses two names that differ only by case).
      if (!sameSet(names.map(lowerName), l.header_names.map(lowerName))) {
        acc.fields.push({
          path: "headers",
          before: maskedHeaders(l.header_names),
          after: maskedHeaders(names),
          forces_replacement: true,
          sensitive: true,
        });
        acc.replace_reasons.push(`headers: the header names differ; ${NO_UPDATE}`);
        return acc;
      }
      const headers = d.headers ?? {};
      for (const name of names) {
        const path = `headers.${name}`;
        const outcome = compareSecret(headers[name], { present: true }, env.forceSecrets);
        if (outcome === "change") {
          acc.fields.push({
            path,
            before: SENSITIVE,
            after: SENSITIVE,
            sensitive: true,
            forces_replacement: true,
          });
          acc.replace_reasons.push(`${path}: re-set by --force-secrets; ${NO_UPDATE}`);
        } else {
          addSecret(acc, path, outcome, true);
        }
      }
      return acc;
    },
    unresolvedSecrets: (d) =>
      Object.entries(d.headers ?? {})
        .filter(([, v]) => !v.isResolved)
        .map(([n]) => `headers.${n}`),
  },
  wire: {
    // spec: GET /otel/exporters, `org-id` required: "array of exporters" (not a V2 page).
    list: async (api, scope, options) => {
      const orgId = scopeId(scope, "org_id");
      const body = await api.get<unknown>(
        "v2",
        "/otel/exporters",
        { "org-id": orgId },
        options?.signal ? { signal: options.signal } : {},
      );
      if (!Array.isArray(body)) {
        throw new LiveReadError(
          "GET /api/v2/otel/exporters answered without an array of exporters",
        );
      }
      const out = body.map((x) => {
        if (!isV2Exporter(x)) {
          throw new LiveReadError(
            "the service listed an OTLP exporter without an id, endpoint or protocol",
          );
        }
        return toLive(x, orgId);
      });
      options?.onPage?.(out);
      return out;
    },
    createCalls: (d) => {
      const headers = headerNames(d).map((n) => `headers.${n}`);
      return [
        call("create", "POST", "/otel/exporters", {
          api: "v2",
          body: "flat",
          body_fields: ["org_id", "endpoint", "protocol", "insecure", ...headers],
          sensitive_fields: headers,
          note: "not idempotent: an uncertain create is re-listed before any retry",
        }),
      ];
    },
    updateCalls: () => [],
    deleteCalls: () => [call("delete", "DELETE", "/otel/exporters/{id}", { api: "v2" })],
  },
  // Otherwise an org-level collection's place (defineKind's defaults): `otel_exporters`,
  // `otel_exporter["<protocol>:<endpoint>"]`, removed with the org.
  place: {
    collection: {
      serial: true,
      // Decision (the 5-per-org limit and "never delete before the replacement is known to
      // be accepted"): removals run first and the collection runs serially (`serial`), so a
      // replace needs one free slot while both exist. When every one of the 5 declared
      // exporters is live, there is none: the plan refuses the replace rather than delete
      // first (a refused create would leave the org without that export).
      refuse: (item, org) => {
        if (item.action !== "replace") return undefined;
        const live = new Set(
          (org.live.otel_exporters ?? []).map((l) => otelKey(l.protocol, l.endpoint)),
        );
        const kept = (org.desired.otel_exporters ?? []).filter((d) =>
          live.has(otelKey(d.protocol, d.endpoint)),
        ).length;
        return kept >= MAX_OTEL_EXPORTERS_PER_ORG ? OTEL_LIMIT_REPLACE_REFUSAL : undefined;
      },
    },
  },
  config: {
    yamlKey: "otel_exporters",
    summary: { key: "otel_exporters", one: "OTLP exporter" },
    shape: "list",
    schemaKeys: OTEL_EXPORTER_KEYS,
    // spec: api-v2-v1.md "Limits": OTLP exporters, 5 per organization. Checked offline, so a
    // config over the limit never gets as far as a refused POST (design.md §3 "More kinds"),
    // in each file and across the org's files.
    limit: {
      max: MAX_OTEL_EXPORTERS_PER_ORG,
      message: (total, before) =>
        before === 0
          ? `the org declares ${total} OTLP exporters; the service allows at most ${MAX_OTEL_EXPORTERS_PER_ORG} per org (the API reference, V2 "Limits"): remove ${total - MAX_OTEL_EXPORTERS_PER_ORG}`
          : `the org declares ${total} OTLP exporters across its files (${before} before this file); the service allows at most ${MAX_OTEL_EXPORTERS_PER_ORG} per org (the API reference, V2 "Limits")`,
    },
    // Two exporters with one protocol and endpoint (here or in two files) is an error.
    declares: "value",
    // design.md §3 "More kinds": header values are sensitive.
    secretPaths: [
      { at: ["headers", "*"], field: "header", where: "an OTLP exporter's header values" },
    ],
    build: (ctx, _key, raw: RawOtelExporter, path): DesiredOtelExporter => {
      const headers: Record<string, Secret> = {};
      for (const name of Object.keys(raw.headers ?? {})) {
        headers[name] = ctx.secret([...path, "headers", name]);
      }
      return {
        endpoint: ctx.text(raw.endpoint),
        protocol: raw.protocol,
        source: ctx.at(path, "value"),
        ...(raw.insecure !== undefined && { insecure: raw.insecure }),
        ...(raw.headers !== undefined && { headers }),
      };
    },
    export: (items, _scope, ctx) => {
      const byKey = groupBy(items, (e) => otelKey(e.protocol, e.endpoint));
      return [...byKey.keys()].sort().map((key) => {
        const list = byKey.get(key) ?? [];
        const glob = addr.otelExporter(key);
        const e = list[0] as LiveOtelExporter;
        if (list.length > 1) {
          return {
            ignored: {
              glob,
              reason: `${list.length} live exporters share this protocol and endpoint (ids ${idsOf(list)}); delete the extra ones in the service, then declare it`,
            },
          };
        }
        if (!(OTEL_PROTOCOLS as readonly string[]).includes(e.protocol))
          return {
            ignored: { glob, reason: `protocol ${JSON.stringify(e.protocol)} is not grpc or http` },
          };
        if (!OTEL_ENDPOINT.test(e.endpoint))
          return { ignored: { glob, reason: "the endpoint is not host:port" } };
        const bad = e.header_names.find((n) => !OTEL_HEADER_NAME.test(n));
        if (bad !== undefined)
          return {
            ignored: { glob, reason: `header name ${JSON.stringify(bad)} cannot be declared` },
          };
        const doc: DocMap = { endpoint: e.endpoint, protocol: e.protocol };
        if (e.insecure) doc.insecure = true;
        if (e.header_names.length > 0) {
          // spec: header values are never exported (never read): each is a placeholder.
          doc.headers = Object.fromEntries(
            e.header_names.map((n) => [
              n,
              ctx.env(["OTEL", e.endpoint.split(":")[0] ?? e.endpoint, n], glob, "exporter header"),
            ]),
          );
        }
        return { written: key, item: e, doc };
      });
    },
  },
  hooks: {
    adopt: {
      by: "relist",
      // The one this change made: same identity, same header names, same insecure flag.
      matches: (d, _after, l) =>
        otelKey(l.protocol, l.endpoint) === otelKey(d.protocol, d.endpoint) &&
        l.insecure === (d.insecure ?? false) &&
        sameSet(headerNames(d), [...l.header_names]),
    },
    // A refused create leaves every live exporter as it was: a replace deletes the old one
    // only after its replacement was accepted.
    refusal: (_d, status) =>
      `Nothing was deleted: an exporter being replaced keeps exporting.${status === 400 ? ` The service refuses a sixth exporter in an org (the API reference, V2 "Limits": ${MAX_OTEL_EXPORTERS_PER_ORG} per organization): if another was added since the plan, free a slot and re-run.` : ""}`,
  },
});
